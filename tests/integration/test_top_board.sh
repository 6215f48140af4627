#!/usr/bin/env bash
# top on a board (issue 28 item 4): without root, top -p shows what /proc gives of the
# user's own process (its VmRSS as /proc/PID/status says it) and says which panels need
# root, and refuses another user's process in one line.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

MI=$BUILD/mininfer
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
if [ "$(id -u)" != 0 ]; then
	skip "top board" "needs root (to run a target as another user, and for BPF)"
	exit 0
fi
targets=()
cleanup() {
	[ "$BASHPID" = "$TEST_SHELL" ] || return
	for p in "${targets[@]}"; do kill "$p" 2>/dev/null; done
	command -v tmux >/dev/null && tmux -L "ap-board-$$" kill-server 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
chmod 755 "$TMP"
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
# key K FILE: the value of K= in the last batch line of FILE
key() { tail -1 "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# ---- no root: /proc figures of one's own process ----
U=nobody
if ! id "$U" >/dev/null 2>&1; then
	useradd -M -s /usr/sbin/nologin aptop-test && U=aptop-test
fi
AS=(setpriv --reuid "$(id -u "$U")" --regid "$(id -g "$U")" --clear-groups)
cp "$ARENAPROF" "$MI" "$MV2" "$TMP/" && chmod 755 "$TMP/arenaprof" "$TMP/mininfer" &&
	chmod 644 "$TMP/$(basename "$MV2")"
"${AS[@]}" "$TMP/mininfer" "$TMP/$(basename "$MV2")" --runs 100000000 >"$TMP/u.out" 2>&1 &
UP=$!
targets+=("$UP")
for _ in $(seq 100); do grep -q '^arena ' "$TMP/u.out" && break; sleep 0.05; done
before=$(status_kb "$UP" VmRSS)
(cd / && "${AS[@]}" "$TMP/arenaprof" top -p "$UP" --batch -n 2 --interval 200) \
	>"$TMP/u.batch" 2>"$TMP/u.err"
rc=$?
after=$(status_kb "$UP" VmRSS)
rss=$(key rss "$TMP/u.batch")
lo=$(( (before < after ? before : after) * 1024 - 262144 ))
hi=$(( (before > after ? before : after) * 1024 + 262144 ))
MSG="exit $rc, rss=$rss, VmRSS ${before} kB then ${after} kB; $(cat "$TMP/u.err")" \
	check "no root: --batch runs (exit 0) and its rss is /proc/PID/status's VmRSS" \
	test "$rc" = 0 -a -n "$rss" -a "${rss:-0}" -ge "$lo" -a "${rss:-0}" -le "$hi"
MSG="$(head -3 "$TMP/u.batch")" check "no root: the batch says which panels need root" \
	sh -c 'grep -q "^# no root: .*faults, runs and latency, allocs need root" "$1" &&
		[ "$(tail -1 "$1" | tr " " "\n" | grep -c "^needs_root=faults,runs,allocs$")" = 1 ]' \
	_ "$TMP/u.batch"
MSG="$(tail -1 "$TMP/u.batch")" check "no root: faults, runs and allocs are '-', not 0" \
	test "$(key faults_per_s "$TMP/u.batch")$(key runs "$TMP/u.batch")$(key alloc_held \
	"$TMP/u.batch")" = "---"
pss=$(key pss_anon "$TMP/u.batch")
MSG="pss_anon=$pss" check "no root: smaps_rollup is read (the process is the user's own)" \
	test -n "$pss" -a "$pss" != "-"
(cd / && "${AS[@]}" "$TMP/arenaprof" top -p "$UP" --json -n 1 --interval 200) \
	>"$TMP/u.json" 2>/dev/null
MSG="$(cat "$TMP/u.json")" check "no root: --json says needs_root and nulls the faults" \
	python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert d["needs_root"] == "faults,runs,allocs" and d["runs"] is None and d["rss"] > 0' \
	"$TMP/u.json"

# the live view says it too
if command -v tmux >/dev/null; then
	tmux -L "ap-board-$$" new-session -d -x 80 -y 24 \
		"cd / && TERM=xterm ${AS[*]} $TMP/arenaprof top -p $UP --interval 200"
	for _ in $(seq 50); do
		SCR=$(tmux -L "ap-board-$$" capture-pane -p)
		grep -q 'needs root' <<<"$SCR" && break
		sleep 0.2
	done
	MSG="$SCR" check "no root: the screen's Faults and Allocs say they need root" \
		bash -c 'grep -Eq "^Faults +needs root" <<<"$1" && grep -Eq "^Allocs +needs root" \
			<<<"$1" && grep -q "no root: /proc only" <<<"$1"' _ "$SCR"
	tmux -L "ap-board-$$" kill-server 2>/dev/null
else
	fail "no root: the screen" "tmux is not installed (scripts/install-deps installs it)"
fi

# another user's process (root's): one line, non-zero
"$MI" "$MV2" --runs 100000000 >"$TMP/r.out" 2>&1 &
RP=$!
targets+=("$RP")
expect_refusal "no root: another user's process is refused in one line, exit 1" 1 \
	"no permission: process $RP belongs to uid 0" "${AS[@]}" "$TMP/arenaprof" top -p "$RP" \
	--batch -n 1

# ---- top TRACE: a recorded trace in the same rows, at its samples ----
"$ARENAPROF" record -o "$TMP/r.trace" --interval 20 --run-probe "$MI:mininfer_invoke" -- \
	"$MI" "$MV2" --runs 200 >/dev/null 2>"$TMP/rec.err"
"$ARENAPROF" report "$TMP/r.trace" --json >"$TMP/r.json" 2>/dev/null
"$ARENAPROF" top "$TMP/r.trace" --batch >"$TMP/r.batch" 2>"$TMP/r.err"
rc=$?
"$ARENAPROF" top --json "$TMP/r.trace" >"$TMP/r.jsonl" 2>/dev/null
MSG="exit $rc: $(cat "$TMP/r.err"; tail -2 "$TMP/r.batch" | cut -c1-300)" \
	check "top TRACE --batch: a line at each sample and one at the end, as report counts them" \
	python3 - "$TMP/r.batch" "$TMP/r.json" "$TMP/r.jsonl" <<'PY'
import json, sys
rows = [dict(kv.split("=", 1) for kv in l.split()[1:])
	for l in open(sys.argv[1]) if not l.startswith("#")]
tail = open(sys.argv[1]).read().splitlines()[-1]
rep = json.load(open(sys.argv[2]))
js = [json.loads(l) for l in open(sys.argv[3])]
s, last = rep["samples"], rows[-1]
assert rep["runs"] >= 200 and s["count"] >= 2, (rep["runs"], s)
assert len(rows) == s["count"] + 1, (len(rows), s["count"])
assert int(last["runs"]) == rep["runs"], (last["runs"], rep["runs"])
# VmHWM is not monotonic in a trace (an exiting process's is lower): its maximum, as report
assert max(int(r["hwm"]) for r in rows) == s["vmhwm_max_bytes"], ("hwm", s)
assert max(int(r["rss"]) for r in rows) == s["vmrss_max_bytes"], ("rss", s)
assert max(int(r["pss_anon"]) for r in rows if r["pss_anon"] != "-") == \
	s["pss_anon_max_bytes"], ("pss_anon", s)
assert int(last["arena_bytes"]) == rep["arena"]["bytes"], (last, rep["arena"])
assert int(last["arena_first_touch_pages"]) == rep["arena"]["first_touch_pages"], \
	(last, rep["arena"])
assert int(last["run_p50_ns"]) == rep["run_times"]["median_ns"], (last, rep["run_times"])
assert int(last["run_p99_ns"]) == rep["run_times"]["p99_ns"], (last, rep["run_times"])
assert tail == "# end of the trace: the target exited", tail
assert [j["runs"] for j in js] == [int(r["runs"]) for r in rows], "json and text differ"
assert js[-1]["pid"] == rep["pid"]
PY
expect_refusal "top TRACE: a file that is not a trace is one line, exit 2" 2 "$TMP/rec.err" \
	"$ARENAPROF" top "$TMP/rec.err" --batch
expect_refusal "top TRACE -o: refused, a replay writes no trace" 2 "a replay writes no trace" \
	"$ARENAPROF" top "$TMP/r.trace" -o "$TMP/x.trace"
if command -v tmux >/dev/null; then
	S="ap-board-r-$$"
	tmux -L "$S" new-session -d -x 80 -y 24 "TERM=xterm $ARENAPROF top $TMP/r.trace"
	sleep 0.5	# it opens paused on the first sample
	SCR=$(tmux -L "$S" capture-pane -p)
	MSG="$SCR" check "top TRACE: the same screens, paused at the first sample, the replay's keys" \
		bash -c 'grep -q "PAUSED" <<<"$1" && grep -Eq "^Memory +VmRSS" <<<"$1" &&
			grep -q "space plays, n steps" <<<"$1"' _ "$SCR"
	for _ in $(seq 12); do tmux -L "$S" send-keys n; sleep 0.1; done
	for _ in $(seq 30); do
		SCR=$(tmux -L "$S" capture-pane -p)
		grep -q 'end of the trace' <<<"$SCR" && break
		sleep 0.2
	done
	MSG="$SCR" check "top TRACE: n steps to the trace's end, and the target's exit" \
		bash -c 'grep -q "end of the trace (the target exited)" <<<"$1" &&
			grep -Eq "EXITED \(status 0\)" <<<"$1"' _ "$SCR"
	tmux -L "$S" kill-server 2>/dev/null
fi

# ---- Allocs: a steady-state leak after run 1 is seen, not hidden by the probe's rule ----
LK=$BUILD/fixtures/leaker
mkfifo "$TMP/lk.in"
"$LK" 8 12 100 <"$TMP/lk.in" >"$TMP/lk.out" 2>&1 &
LP=$!
targets+=("$LP")
exec 7>"$TMP/lk.in"
for _ in $(seq 100); do grep -q '^pid ' "$TMP/lk.out" && break; sleep 0.02; done
"$ARENAPROF" top -p "$LP" --run-probe "$LK:leaker_run" --batch --interval 200 -n 14 \
	>"$TMP/lk.batch" 2>"$TMP/lk.err"
leaked=$(sed -n 's/^leaked //p' "$TMP/lk.out")
held=$(key alloc_held "$TMP/lk.batch")
unseen=$(key alloc_unwatched_anon_growth "$TMP/lk.batch")
exec 7>&-
# ground truth: the fixture's own count (11 runs of 8 MiB); the panel's two figures
# together within one run's block of it
MSG="leaked $leaked, held $held, unwatched growth $unseen; $(tail -1 "$TMP/lk.err")" \
	check "Allocs: an 88 MiB leak after run 0 is held + unwatched growth (within 8 MiB)" \
	python3 -c 'import sys
leaked, held, unseen = (int(x) for x in sys.argv[1:])
assert leaked == 11 * 8 << 20 and abs(held + unseen - leaked) <= 8 << 20' \
	"${leaked:-0}" "${held:-0}" "${unseen:-x}"

# ---- top --budget: the verdict report --budget gives, on the same trace ----
for b in 4M 64M; do
	"$ARENAPROF" top "$TMP/r.trace" --batch --budget "$b" >"$TMP/b.batch" 2>/dev/null
	trc=$?
	"$ARENAPROF" report "$TMP/r.trace" --budget "$b" --json >"$TMP/b.json" 2>/dev/null
	rrc=$?
	MSG="top exit $trc, report exit $rrc; $(tail -2 "$TMP/b.batch" | head -1 |
		tr ' ' '\n' | grep budget | tr '\n' ' ')" \
		check "top --budget $b: fits, peak, non-reclaimable part and exit as report --budget" \
		python3 - "$TMP/b.batch" "$TMP/b.json" "$trc" "$rrc" <<'PY'
import json, sys
last = [l for l in open(sys.argv[1]) if not l.startswith("#")][-1]
k = dict(kv.split("=", 1) for kv in last.split()[1:])
b = json.load(open(sys.argv[2]))["budget"]
assert k["budget_fits"] == ("yes" if b["fits"] else "no"), (k["budget_fits"], b)
assert int(k["budget_peak"]) == b["peak_bytes"], (k["budget_peak"], b)
assert int(k["budget_nonreclaimable"]) == b["nonreclaimable_bytes"], b
assert k["budget_decided_by"] == b["decided_by"], b
assert sys.argv[3] == sys.argv[4], ("exit", sys.argv[3], sys.argv[4])
PY
done
expect_refusal "top --budget: a bad size is one line, exit 2" 2 "bad value 'lots' for --budget" \
	"$ARENAPROF" top "$TMP/r.trace" --batch --budget lots

# ---- the screen: one unit family, the budget line, a long message whole ----
if command -v tmux >/dev/null; then
	S="ap-board-u-$$"
	tmux -L "$S" new-session -d -x 80 -y 24 \
		"TERM=xterm $ARENAPROF top $TMP/r.trace --budget 4M --plan $MV2"
	sleep 0.3
	# the first sample is before run 0: no verdict yet; the trace's end has them all
	SCR=$(tmux -L "$S" capture-pane -p)
	MSG="$SCR" check "top --budget: no verdict before the first run" \
		bash -c 'grep -Eq "^Budget +4.00MiB no verdict: no run yet" <<<"$1"' _ "$SCR"
	for _ in $(seq 12); do tmux -L "$S" send-keys n; sleep 0.05; done
	sleep 0.5
	SCR=$(tmux -L "$S" capture-pane -p)
	MSG="$SCR" check "top --budget: the screen's first panel says it does not fit" \
		bash -c 'grep -Eq "^Budget +4.00MiB DOES NOT FIT +peak [0-9.]+MiB +non-reclaimable" \
			<<<"$1"' _ "$SCR"
	# every size: KiB, MiB or GiB (or B), never a bare "M" nor a count of bytes
	MSG="$(grep -Eo '[0-9.]+ ?[KMG]?(iB|B)?\b' <<<"$SCR" | sort -u | tr '\n' ' ')" \
		check "top: every size on the screen in binary units (B, KiB, MiB, GiB)" \
		bash -c '! grep -Eq "[0-9]([KMG]|[0-9] B)( |/|$)" <<<"$1" &&
			! grep -Eq "[0-9] (MB|kB|GB)\b" <<<"$1"' _ "$SCR"
	tmux -L "$S" kill-server 2>/dev/null
	# a message longer than the row wraps over the last rows, whole (r's on cgroup v1)
	tmux -L "$S" new-session -d -x 44 -y 24 "TERM=xterm $ARENAPROF top $TMP/r.trace"
	sleep 0.5
	tmux -L "$S" send-keys r
	sleep 0.5
	SCR=$(tmux -L "$S" capture-pane -p)
	MSG="$SCR" check "top: a footer message longer than the row is shown whole" \
		bash -c 'tail -2 <<<"$1" | tr "\n" " " | grep -q "a replay: the recorded peaks stay as they were"' \
		_ "$SCR"
	tmux -L "$S" kill-server 2>/dev/null
fi
