#!/usr/bin/env bash
# record --runs N (issue 27, item 3), on real processes (root, BPF): recording stops at N,
# the trace is complete, and the command started with -- runs on to its own end with its
# output whole and its status told apart from record's; --kill-at-runs ends it there;
# fewer runs than asked and no run at all have exit codes of their own (5, 6); -p stops
# recording and leaves the process; report reads every one of those traces.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

AP=$ARENAPROF
MI=$BUILD/mininfer
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
MV1=$MODELS/mobilenet_v1_0.25_128_quant.tflite
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
if [ "$(id -u)" != 0 ]; then
	fail "record --runs tests need root" "run make check as root (BPF)"
	exit 1
fi
markers=(--run-probe "$MI:mininfer_invoke" --op-probe "$MI:mininfer_op:0")

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# reads NAME TRACE RUNS REASON [BEGUN]: report (text and JSON) reads the trace, complete,
# with RUNS runs completed, BEGUN begun (default RUNS; - any) and the end REASON
reads() {
	local r b=${5:-$3}
	"$AP" report "$2" >"$2.txt" 2>"$2.rerr" &&
		"$AP" report "$2" --json >"$2.json" 2>>"$2.rerr"
	r=$?
	MSG="report exit $r: $(head -c 300 "$2.rerr")"
	check "$1: report reads the trace" [ "$r" = 0 ]
	r=$(j "$2.json" "d['complete'], d['runs'], d['end']['reason']" 2>&1)
	MSG="complete, runs, end: $r"
	check "$1: the trace is complete, with $3 runs, ended by '$4'" \
		[ "$r" = "True $3 $4" ]
	[ "$b" = - ] && return
	r=$(j "$2.json" "d['runs_begun']" 2>&1)
	MSG="begun: $r" check "$1: ... and $b runs begun" [ "$r" = "$b" ]
}

# --runs 5 of a command that runs 300: recording stops at 5, the command finishes its 300
# and prints its last lines (a record that did not wait would take it down with it:
# PR_SET_PDEATHSIG), record exits 0
t=$TMP/wait
timeout 120 "$AP" record -o "$t.trace" --json "${markers[@]}" --runs 5 -- \
	"$MI" "$MV2" --runs 300 >"$t.out" 2>"$t.err"
rc=$?
MSG="exit $rc: $(tail -3 "$t.err")"
check "--runs 5 of a 300-run command: record exits 0" [ "$rc" = 0 ]
MSG="the command printed: $(grep -v '^{' "$t.out" | tr '\n' '|')"
check "... the command ran its 300 runs and printed its last lines" \
	sh -c 'grep -q "^done runs 300$" "$1" && grep -q "^timing total_ns" "$1"' _ "$t.out"
MSG="$(grep -i 'waiting\|exited' "$t.err" | tr '\n' '|')"
check "... record said it waited for it, and its status" \
	sh -c 'grep -q "runs on untraced to its own end: waiting for it" "$1" &&
		grep -q "the command, pid [0-9]* exited (status 0)" "$1"' _ "$t.err"
reads "--runs 5 of a 300-run command" "$t.trace" 5 "the requested runs completed"
MSG="$(tail -1 "$t.out" | head -c 400)"
check "... --json: runs 5 of runs_asked 5, the trace's end without a status, the command's 0" \
	python3 -c 'import json, sys
d = json.loads(sys.argv[1])
sys.exit(not (d["runs"] == d["runs_asked"] == 5 and d["exit_code"] == 0 and
	      d["end"]["exit_status"] is None and d["command"]["exit_status"] == 0 and
	      not d["command"]["ended_by_record"] and not d["command"]["left_running"]))' \
	"$(tail -1 "$t.out")"

# --kill-at-runs: the old behaviour, the command ended at N runs, which is no failure
t=$TMP/kill
timeout 120 "$AP" record -o "$t.trace" --json "${markers[@]}" --runs 5 --kill-at-runs -- \
	"$MI" "$MV2" --runs 100000000 >"$t.out" 2>"$t.err"
rc=$?
MSG="exit $rc: $(tail -2 "$t.err")"
check "--runs 5 --kill-at-runs of a 100000000-run command: record exits 0" [ "$rc" = 0 ]
MSG="$(grep 'ended by record' "$t.err")"
check "... record ended it with SIGTERM and says so" \
	grep -q "the command, pid [0-9]*, was ended by record at --runs (--kill-at-runs): killed by signal 15" \
	"$t.err"
MSG="the command printed: $(grep -v '^{' "$t.out" | tr '\n' '|')"
check "... before its own end" sh -c '! grep -q "^done runs" "$1"' _ "$t.out"
MSG="$(tail -1 "$t.out" | head -c 400)"
check "... --json: command.signal 15, ended_by_record" python3 -c 'import json, sys
c = json.loads(sys.argv[1])["command"]
sys.exit(not (c["signal"] == 15 and c["ended_by_record"] and c["exit_status"] is None))' \
	"$(tail -1 "$t.out")"
reads "--kill-at-runs" "$t.trace" 5 "the requested runs completed"

# no run probe at all: `--runs 5 -- sleep 1` is not a success
t=$TMP/sleep
timeout 60 "$AP" record -o "$t.trace" --runs 5 -- sleep 1 >/dev/null 2>"$t.err"
rc=$?
MSG="exit $rc: $(grep error "$t.err")"
check "--runs 5 -- sleep 1: exit 6, one error line naming the cause and --run-probe" \
	sh -c '[ "$1" = 6 ] && [ "$(grep -c "error:" "$2")" = 1 ] &&
		grep -q "error: --runs 5, but no run was seen: no run probe was attached .*pass --run-probe BINARY:SYMBOL" "$2"' \
	_ "$rc" "$t.err"
reads "--runs 5 -- sleep 1" "$t.trace" 0 "the target exited"

# a run probe that never fires: mininfer --help makes no inference
t=$TMP/never
timeout 60 "$AP" record -o "$t.trace" --run-probe "$MI:mininfer_invoke" --runs 5 -- \
	"$MI" --help >/dev/null 2>"$t.err"
rc=$?
MSG="exit $rc: $(grep error "$t.err")"
check "a --run-probe that never fired: exit 6, the probe named" \
	sh -c '[ "$1" = 6 ] && grep -q "error: --runs 5, but no run was seen: the run probe .*mininfer:mininfer_invoke never fired before the command exited (status 0); pass --run-probe" "$2"' \
	_ "$rc" "$t.err"
reads "a run probe that never fired" "$t.trace" 0 "the target exited"

# fewer runs than asked: the command exits first; its output is whole
t=$TMP/fewer
timeout 60 "$AP" record -o "$t.trace" "${markers[@]}" --runs 50 -- "$MI" "$MV2" --runs 3 \
	>"$t.out" 2>"$t.err"
rc=$?
MSG="exit $rc: $(grep error "$t.err")"
check "--runs 50 of a 3-run command: exit 5, one line with the count and why" \
	sh -c '[ "$1" = 5 ] && grep -q "error: 3 of the 50 runs asked for were recorded before the command exited (status 0); the trace holds those 3" "$2"' \
	_ "$rc" "$t.err"
MSG="$(cat "$t.out")" check "... the command's output is whole" grep -q "^done runs 3$" "$t.out"
reads "fewer runs (the command exited first)" "$t.trace" 3 "the target exited"

# fewer runs than asked: --duration ends first (and ends the command, as --duration does)
t=$TMP/duration
timeout 60 "$AP" record -o "$t.trace" "${markers[@]}" --runs 100000000 --duration 1 -- \
	"$MI" "$MV2" --runs 100000000 >/dev/null 2>"$t.err"
rc=$?
MSG="exit $rc: $(grep error "$t.err")"
check "--runs 100000000 --duration 1: exit 5, --duration named" \
	sh -c '[ "$1" = 5 ] && grep -q "error: [0-9]* of the 100000000 runs asked for were recorded before --duration ended" "$2"' \
	_ "$rc" "$t.err"
n=$(sed -n 's/.*error: \([0-9]*\) of the .*/\1/p' "$t.err")
MSG="the error line's count '$n'" check "... some runs were recorded" [ "${n:-0}" -gt 0 ]
reads "fewer runs (--duration first)" "$t.trace" "${n:-0}" "the duration elapsed" -

# a signal to record while it waits is passed on to the command: its end, by that signal,
# is a failure of the command (4), and the trace of the 5 runs is whole
t=$TMP/sig
"$AP" record -o "$t.trace" "${markers[@]}" --runs 5 -- "$MI" "$MV2" --runs 100000000 \
	>"$t.out" 2>"$t.err" &
rec=$!
for _ in $(seq 300); do grep -q 'waiting for it' "$t.err" && break; sleep 0.1; done
kid=$(pgrep -P "$rec" -x mininfer)
kill -TERM "$rec"
timeout 30 tail --pid="$rec" -f /dev/null
gone=$?
wait "$rec"
rc=$?
MSG="exit $rc (tail $gone): $(tail -2 "$t.err")"
check "SIGTERM to record while it waits: passed on, the command killed by it, record exits 4" \
	sh -c '[ "$1" = 4 ] && grep -q "the command, pid $2 exited (killed by signal 15" "$3"' \
	_ "$rc" "$kid" "$t.err"
MSG="pid '$kid'" check "... and the command is gone" \
	sh -c '[ -n "$1" ] && ! kill -0 "$1" 2>/dev/null' _ "$kid"
reads "a signal while record waits" "$t.trace" 5 "the requested runs completed"

# -p: stop recording at N, the process runs on
"$MI" "$MV2" --runs 100000000 >"$TMP/bg.out" 2>&1 &
bg=$!
for _ in $(seq 100); do grep -q arena "$TMP/bg.out" 2>/dev/null && break; sleep 0.05; done
t=$TMP/attach
timeout 60 "$AP" record -p "$bg" -o "$t.trace" "${markers[@]}" --runs 5 >/dev/null 2>"$t.err"
rc=$?
alive=$(kill -0 "$bg" 2>/dev/null && echo yes || echo no)
kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null
MSG="exit $rc, still running: $alive; $(tail -2 "$t.err")"
check "-p --runs 5: record exits 0 and the process runs on" [ "$rc:$alive" = "0:yes" ]
reads "-p --runs 5" "$t.trace" 5 "the requested runs completed"

# report's n/a (issue 27, item 6): the arena was resident before -p attached, so there is
# no first touch to compare the markers with; and without op markers there is no marker
# count. Neither is "0 of 0" nor "marker 0".
"$AP" report "$TMP/attach.trace" --plan "$MV2" >"$TMP/attach.plan.txt" 2>&1
MSG="$(grep '^agreement' "$TMP/attach.plan.txt")"
check "report of a -p trace, arena resident at attach: agreement n/a, not 0 of 0" \
	grep -q "^agreement  plan and op-marker attribution: n/a (no first-touch arena page to compare)$" \
	"$TMP/attach.plan.txt"
MSG="$(grep -n ' 0 of 0\|marker 0' "$TMP/attach.plan.txt")"
check "report of a -p trace, arena resident at attach: no '0 of 0' or 'marker 0' anywhere" \
	sh -c '! grep -q " 0 of 0\|marker 0" "$1"' _ "$TMP/attach.plan.txt"
t=$TMP/no-op
"$AP" record -o "$t.trace" --run-probe "$MI:mininfer_invoke" --runs 3 -- "$MI" "$MV2" \
	--runs 3 >/dev/null 2>"$t.err"
"$AP" report "$t.trace" --plan "$MV2" >"$t.txt" 2>&1
MSG="$(grep '^widest\|^agreement' "$t.txt")"
check "report without op markers: the widest operator's marker pages n/a, not 0" \
	sh -c 'grep -q "^widest .*first-touch pages: plan [0-9]*, marker n/a$" "$1" &&
		grep -q "^agreement  no op markers .* [0-9]* of [0-9]* first touches in plan order$" "$1"' \
	_ "$t.txt"

# -p and fewer runs: the process, held on stdin, makes its 3 runs once record is attached
mkfifo "$TMP/go"
exec 3<>"$TMP/go"
"$MI" "$MV2" --runs 3 --wait <"$TMP/go" >"$TMP/held.out" 2>&1 &
held=$!
for _ in $(seq 100); do grep -q arena "$TMP/held.out" 2>/dev/null && break; sleep 0.05; done
t=$TMP/attach-fewer
"$AP" record -p "$held" -o "$t.trace" "${markers[@]}" --runs 50 >/dev/null 2>"$t.err" &
rec=$!
for _ in $(seq 100); do grep -q 'tracing pid' "$t.err" && break; sleep 0.05; done
sleep 0.3
echo go >&3
timeout 30 tail --pid="$rec" -f /dev/null
wait "$rec"
rc=$?
wait "$held"
exec 3>&-
MSG="exit $rc: $(grep error "$t.err")"
check "-p --runs 50 of a process that makes 3: exit 5, the process named" \
	sh -c '[ "$1" = 5 ] && grep -q "error: 3 of the 50 runs asked for were recorded before the process exited" "$2"' \
	_ "$rc" "$t.err"
reads "-p, fewer runs" "$t.trace" 3 "the target exited"

# bad usage: --kill-at-runs is for --runs N of a command record started
expect_refusal "--kill-at-runs without --runs: exit 2" 2 "kill-at-runs needs --runs N" \
	"$AP" record -o "$TMP/x.trace" --kill-at-runs -- true
expect_refusal "--kill-at-runs with -p: exit 2" 2 "-p never ends a process" \
	"$AP" record -o "$TMP/x.trace" --runs 5 --kill-at-runs -p $$
expect_refusal "--kill-at-runs with --keep: exit 2" 2 "contradict" \
	"$AP" record -o "$TMP/x.trace" --runs 5 --kill-at-runs --keep -- true
check "... and no trace is left" test ! -e "$TMP/x.trace"

# LiteRT from Python: a script that prints its last line and exits 3 after 20 invokes keeps
# both under --runs 5; its status is the command's failure, 4, not record's 3
if ! "$venv/bin/python" -c 'import numpy, ai_edge_litert' 2>/dev/null; then
	fail "record --runs of a LiteRT script" "no LiteRT in $venv (run scripts/install-deps)"
	exit 0
fi
t=$TMP/py
cat >"$t.py" <<'PY'
import sys
from ai_edge_litert.interpreter import Interpreter
it = Interpreter(model_path=sys.argv[1])
it.allocate_tensors()
for _ in range(20):
    it.invoke()
print("last line: 20 invokes", flush=True)
sys.exit(3)
PY
timeout 120 "$AP" record -o "$t.trace" --json --runs 5 -- "$venv/bin/python" "$t.py" "$MV1" \
	>"$t.out" 2>"$t.err"
rc=$?
MSG="exit $rc: $(tail -3 "$t.err")"
check "LiteRT script that exits 3 after 20 invokes, --runs 5: record exits 4 (the command failed)" \
	[ "$rc" = 4 ]
MSG="the script printed: $(grep -v '^{' "$t.out")"
check "... its last line is printed" grep -q "^last line: 20 invokes$" "$t.out"
MSG="$(grep 'exited' "$t.err")"
check "... and record says its status 3" grep -q "the command, pid [0-9]* exited (status 3)" "$t.err"
MSG="$(tail -1 "$t.out" | head -c 300)"
check "... --json: command.exit_status 3, exit_code 4" python3 -c 'import json, sys
d = json.loads(sys.argv[1])
sys.exit(not (d["command"]["exit_status"] == 3 and d["exit_code"] == 4 and d["runs"] == 5))' \
	"$(tail -1 "$t.out")"
reads "LiteRT script, --runs 5" "$t.trace" 5 "the requested runs completed"

# A SIGINT while record waits reaches the command once: passed on when it was sent to
# record (kill), not when the terminal sent it, which the command's process group got
# too (^C through script(1)'s pty). The command counts the SIGINTs it gets.
cat >"$TMP/sig.py" <<'PY'
import signal, sys, time
from ai_edge_litert.interpreter import Interpreter
it = Interpreter(model_path=sys.argv[1])
it.allocate_tensors()
n = 0
def h(s, f):
    global n
    n += 1
signal.signal(signal.SIGINT, h)
for _ in range(10):
    it.invoke()
print("ready", flush=True)
# until the first SIGINT (record's detach takes seconds on a loaded machine), then long
# enough for a second, forwarded one to arrive too
t = time.time()
while n == 0 and time.time() - t < 60:
    time.sleep(0.05)
time.sleep(1.5)
print(f"signals {n}", flush=True)
PY
# sigint_case NAME HOW: HOW is tty (^C into the pty) or kill (kill -INT of record)
sigint_case() {
	local t=$TMP/sig-$2 sp rc rec
	mkfifo "$t.in"
	exec 4<>"$t.in"
	script -qec "exec $AP record -o $t.trace --runs 5 -- $venv/bin/python $TMP/sig.py $MV1 \
>$t.out 2>$t.err" /dev/null <"$t.in" >"$t.script" 2>&1 &
	sp=$!
	for _ in $(seq 600); do
		grep -q '^ready' "$t.out" 2>/dev/null && grep -q 'waiting for it' "$t.err" &&
			break
		sleep 0.1
	done
	if [ "$2" = tty ]; then
		printf '\003' >&4
	else
		rec=$(pgrep -P "$sp" -x arenaprof)	# script's child execs record
		kill -INT "$rec"
	fi
	timeout 30 tail --pid="$sp" -f /dev/null
	wait "$sp"
	rc=$?
	exec 4>&-
	MSG="exit $rc; the command printed: $(tr '\n' '|' <"$t.out"); $(tail -1 "$t.err")"
	check "$1: the command got one SIGINT, handled it and exited 0; record exits 0" \
		[ "$rc:$(sed -n 's/^signals //p' "$t.out")" = "0:1" ]
}
if command -v script >/dev/null; then
	sigint_case "^C on the terminal while record waits" tty
	sigint_case "kill -INT of record while it waits" kill
else
	fail "SIGINT while record waits" "script(1) is missing (bsdutils)"
fi
