#!/usr/bin/env bash
# arenaprof record + report end to end on mininfer (root, BPF): first touches equal the
# fixture's ground truth page by page, per run and per operator, with each fault source;
# branch and grow variants; -p attach; bad input; drops.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

MI=$BUILD/mininfer
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
RUNS=${RECORD_RUNS:-2000}
if [ "$(id -u)" != 0 ]; then
	fail "record tests need root" "run make check as root (BPF)"
	exit 1
fi
markers=(--run-probe "$MI:mininfer_invoke" --op-probe "$MI:mininfer_op:0")

# record_and_check LABEL PROBE TRUTH-ARGS... -- extra check args
record_and_check() {
	local label=$1 probe=$2; shift 2
	local args=() extra=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
	[ "$1" = -- ] && shift && extra=("$@")
	local t=$TMP/$label.trace
	if ! "$ARENAPROF" record -o "$t" --probe "$probe" "${markers[@]}" -- \
		"$MI" "$MV2" "${args[@]}" >"$TMP/$label.out" 2>"$TMP/$label.err"; then
		fail "$label: record" "$(tail -3 "$TMP/$label.err")"
		return
	fi
	pass "$label: record exits 0"
	check "$label: method $probe printed" grep -q "with $probe" "$TMP/$label.err"
	"$ARENAPROF" report "$t" --plan "$MV2" --json --pages >"$TMP/$label.json" ||
		{ fail "$label: report" "exit $?"; return; }
	"$MI" --truth "$MV2" "${args[@]}" >"$TMP/$label.truth.json"
	python3 tests/py/check_trace.py "$TMP/$label.json" "$TMP/$label.truth.json" \
		--label "$label: " "${extra[@]}"
}

for probe in tp perf; do
	record_and_check "$probe" "$probe" --runs "$RUNS" -- --runs "$RUNS"
done
record_and_check "tp branch" tp --runs 12 --branch-op 3 --branch-every 5 -- --runs 12
record_and_check "perf branch" perf --runs 12 --branch-op 3 --branch-every 5 -- --runs 12
record_and_check "tp grow" tp --runs 6 --grow-at 3 -- --runs 6 --grow
skip "fentry method" "this host refuses fentry (EPERM); it is tested in the VM suite"

# auto picks a working method (tp here)
"$ARENAPROF" record -o "$TMP/auto.trace" -- "$MI" "$MV2" --runs 1 >/dev/null 2>"$TMP/auto.err"
check "auto mode picks tp on this host" grep -q 'with tp' "$TMP/auto.err"
check "without a run probe, the trace says none was found" \
	grep -q 'no run probe' "$TMP/auto.err"

# --runs 5 --kill-at-runs stops a long-running command after 5 runs and ends it (--runs
# alone lets it finish: test_record_runs.sh)
"$ARENAPROF" record -o "$TMP/stop.trace" "${markers[@]}" --runs 5 --kill-at-runs -- "$MI" \
	"$MV2" --runs 100000000 >/dev/null 2>"$TMP/stop.err"
rc=$?
"$ARENAPROF" report "$TMP/stop.trace" --json >"$TMP/stop.json"
r=$(python3 -c "import json; d=json.load(open('$TMP/stop.json')); print(d['runs'], d['end']['reason'])")
MSG="exit $rc, report: $r" check "--runs 5 --kill-at-runs stops after 5 runs" \
	test "$rc:$r" = "0:5 the requested runs completed"

# -p: attach to a running mininfer whose arena is already resident
mkfifo "$TMP/go"
"$MI" "$MV2" --runs 100000000 >"$TMP/bg.out" 2>&1 &
bg=$!
for _ in $(seq 100); do grep -q arena "$TMP/bg.out" 2>/dev/null && break; sleep 0.05; done
sleep 0.3
"$ARENAPROF" record -p "$bg" -o "$TMP/attach.trace" "${markers[@]}" --duration 1 \
	>/dev/null 2>"$TMP/attach.err"
rc=$?
kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null
"$ARENAPROF" report "$TMP/attach.trace" --plan "$MV2" --json >"$TMP/attach.json"
r=$(python3 -c "
import json; d=json.load(open('$TMP/attach.json')); a=d['arena']
print(d['attached'], a['resident_at_attach_pages'], a['first_touch_pages'], d['runs'] > 0)")
MSG="exit $rc; attached, resident at attach, first touches, runs>0: $r" \
	check "-p: the arena's 405 pages are reported resident before attach, none first-touched" \
	test "$rc:$r" = "0:True 405 0 True"

# bad input
expect_fail() {	# expect_fail NAME WANT-RC PATTERN CMD...
	local name=$1 want=$2 pat=$3; shift 3
	"$@" >/dev/null 2>"$TMP/bad.err"
	local rc=$?
	if [ "$rc" -eq "$want" ] && grep -q "$pat" "$TMP/bad.err" &&
		! grep -qi 'segmentation\|core dumped\|assert' "$TMP/bad.err"; then
		pass "$name"
	else
		fail "$name" "exit $rc (want $want), stderr: $(head -c 300 "$TMP/bad.err")"
	fi
}
true & dead=$!; wait "$dead"	# a PID that existed and is gone
expect_fail "a dead PID: exit 2, one clear line" 2 "does not exist" \
	"$ARENAPROF" record -p "$dead" -o "$TMP/dead.trace"
expect_fail "a command that does not exist: exit 2" 2 "cannot run" \
	"$ARENAPROF" record -o "$TMP/nocmd.trace" -- /nonexistent/cmd
expect_fail "no -o: exit 2" 2 "needs -o" "$ARENAPROF" record -- true
# the command's failure is record's exit 4, its own status in record's summary line (a
# status of its own would be taken for record's: man/arenaprof-record.1, EXIT STATUS)
expect_fail "a command that exits 7: record exits 4 and says status 7" 4 "exited (status 7)" \
	"$ARENAPROF" record -o "$TMP/st7.trace" -- sh -c 'exit 7'
MSG="$("$ARENAPROF" report "$TMP/st7.trace" --json 2>&1 | head -c 300)"
check "... and its trace is complete, with status 7" python3 -c 'import json,sys
d = json.loads(sys.argv[1]); sys.exit(not (d["complete"] and d["end"]["exit_status"] == 7))' \
	"$("$ARENAPROF" report "$TMP/st7.trace" --json 2>/dev/null)"
expect_fail "a command killed by SIGKILL: record exits 4 and says so" 4 "killed by signal 9" \
	"$ARENAPROF" record -o "$TMP/st9.trace" -- sh -c 'kill -9 $$'
expect_fail "a command that exits 0: record exits 0 and says so" 0 "exited (status 0)" \
	"$ARENAPROF" record -o "$TMP/st0.trace" -- true
# --json: the outcome as the last line on stdout, equal to what report reads in the trace
out=$("$ARENAPROF" record -o "$TMP/js.trace" --json --run-probe "$MI:mininfer_invoke" -- \
	"$MI" "$MV2" --runs 3 2>/dev/null | tail -1)
rep=$("$ARENAPROF" report "$TMP/js.trace" --json 2>/dev/null)
MSG="record: $(printf '%s' "$out" | head -c 300)"
check "record --json: faults, runs, drops and the end equal report's of its trace, exit_code 0" \
	python3 -c 'import json, sys
d, r = json.loads(sys.argv[1]), json.loads(sys.argv[2])
sys.exit(not (d["faults"] == r["faults_total"] and d["runs"] == r["runs"] == 3 and
	      d["dropped_events"] == r["dropped_events"] and d["exit_code"] == 0 and
	      d["end"]["exit_status"] == 0 and d["end"]["signal"] is None and
	      d["runs_asked"] is None and d["command"]["exit_status"] == 0 and
	      d["trace_bytes"] == __import__("os").path.getsize(sys.argv[3])))' \
	"$out" "$rep" "$TMP/js.trace"
# the ring: 10 ms of the fault rate measured at start (56-byte records), a power of 2 in
# 256K..64M; --ring-size sets it and no rate is measured
MSG="record: $(printf '%s' "$out" | head -c 300)"
check "record --json: the ring holds 10 ms of the measured fault rate, a power of 2 >= 256K" \
	python3 -c 'import json, sys
d = json.loads(sys.argv[1]); n, r = d["ring_bytes"], d["ring_sized_for_faults_per_s"]
want = 256 << 10
while want < 64 << 20 and want < r * 56 * 0.010:
	want <<= 1
sys.exit(not (r > 1000 and n == want))' "$out"
out=$("$ARENAPROF" record -o "$TMP/js6.trace" --json --ring-size 512K -- true 2>"$TMP/js6.err" |
	tail -1)
MSG="record: $(printf '%s' "$out" | head -c 300); $(head -c 300 "$TMP/js6.err")"
check "record --ring-size 512K: ring_bytes 524288, no rate measured, and it says so" \
	python3 -c 'import json, sys
d = json.loads(sys.argv[1])
sys.exit(not (d["ring_bytes"] == 524288 and d["ring_sized_for_faults_per_s"] == 0 and
	      "ring buffer 512.00 KiB (--ring-size)" in open(sys.argv[2]).read()))' \
	"$out" "$TMP/js6.err"
out=$("$ARENAPROF" record -o "$TMP/js5.trace" --json -- sh -c 'exit 5' 2>/dev/null)
rc=$?
MSG="exit $rc: $out"
check "record --json of a command that exits 5: exit 4, exit_code 4, its exit_status 5" \
	python3 -c 'import json, sys
d = json.loads(sys.argv[1]); sys.exit(not (sys.argv[2] == "4" and d["exit_code"] == 4 and
	d["end"]["exit_status"] == 5 and d["command"]["exit_status"] == 5 and
	d["command"]["signal"] is None and not d["command"]["ended_by_record"]))' "$out" "$rc"
# a status line a second on a terminal (script(1) gives it one), none into a pipe
if command -v script >/dev/null; then
	script -qec "$ARENAPROF record -o $TMP/tty.trace -- sleep 2.5" /dev/null >"$TMP/tty.out" 2>&1
	n=$(tr '\r' '\n' <"$TMP/tty.out" | grep -ac 'arenaprof record: [0-9]* s, [0-9]* runs, [0-9]* faults, .* written, 0 dropped')
	MSG="$n status lines: $(tr '\r' '\n' <"$TMP/tty.out" | head -c 300)"
	check "record on a terminal: a status line each second (2 or 3 in 2.5 s)" \
		[ "$n" -ge 2 -a "$n" -le 3 ]
	"$ARENAPROF" record -o "$TMP/pipe2.trace" -- sleep 1.5 2>"$TMP/pipe2.err"
	MSG="$(head -c 300 "$TMP/pipe2.err")"
	check "record into a pipe or file: no status line" \
		sh -c '! grep -q "runs, .* faults, .* written" "$1"' _ "$TMP/pipe2.err"
else
	fail "record status line" "script(1) is missing (bsdutils)"
fi
# numbers are checked before they are narrowed: (int)4294967297 would be pid 1
expect_fail "-p 4294967297: exit 2, not pid 1" 2 "bad value '4294967297'" \
	"$ARENAPROF" record -o "$TMP/x.trace" -p 4294967297
expect_fail "--duration nan: exit 2" 2 "bad value 'nan'" \
	"$ARENAPROF" record -o "$TMP/x.trace" --duration nan -- true
expect_fail "--runs -1: exit 2" 2 "bad value '-1'" \
	"$ARENAPROF" record -o "$TMP/x.trace" --runs -1 -- true
expect_fail "bad --probe: exit 2" 2 "bad value" \
	"$ARENAPROF" record --probe magic -o "$TMP/x.trace" -- true
expect_fail "a bad --run-probe symbol: exit 2" 2 "run-probe" \
	"$ARENAPROF" record --run-probe "$MI:no_such_function" -o "$TMP/x.trace" -- true
if id nobody >/dev/null 2>&1; then
	cp "$ARENAPROF" "$TMP/ap-nobody"; chmod 755 "$TMP" "$TMP/ap-nobody"
	expect_fail "no permission (as nobody): a clear line, exit 1" 1 "permission\|root" \
		runuser -u nobody -- "$TMP/ap-nobody" record -o /tmp/arenaprof-nobody.trace -- true
fi
# --user: the command runs as that user (uid, gid, groups as initgroups sets them, HOME),
# the probes stay with the recorder, and the trace says so
if id nobody >/dev/null 2>&1; then
	want="$(id -u nobody) $(id -g nobody) $(id -G nobody) $(getent passwd nobody | cut -d: -f6)"
	"$ARENAPROF" record --arena off -o "$TMP/user.trace" --user nobody -- \
		sh -c 'echo "$(id -u) $(id -g) $(id -G) $HOME"' >"$TMP/user.out" 2>"$TMP/user.err"
	rc=$?
	MSG="exit $rc, the command printed '$(cat "$TMP/user.out")', want '$want'; \
$(head -c 300 "$TMP/user.err")" \
		check "--user nobody: the command runs with nobody's uid, gid, groups and HOME" \
		test "$rc:$(cat "$TMP/user.out")" = "0:$want"
	r=$("$ARENAPROF" report "$TMP/user.trace" --json 2>&1 | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["faults_total"] > 0, any("runs as user nobody" in n for n in d["notes"]),
      d["end"]["reason"])' 2>&1)
	MSG="$r" check "--user nobody: its faults are traced, the trace notes the user" \
		test "$r" = "True True the target exited"
else
	skip "--user nobody" "no user nobody on this host"
fi
rm -f "$TMP/nouser.trace"
expect_fail "--user of an unknown user: exit 2" 2 "unknown user 'no-such-user-ap'" \
	"$ARENAPROF" record -o "$TMP/nouser.trace" --user no-such-user-ap -- true
check "... and no trace is left" test ! -e "$TMP/nouser.trace"
expect_fail "--user with -p: exit 2 (nothing is started)" 2 "is for a command started" \
	"$ARENAPROF" record -o "$TMP/nouser.trace" --user nobody -p $$
# -p on what has no user memory: a kernel thread, a zombie; one line, exit 2, no trace
kthread=$(python3 -c '
import os
for p in sorted((int(d) for d in os.listdir("/proc") if d.isdigit())):
	try:
		s = open(f"/proc/{p}/stat").read()
	except OSError:
		continue
	if int(s[s.rindex(")") + 2:].split()[6]) & 0x00200000:
		print(p)
		break')
if [ -n "$kthread" ]; then
	rm -f "$TMP/kt.trace"
	expect_refusal "record -p $kthread (a kernel thread): refused" 2 \
		"process $kthread (.*) is a kernel thread" \
		"$ARENAPROF" record -p "$kthread" -o "$TMP/kt.trace"
	check "... and no trace is left" test ! -e "$TMP/kt.trace"
	expect_refusal "top -p $kthread (a kernel thread): refused" 2 "is a kernel thread" \
		"$ARENAPROF" top -p "$kthread" --batch -n 1
else
	skip "-p on a kernel thread" "no kernel thread visible in this pid namespace"
fi
# a zombie: a parent that does not reap its child for a while
python3 -c 'import os, sys, time
pid = os.fork()
if pid == 0:
	os._exit(3)
print(pid, flush=True)
time.sleep(15)' >"$TMP/zombie.pid" &
zparent=$!
for _ in $(seq 50); do [ -s "$TMP/zombie.pid" ] && break; sleep 0.1; done
zpid=$(cat "$TMP/zombie.pid")
for _ in $(seq 50); do grep -q '^State:.*Z' "/proc/$zpid/status" 2>/dev/null && break; sleep 0.1; done
rm -f "$TMP/z.trace"
expect_refusal "record -p of a zombie: refused" 2 "process $zpid (python3) is a zombie" \
	"$ARENAPROF" record -p "$zpid" -o "$TMP/z.trace"
check "... and no trace is left" test ! -e "$TMP/z.trace"
expect_refusal "top -p of a zombie: refused" 2 "is a zombie" \
	"$ARENAPROF" top -p "$zpid" --batch -n 1
kill "$zparent" 2>/dev/null; wait "$zparent" 2>/dev/null

# an idle -p target that exits. Not our child: its status is ours to read only while it is
# a zombie. A parent that reaps at once: the status is unknown, and said so; a parent that
# reaps late: the real status.
exit_case() {	# exit_case LABEL REAP-DELAY-S WANT-TEXT
	python3 -c 'import os, sys, time
pid = os.fork()
if pid == 0:
	time.sleep(1.5)
	os._exit(7)
print(pid, flush=True)
if float(sys.argv[1]) == 0:
	os.waitpid(pid, 0)
time.sleep(float(sys.argv[1]) or 1)
os.waitpid(pid, os.WNOHANG) if float(sys.argv[1]) else None' "$2" >"$TMP/$1.pid" &
	local parent=$! p rc
	for _ in $(seq 50); do [ -s "$TMP/$1.pid" ] && break; sleep 0.1; done
	p=$(cat "$TMP/$1.pid")
	"$ARENAPROF" record --arena off -p "$p" -o "$TMP/$1.trace" >/dev/null 2>"$TMP/$1.err"
	rc=$?
	wait "$parent"
	MSG="exit $rc: $(cat "$TMP/$1.err")" \
		check "$1: one line 'process $p exited ($3)'" \
		test "$(grep -c "exited (" "$TMP/$1.err")" = 1 -a \
		-n "$(grep -F "process $p exited ($3)" "$TMP/$1.err")"
	r=$("$ARENAPROF" report "$TMP/$1.trace" 2>&1 | grep '^ended')
	MSG="report: $r" check "$1: report says the same" \
		test "$r" = "ended      the target exited ($3)"
}
exit_case "idle -p target, reaped at once by its parent" 0 "status unknown: not our child"
exit_case "idle -p target, reaped late by its parent" 4 "status 7"
r=$("$ARENAPROF" report "$TMP/idle -p target, reaped at once by its parent.trace" --json |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["end"]["exit_status"])')
MSG="$r" check "report --json: an unknown exit status is null, not -1" test "$r" = None

# a PID that exits during attach
sleep 0.2 & short=$!
"$ARENAPROF" record -p "$short" -o "$TMP/short.trace" --duration 2 >/dev/null 2>"$TMP/short.err"
rc=$?
reads_back() { "$ARENAPROF" report "$1" --json >/dev/null; }
check "a PID that exits during attach: the trace is finalised and reads back" \
	reads_back "$TMP/short.trace"
MSG="exit $rc" check "a PID that exits during attach: not a crash" test "$rc" -lt 128

# corrupt, truncated, future-version traces
t=$TMP/tp.trace
head -c 5 "$t" >"$TMP/tiny.trace"
expect_fail "a 5-byte trace: exit 2" 2 "trace" "$ARENAPROF" report "$TMP/tiny.trace"
printf 'hello, this is not a trace at all......' >"$TMP/text.trace"
expect_fail "not a trace: exit 2" 2 "not an arenaprof trace" "$ARENAPROF" report "$TMP/text.trace"
python3 - "$t" "$TMP/future.trace" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[8:12] = (99).to_bytes(4, 'little')
open(sys.argv[2], 'wb').write(b)
PY
expect_fail "a trace of a future version: exit 2" 2 "newer" "$ARENAPROF" report "$TMP/future.trace"
size=$(stat -c %s "$t")
# a cut exactly on a record boundary reads as a whole (shorter) trace: of two cuts 5 bytes
# apart at least one is inside a record (records are at least 12 bytes)
cut=$((size * 2 / 3))
head -c "$cut" "$t" >"$TMP/cut.trace"
"$ARENAPROF" report "$TMP/cut.trace" --json 2>/dev/null | grep -q '"truncated":true' ||
	head -c $((cut + 5)) "$t" >"$TMP/cut.trace"
"$ARENAPROF" report "$TMP/cut.trace" --json >"$TMP/cut.json" 2>"$TMP/cut.err"
rc=$?
r=$(python3 -c "import json; d=json.load(open('$TMP/cut.json')); print(d['truncated'], d['faults_total'] > 0)" 2>/dev/null)
MSG="exit $rc, $r, $(cat "$TMP/cut.err")" \
	check "a trace cut at 2/3: reports its whole records and says it was cut" \
	test "$rc:$r" = "0:True True"
python3 - "$t" "$TMP/flip.trace" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[len(b) // 2] ^= 0x40
open(sys.argv[2], 'wb').write(b)
PY
expect_fail "a flipped byte mid-trace: exit 2, corrupt at an offset" 2 "corrupt" \
	"$ARENAPROF" report "$TMP/flip.trace"

# kill -9 of the recorder keeps every whole record
"$ARENAPROF" record -o "$TMP/k9.trace" "${markers[@]}" -- "$MI" "$MV2" --runs 100000000 \
	>/dev/null 2>&1 &
rec=$!
sleep 1.5
kid=$(pgrep -P "$rec" | head -1)
kill -9 "$rec"; wait "$rec" 2>/dev/null
# gone, or a zombie its new parent has yet to reap
dead() { [ ! -e "/proc/$1" ] || [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = Z ]; }
gone=false
for _ in $(seq 50); do dead "$kid" && gone=true && break; sleep 0.1; done
MSG="child '$kid' of recorder $rec: $(cat "/proc/$kid/status" 2>/dev/null | head -3 | tr '\n' ' ')" \
	check "kill -9 of the recorder: the command it started dies with it (SIGKILL, \
PR_SET_PDEATHSIG)" test -n "$kid" -a "$gone" = true
[ "$gone" = true ] && [ -n "$kid" ] || kill -9 "$kid" 2>/dev/null
# --keep: the command may outlive the recorder, by the user's choice
"$ARENAPROF" record --arena off --keep -o "$TMP/keep.trace" -- sleep 30 >/dev/null 2>&1 &
rec=$!
for _ in $(seq 50); do kid=$(pgrep -P "$rec" -x sleep) && break; sleep 0.1; done
kill -9 "$rec"; wait "$rec" 2>/dev/null
sleep 0.5
MSG="child '$kid'" check "--keep: a recorder killed with -9 leaves its command running" \
	sh -c '[ -n "$1" ] && ! { [ ! -e "/proc/$1" ] || grep -q "^State:.*Z" "/proc/$1/status"; }' \
	_ "$kid"
[ -n "$kid" ] && kill "$kid" 2>/dev/null
"$ARENAPROF" report "$TMP/k9.trace" --plan "$MV2" --json >"$TMP/k9.json" 2>/dev/null
r=$(python3 -c "import json; d=json.load(open('$TMP/k9.json')); print(d['complete'], d['arena']['first_touch_pages'], d['runs'] > 0)" 2>/dev/null)
MSG="got '$r'" check "kill -9 of the recorder: the trace reads back (no end record) with the arena's 405 pages" \
	test "$r" = "False 405 True"

# drops: a one-page ring buffer whose reader is stopped (SIGSTOP) during a fault storm
# must drop, deterministically, and the report must say how many
mkfifo "$TMP/storm-go"
"$ARENAPROF" record -o "$TMP/drops.trace" --ring-size 4096 -- sh -c \
	': >"$2"; read x < "$0"; exec "$1" -n 16384' "$TMP/storm-go" "$BUILD/fixtures/touch" \
	"$TMP/storm-ready" </dev/null >/dev/null 2>"$TMP/drops.err" &
rec=$!
# the command runs (the recorder has attached and released it) once it made this file
for _ in $(seq 200); do [ -e "$TMP/storm-ready" ] && break; sleep 0.05; done
kill -STOP "$rec"
timeout 10 sh -c 'echo go >"$1"' _ "$TMP/storm-go"
sleep 2
kill -CONT "$rec"
wait "$rec" 2>/dev/null
d=$("$ARENAPROF" report "$TMP/drops.trace" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["dropped_events"])')
MSG="dropped $d" check "a one-page ring buffer with a stalled reader drops events, and the report says how many" test "${d:-0}" -gt 0
check "the recorder warns about drops with the fix" grep -q 'larger --ring-size' "$TMP/drops.err"

# Allocating calls are named from the file that was mapped; once the file at that path is
# another one (a rebuild: a new inode), by file and offset, never by the new file's symbols
cp "$BUILD/mininfer" "$TMP/mi"
"$ARENAPROF" record -o "$TMP/mi.trace" -- "$TMP/mi" "$MV2" --runs 2 >/dev/null 2>&1
"$ARENAPROF" report "$TMP/mi.trace" >"$TMP/mi.before" 2>&1
cp "$TMP/mi" "$TMP/mi.new" && mv "$TMP/mi.new" "$TMP/mi"
"$ARENAPROF" report "$TMP/mi.trace" >"$TMP/mi.after" 2>&1
MSG="$(grep 'largest allocating call' "$TMP/mi.before" "$TMP/mi.after")"
check "report names an allocating call by symbol while the recorded file is there" \
	grep -q 'largest allocating call outside the arena: [a-z_]* (mi)$' "$TMP/mi.before"
check "... and by file and offset once that path holds another file (a new inode)" \
	grep -q 'largest allocating call outside the arena: mi+0x[0-9a-f]*$' "$TMP/mi.after"
