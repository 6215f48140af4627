#!/usr/bin/env bash
# The live TUI (arenaprof -p PID, arenaprof top) driven under tmux, attached to running
# mininfer processes (root, BPF): the panels show the right numbers (VmHWM as
# /proc/PID/status says, the arena of the plan's size filling to its page count, first
# touches per operator as the fixture's ground truth), r resets VmHWM, w writes a trace
# that report reads, 80x24 and 200x50 lay out with nothing cut or overlapping, q, Ctrl-C
# and SIGTERM restore the terminal; a target that exits while displayed; --batch lines;
# bad PIDs and no permission; the TUI's own CPU cost with an idle target. At 80x24 the
# run latency's p50 and p99 stay and the memory history shows its scale and time window.
# XNNPACK's halves live on a LiteRT process of the default path (scripts/litert-run),
# equal to what report says of a record of the same model.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

MI=$BUILD/mininfer
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
if [ "$(id -u)" != 0 ]; then
	skip "tui" "needs root for BPF"
	exit 0
fi
if ! command -v tmux >/dev/null; then
	skip "tui" "tmux is not installed (scripts/install-deps installs it)"
	exit 0
fi

SOCK=arenaprof-test-$$
T() { tmux -L "$SOCK" "$@"; }
targets=()
# only the test's own shell: a background job killed before it execs runs EXIT traps too
cleanup() {
	[ "$BASHPID" = "$TEST_SHELL" ] || return
	T kill-server 2>/dev/null
	for p in "${targets[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
chmod 755 "$TMP"
LOC=C.UTF-8
locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$' || LOC=C

read -r PLAN_BYTES PAGES WIDEST OPNAMES < <("$ARENAPROF" plan --delegate none "$MV2" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
ops = d["ops"]
w = max(range(len(ops)), key=lambda i: (ops[i]["breadth_bytes"], -i))
print(d["arena_bytes"], (d["arena_bytes"] + 4095) // 4096, w,
      ",".join(sorted({o["opcode"] for o in ops})))')
"$MI" --truth "$MV2" >"$TMP/truth.json"

# start_target NAME FD: a mininfer that maps its arena and waits for a line on fd FD;
# sets $tpid. (Its argument order differs from test_record's, whose cleanup matches
# "mininfer MODEL --runs 100000000".)
start_target() {
	mkfifo "$TMP/$1.in"
	"$MI" "$MV2" --wait --runs 100000000 <"$TMP/$1.in" >"$TMP/$1.out" 2>&1 &
	tpid=$!
	targets+=("$tpid")
	eval "exec $2>\"$TMP/$1.in\""
	for _ in $(seq 100); do grep -q '^arena ' "$TMP/$1.out" && break; sleep 0.05; done
}

# screen WINDOW: the pane as text
screen() { T capture-pane -p -t "$1"; }
# wait_screen WINDOW REGEX [SECONDS]: until the pane matches (grep -E); the pane in $SCR
wait_screen() {
	local end=$((SECONDS + ${3:-10}))
	while :; do
		SCR=$(screen "$1")
		grep -Eq -- "$2" <<<"$SCR" && return 0
		[ $SECONDS -ge $end ] && return 1
		sleep 0.2
	done
}
# field REGEX-WITH-ONE-GROUP: the first match in $SCR
field() { sed -nE "s/.*$1.*/\\1/p" <<<"$SCR" | head -1; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# layout_check LABEL W H: every panel once and in order, nothing in the last column,
# every item whole, operator rows whole (known opcodes), no overlap between columns
layout_check() {
	local out
	printf '%s\n' "$SCR" >"$TMP/screen.txt"
	out=$(python3 - "$1" "$2" "$3" "$OPNAMES" "$TMP/cmdline" "$TMP/screen.txt" <<'PY'
import re, sys
label, W, H, opnames, cmdfile = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
	set(sys.argv[4].split(",")), sys.argv[5]
rows = open(sys.argv[6]).read().rstrip("\n").split("\n")
cmd = open(cmdfile).read().split()
bad = []
# a footer message is whole: a long one wraps upwards over the last panel rows, which
# are then the message's (its first row stands for the footer)
msg = next((i for i in range(max(0, H - 7), min(len(rows), H)) if
	    re.match(r"^(peaks reset: |snapshot written: )", rows[i])), None)
covered = 0
if msg is not None and msg < H - 1:
	covered = H - 1 - msg
	rows = rows[:msg] + [""] * covered + [rows[msg]] + rows[H:]
if len(rows) > H + 1 or any(len(r) > W for r in rows):
	bad.append("wider or taller than the window")
for i, r in enumerate(rows):
	if len(r) >= W and r[W - 1] != " ":
		bad.append(f"row {i} reaches the last column")
wide = W >= 150
right = (W - 1) // 2 + 1 if wide else 0
panels = ["Memory", "Arena", "cgroup", "Pressure", "Faults"] + ([] if wide else ["Operators"])
# Allocs comes after Faults when there is a row for it
if any(r.startswith("Allocs ") for r in rows):
	panels.insert(5, "Allocs")
elif H >= 40:
	bad.append("no Allocs panel on a tall terminal")
at = []
for p in panels:
	hits = [i for i, r in enumerate(rows) if r.startswith(p + " ")]
	if len(hits) != 1:
		bad.append(f"panel {p} at rows {hits}")
	else:
		at.append(hits[0])
if at != sorted(at):
	bad.append(f"panels out of order: {at}")
if wide:
	hits = [i for i, r in enumerate(rows) if r[right:].startswith("Operators ")]
	if hits != [2]:
		bad.append(f"wide: Operators at rows {hits}")
	for i, r in enumerate(rows[2:-1], 2):
		if r[right - 2:right].strip():
			bad.append(f"wide: row {i} crosses between the columns")
left = [r[:right - 2] if wide else r for r in rows]
text = "\n".join(left)
for pat in [r"VmRSS \d+ KiB", r"VmHWM \d+ KiB", r"anon \d+ KiB cannot be reclaimed",
	    r"file \d+ KiB reclaimable", r"Pss_Anon \d+ KiB", r"Pss_File \d+ KiB",
	    r"Pss_Shmem \d+ KiB", r"Swap \d+ KiB", r"size \d+ KiB", r"plan \d+ KiB",
	    r"resident \d+/\d+ pages \d+%", r"first touch [\d.]+/s", r"runs +[\d.]+/s"]:
	if not re.search(pat, text):
		bad.append(f"item '{pat}' missing or cut")
h = rows[0].split()
if h[:3] != ["arenaprof", "pid", h[2]] or "up" not in h:
	bad.append(f"header row 0: {rows[0]!r}")
else:
	words = h[3:h.index("up")]
	if any(w != "..." and w not in cmd for w in words) or (words and words[0] not in cmd):
		bad.append(f"command line cut mid-word: {words}")
oprow = re.compile(r"^ *(\d+)\*? +([A-Z0-9_]+) +(\d+) KiB +(\d+) pg +(\d+) KiB( +[^ ]+)?$")
n = 0
for r in rows[2:-1]:
	part = r[right:] if wide else r
	if part.startswith("Operators"):
		continue
	part = part[10:] if len(part) > 10 else ""
	m = oprow.match(part.rstrip())
	if re.match(r"^ *\d+\*? +[A-Z]", part):
		if not m or m.group(2) not in opnames:
			bad.append(f"operator row cut: {part.strip()!r}")
		n += 1
if n < (30 if wide else 5) - covered:
	bad.append(f"only {n} operator rows")
foot = rows[H - 1] if len(rows) >= H else ""
if not re.search(r"q quit +space pause +r reset peaks", foot) and \
   not re.match(r"^(peaks reset: VmHWM restarts from VmRSS(;( \S+)+)?|snapshot written: \S+ in( \S+)?)$", foot.rstrip()):
	bad.append(f"footer: {foot!r}")
print("; ".join(bad))
PY
)
	MSG="$out" check "$1: panels whole, in order, nothing cut or overlapping" test -z "$out"
}

# ---- the main session: attach, r, go, numbers, w, resize, help, pause, sort, q ----
start_target a 7
A=$tpid
tr '\0' ' ' <"/proc/$A/cmdline" >"$TMP/cmdline"
T new-session -d -s main -x 80 -y 24 "stty -g >$TMP/stty.before; \
LANG=$LOC $ARENAPROF -p $A --plan $MV2 --run-probe $MI:mininfer_invoke --interval 250 \
--snapshot-dir $TMP; echo \$? >$TMP/exit.main; stty -g >$TMP/stty.after; sleep 600"
if ! wait_screen main 'VmHWM [0-9]+ KiB' 15; then
	fail "the TUI starts and shows memory" "$(screen main | head -5)"
	exit 0
fi
pass "the TUI starts on an 80x24 terminal and shows memory"
sleep 0.6
wait_screen main 'VmHWM [0-9]+ KiB'
hwm=$(field 'VmHWM ([0-9]+) KiB'); rss=$(field 'VmRSS ([0-9]+) KiB')
st=$(status_kb "$A" VmHWM)
MSG="screen $hwm KiB, /proc/$A/status $st kB" \
	check "VmHWM on screen is /proc/PID/status's, within a page" \
	test $((hwm - st)) -le 4 -a $((st - hwm)) -le 4
wait_screen main 'resident [0-9]+/' && wait_screen main 'Pss_Anon'
layout_check "80x24 at attach" 80 24

# r: VmHWM restarts from VmRSS (clear_refs 5)
before_r=$hwm
T send-keys -t main r
ok=false
for _ in $(seq 20); do
	sleep 0.25
	SCR=$(screen main)
	h=$(field 'VmHWM ([0-9]+) KiB'); r=$(field 'VmRSS ([0-9]+) KiB')
	[ -n "$h" ] && [ "$h" -le $((r + 16)) ] && [ "$h" -lt "$before_r" ] && ok=true && break
done
st=$(status_kb "$A" VmHWM); sr=$(status_kb "$A" VmRSS)
MSG="VmHWM $before_r -> $h KiB, VmRSS $r KiB; status VmHWM $st VmRSS $sr; \
footer: $(tail -1 <<<"$SCR")" \
	check "r resets VmHWM to about VmRSS (screen and /proc agree)" \
	test "$ok" = true -a "$st" -le $((sr + 16))
check "r says so in the footer" grep -q 'peaks reset' <<<"$SCR"

# go: the arena's first touches happen while attached
echo go >&7
if wait_screen main "resident $PAGES/$PAGES pages 100%" 10; then
	pass "arena resident pages rise to the plan's $PAGES pages"
else
	fail "arena resident pages rise to the plan's $PAGES pages" \
		"$(grep -E 'Arena|resident' <<<"$SCR")"
fi
size=$(field 'size ([0-9]+) KiB'); plan=$(field 'plan ([0-9]+) KiB')
MSG="size $size, plan $plan (plan says $PLAN_BYTES, $PAGES pages)" \
	check "arena size is the plan's arena, in whole pages" \
	test "$size" = $((PAGES * 4)) -a "$plan" = $(((PLAN_BYTES + 1023) / 1024))
sleep 0.6
SCR=$(screen main)
printf '%s\n' "$SCR" >"$TMP/screen.txt"
got=$(python3 - "$TMP/truth.json" "$TMP/screen.txt" <<'PY'
import collections, json, re, sys
truth = collections.Counter(p["op"] for p in json.load(open(sys.argv[1]))["pages"])
bad = []
n = 0
for r in open(sys.argv[2]).read().split("\n"):
	m = re.match(r"^.{10} *(\d+) +[A-Z0-9_]+ +\d+ KiB +(\d+) pg +(\d+) KiB$", r)
	if m:
		op, ft, res = int(m.group(1)), int(m.group(2)), int(m.group(3))
		n += 1
		if ft != truth.get(op, 0) or res != 4 * truth.get(op, 0):
			bad.append(f"op {op}: {ft} pg / {res} KiB, truth {truth.get(op, 0)} pages")
print("; ".join(bad) if n else "no operator rows")
PY
)
MSG="$got" check "first-touch pages and resident bytes per operator are the fixture's truth" \
	test -z "$got"
check "runs per second shown with the run probe" grep -Eq 'runs +[0-9.]+/s' <<<"$SCR"
layout_check "80x24 running" 80 24
# a serial console's 80x24: the latency stays, the history has its scale and window
MSG="$(grep -E '^ +runs' <<<"$SCR")" check "80x24: the run latency's p50 and p99 shown" \
	grep -Eq 'runs +[0-9.]+/s .*p50 [0-9.]+ (us|ms) p99 [0-9.]+ (us|ms) \([0-9]+\)' <<<"$SCR"
MSG="$(grep '^Memory' <<<"$SCR")" \
	check "80x24: the VmRSS history with its min and max and the time it spans" \
	grep -Eq '^Memory +VmRSS [0-9]+ KiB [0-9.]+([KMG]i)?B +[^ ]+ [0-9.]+([KMG]i)?B last [0-9]+(s|m[0-9]{2}s) ' \
	<<<"$SCR"
# columns as characters (a sparkline's glyph is three bytes of UTF-8)
wide_rows() { python3 -c 'import sys
print("\n".join(r for r in sys.stdin.read().split("\n") if len(r) > int(sys.argv[1])))' "$1"; }
MSG="$(wide_rows 80 <<<"$SCR" | head -2)" check "80x24: no line longer than 80 columns" \
	test -z "$(wide_rows 80 <<<"$SCR")"
check "no XNNPACK panel for a target without XNNPACK" test -z "$(grep '^XNNPACK' <<<"$SCR")"
check "no dma-buf panel for a target without dma-bufs" test -z "$(grep '^dma-buf ' <<<"$SCR")"

# w: a snapshot that report reads
T send-keys -t main w
wait_screen main 'snapshot written: ' 5
snap=$TMP/$(sed -nE 's/.*snapshot written: ([^ ]+) in.*/\1/p' <<<"$SCR" | head -1)
r=$("$ARENAPROF" report "$snap" --plan "$MV2" --json 2>"$TMP/snap.err" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["pid"], d["arena"]["first_touch_pages"], d["runs"] > 0, d["attached"])' 2>&1)
MSG="snapshot '$snap': $r $(head -c 300 "$TMP/snap.err")" \
	check "w writes a trace of the session so far: report reads it (the arena's \
$PAGES first touches, runs)" \
	test "${r#* }" = "$PAGES True True"

# resize: 200x50 (two columns), then back to 80x24
T resize-window -t main -x 200 -y 50
sleep 0.5
wait_screen main '^Memory .* Operators ' 5
layout_check "200x50" 200 50
check "runs: the latency's median and p99 over the last 256 runs" \
	grep -Eq 'runs +[0-9.]+/s .* p50 [0-9.]+ (us|ms) p99 [0-9.]+ (us|ms) \(256\)' <<<"$SCR"
# mininfer callocs its per-run times (2^20 x 8 bytes) after the go, from main
MSG="$(grep '^Allocs' <<<"$SCR")" \
	check "Allocs: the block allocated after attach, named by symbol and file" \
	grep -Eq '^Allocs +held 8.00 MiB +main \(mininfer\) 8.00 MiB x1' <<<"$SCR"
MSG="$(grep -o '[0-9]*\* .*' <<<"$SCR" | head -1)" \
	check "the widest operator's row names its output tensor" \
	grep -Eq " $WIDEST\* +DEPTHWISE_CONV_2D +[0-9]+ KiB +[0-9]+ pg +[0-9]+ KiB +[.A-Za-z0-9_/]*/depthwise/Relu6\$" \
	<<<"$SCR"
T resize-window -t main -x 80 -y 24
sleep 0.5
wait_screen main '^Operators ' 5
layout_check "80x24 after 200x50" 80 24

# ? help, any key closes it
T send-keys -t main '?'
wait_screen main 'arenaprof top: keys' 3
check "? shows the keys" grep -Eq 'w +write a snapshot' <<<"$SCR"
T send-keys -t main x
wait_screen main '^Memory ' 3
check "any key closes the help" test -n "$(grep '^Memory ' <<<"$SCR")"

# space: the display freezes (sampling goes on), space again thaws it
T send-keys -t main ' '
wait_screen main 'PAUSED' 3
s1=$(screen main); sleep 1.2; s2=$(screen main)
check "space pauses: the screen does not change" test "$s1" = "$s2"
T send-keys -t main ' '
wait_screen main ' live$' 3
check "space again: live" grep -q ' live$' <<<"$SCR"

# s: sort by breadth, the widest operator first
T send-keys -t main s
wait_screen main 'breadth(▼|v)' 3
first=$(grep -A1 '^Operators ' <<<"$SCR" | tail -1 | awk '{print $1}')
MSG="first row $first" check "the widest operator is marked with * in the table" \
	test "$first" = "$WIDEST*"
first=${first%\*}
MSG="first row op $first, widest $WIDEST" check "s sorts by breadth: the widest operator first" \
	test "$first" = "$WIDEST"

# q: exit 0, terminal restored
T send-keys -t main q
for _ in $(seq 50); do [ -s "$TMP/exit.main" ] && break; sleep 0.1; done
MSG="exit $(cat "$TMP/exit.main" 2>/dev/null)" check "q exits 0" \
	test "$(cat "$TMP/exit.main" 2>/dev/null)" = 0
check "q restores the terminal modes (stty -g before = after)" \
	cmp -s "$TMP/stty.before" "$TMP/stty.after"
MSG="alternate screen $(T display -p -t main '#{alternate_on}')" \
	check "q leaves the alternate screen" test "$(T display -p -t main '#{alternate_on}')" = 0

# ---- no plan: the mappings summed per object in place of the operators ----
T new-session -d -s noplan -x 160 -y 40 "LANG=$LOC $ARENAPROF -p $A --interval 250; sleep 600"
wait_screen noplan '^Mappings ' 10
# the model file's pages held are those resident at attach: smaps' Rss of its mapping
mv2=$(realpath "$MV2")
want=$(awk -v m="$mv2" '$6 == m { on = 1; next } /^[0-9a-f]+-/ { on = 0 }
	on && $1 == "Rss:" { s += $2 } END { print s + 0 }' "/proc/$A/smaps")
# a long path shows as "...tail" (the name column is at most 60 wide): match its file name
got=$(sed -n '/^Mappings /,$p' <<<"$SCR" | grep -F "$(basename "$mv2") " | awk '{ print $2 }')
anon=$(grep -E '^ +\[anon\] +[0-9]+ KiB' <<<"$SCR" | awk '{ print $2 }')
MSG="model file $got KiB, smaps Rss $want KiB; [anon] $anon KiB, arena $((PAGES * 4)) KiB" \
	check "no plan: Mappings per object, the model file's pages held as smaps says, the arena in [anon]" \
	test -n "$got" -a "$want" -gt 0 -a "$got" = "$want" -a "${anon:-0}" -ge $((PAGES * 4))
T kill-session -t noplan

# ---- Ctrl-C and SIGTERM restore the terminal too ----
for how in C-c TERM; do
	T new-window -d -n "$how" "stty -g >$TMP/stty.$how.before; $ARENAPROF top -p $A \
--interval 250; echo \$? >$TMP/exit.$how; stty -g >$TMP/stty.$how.after; sleep 600"
	wait_screen "$how" 'VmHWM' 10
	if [ "$how" = C-c ]; then
		T send-keys -t "$how" C-c
	else
		pkill -TERM -P "$(T display -p -t "$how" '#{pane_pid}')" -x arenaprof
	fi
	for _ in $(seq 50); do [ -s "$TMP/exit.$how" ] && break; sleep 0.1; done
	MSG="exit $(cat "$TMP/exit.$how" 2>/dev/null)" \
		check "$how: exits 0 and restores the terminal" \
		cmp -s "$TMP/stty.$how.before" "$TMP/stty.$how.after"
	test "$(cat "$TMP/exit.$how" 2>/dev/null)" = 0 ||
		fail "$how: exit status" "$(cat "$TMP/exit.$how")"
done

# ---- a target that exits while displayed, with -o ----
start_target b 8
B=$tpid
echo go >&8
T new-window -d -n died "$ARENAPROF -p $B --plan $MV2 -o $TMP/died.trace --interval 250; \
echo \$? >$TMP/exit.died; sleep 600"
wait_screen died "resident $PAGES/$PAGES" 10
kill "$B"
if wait_screen died 'EXITED' 5; then
	pass "a target that exits while displayed: the screen says EXITED"
else
	fail "a target that exits while displayed: the screen says EXITED" "$(head -3 <<<"$SCR")"
fi
check "... and keeps the last values" grep -Eq "VmHWM [0-9]+ KiB.*|resident $PAGES/$PAGES" <<<"$SCR"
check "... and says q quits" grep -q "process $B exited" <<<"$SCR"
T send-keys -t died q
for _ in $(seq 50); do [ -s "$TMP/exit.died" ] && break; sleep 0.1; done
r=$("$ARENAPROF" report "$TMP/died.trace" --json 2>&1 | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["complete"], d["end"]["reason"])' 2>&1)
MSG="exit $(cat "$TMP/exit.died" 2>/dev/null); report: $r" \
	check "-o keeps the session: a complete trace that ended with the target's exit" \
	test "$(cat "$TMP/exit.died" 2>/dev/null):$r" = "0:True the target exited"

# ---- --batch ----
st0=$(status_kb "$A" VmHWM)
"$ARENAPROF" top -p "$A" --plan "$MV2" --run-probe "$MI:mininfer_invoke" --batch -n 3 \
	--interval 200 >"$TMP/batch.out" 2>"$TMP/batch.err"
rc=$?
st1=$(status_kb "$A" VmHWM)
r=$(python3 - "$TMP/batch.out" "$A" "$st0" "$PAGES" "$st1" <<'PY'
import sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
pid, st, pages, st1 = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
bad = []
if len(lines) != 3:
	bad.append(f"{len(lines)} lines")
for l in lines:
	kv = dict(f.split("=", 1) for f in l[1:])
	if kv.get("pid") != pid:
		bad.append(f"pid {kv.get('pid')}")
	if not st - 4 <= int(kv["hwm"]) // 1024 <= st1 + 4:
		bad.append(f"hwm {kv['hwm']} vs status {st}..{st1} kB")
	if kv["arena_pages"] != str(pages) or kv["arena_resident_pages"] != str(pages):
		bad.append(f"arena {kv['arena_pages']} {kv['arena_resident_pages']}")
	if float(kv["runs_per_s"] if kv["runs_per_s"] != "-" else -1) < 0:
		bad.append("no runs_per_s")
	for k in ("rss", "anon", "file", "pss_anon", "drops", "cg_current"):
		if k not in kv:
			bad.append(f"no {k}")
print("; ".join(bad))
PY
)
MSG="exit $rc; $r; $(head -c 300 "$TMP/batch.err")" \
	check "--batch -n 3: three key=value lines with the right pid, VmHWM and arena" \
	test "$rc" = 0 -a -z "$r"
# --json: JSON lines with the same keys as the key=value lines, null for '-'
"$ARENAPROF" top -p "$A" --plan "$MV2" --run-probe "$MI:mininfer_invoke" --json -n 2 \
	--interval 200 >"$TMP/batch.jsonl" 2>"$TMP/batchj.err"
rc=$?
r=$(python3 - "$TMP/batch.jsonl" "$TMP/batch.out" "$A" "$PAGES" <<'PY'
import json, sys
bad = []
try:
	js = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
except ValueError as e:
	print(f"not JSON lines: {e}")
	sys.exit()
kv = dict(f.split("=", 1) for f in open(sys.argv[2]).readline().split()[1:])
if len(js) != 2:
	bad.append(f"{len(js)} lines")
for d in js:
	if set(d) != set(kv) | {"time", "schema_version"} or d["schema_version"] != 1:
		bad.append(f"keys differ: {sorted(set(d) ^ (set(kv) | {'time', 'schema_version'}))}")
	if d["pid"] != int(sys.argv[3]) or d["arena_pages"] != int(sys.argv[4]):
		bad.append(f"pid {d['pid']} arena_pages {d['arena_pages']}")
	if any(v == "-" for v in d.values()):
		bad.append("a '-' where null belongs")
	p50, p99 = d["run_p50_ns"], d["run_p99_ns"]
	if p50 is not None and not 0 < p50 <= p99:
		bad.append(f"run latency p50 {p50} p99 {p99}")
	if d["runs"] and d["runs"] > 2 and p50 is None:
		bad.append(f"{d['runs']} runs and no latency")
	# the target allocated nothing large since this session attached
	if d["alloc_held"] != 0:
		bad.append(f"alloc_held {d['alloc_held']}")
print("; ".join(bad))
PY
)
MSG="exit $rc; $r; $(head -c 300 "$TMP/batchj.err")" \
	check "--json -n 2: two JSON lines, the key=value lines' keys, right pid and arena" \
	test "$rc" = 0 -a -z "$r"
# --openmetrics FILE: rewritten at every update, the strict OpenMetrics parser reads it
# (tests/py/check_openmetrics.py), promtool too, the arena's pages are the plan's, and no
# temporary file is left beside it
"$ARENAPROF" top -p "$A" --plan "$MV2" --run-probe "$MI:mininfer_invoke" --batch -n 3 \
	--interval 200 --openmetrics "$TMP/live.prom" >/dev/null 2>"$TMP/om.err"
PROMTOOL=${PROMTOOL:-/opt/arenaprof-promtool/usr/bin/promtool}
PY=${ARENAPROF_VENV:-/opt/arenaprof-venv}/bin/python	# prometheus-client (install-deps)
"$PY" tests/py/check_openmetrics.py "$TMP/live.prom" "$("$ARENAPROF" --version |
	sed 's/^arenaprof //')" "--openmetrics FILE: " --model "$(basename "$MV2")" \
	--expect "{\"arenaprof_arena_found_bytes\": $((PAGES * 4096))}"
"$PROMTOOL" check metrics <"$TMP/live.prom" >"$TMP/promtool.out" 2>&1
rc=$?
MSG="exit $rc: $(head -c 300 "$TMP/promtool.out") $(cat "$TMP/om.err")"
check "--openmetrics FILE: promtool parses it (only 'no help text' of _total samples), no temp left" \
	sh -c '{ [ "$1" = 0 ] || { [ "$1" = 3 ] && ! grep -qv "_total no help text$" "$2"; }; } &&
		[ -z "$(ls "$3".tmp.* 2>/dev/null)" ]' _ "$rc" "$TMP/promtool.out" "$TMP/live.prom"
MSG="$(grep run_latency "$TMP/live.prom")" \
	check "--openmetrics FILE: the run latency from the run probe, its _count and _sum" \
	"$PY" -c 'import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
m = {s.name + s.labels.get("quantile", ""): s.value for f in parse(open(sys.argv[1]).read())
     for s in f.samples}
n = "arenaprof_run_latency_seconds"
sys.exit(not (m[n + "_count"] >= 1 and m[n + "_sum"] >= m[n + "0.5"] > 0 and
	      m[n + "_count"] <= m["arenaprof_runs_total"]))' "$TMP/live.prom"
# TERM=dumb on a terminal (script(1) gives one): batch lines and a line saying why
TERM=dumb script -qec "$ARENAPROF -p $A -n 2 --interval 200" /dev/null | tr -d '\r' \
	>"$TMP/dumb.out"
MSG="$(head -c 300 "$TMP/dumb.out")"
check "TERM=dumb: batch lines, not the screen, and it says so" sh -c '
	[ "$(grep -c " hwm=" "$1")" = 2 ] && grep -q "TERM is dumb: batch lines" "$1" &&
	! grep -q "$(printf "\033")\[" "$1"' _ "$TMP/dumb.out"
"$ARENAPROF" -p "$A" -n 2 --interval 200 2>/dev/null | cat >"$TMP/notty.out"
MSG="$(head -c 300 "$TMP/notty.out")" check "no terminal: batch lines (arenaprof -p PID | cat)" \
	test "$(grep -c ' hwm=' "$TMP/notty.out")" = 2
sleep 1.5 & short=$!
"$ARENAPROF" top -p "$short" --batch --interval 200 >"$TMP/short.out" 2>"$TMP/short.err"
rc=$?
MSG="exit $rc, $(tail -1 "$TMP/short.out") / $(cat "$TMP/short.err")" \
	check "--batch on a process that exits: says so, exit 0" \
	test "$rc" = 0 -a "$(tail -1 "$TMP/short.out")" = \
	"# pid $short exited (status unknown: not our child)"

# ---- bad PIDs, no permission ----
true & dead=$!; wait "$dead"	# a PID that existed and is gone
"$ARENAPROF" -p "$dead" >/dev/null 2>"$TMP/dead.err"
rc=$?
MSG="exit $rc: $(cat "$TMP/dead.err")" check "a PID that does not exist: one clear line, exit 2" \
	test "$rc" = 2 -a "$(wc -l <"$TMP/dead.err")" = 1 -a \
	-n "$(grep 'does not exist' "$TMP/dead.err")"
if id nobody >/dev/null 2>&1; then
	cp "$ARENAPROF" "$TMP/ap-nobody"; chmod 755 "$TMP/ap-nobody"
	runuser -u nobody -- "$TMP/ap-nobody" -p "$A" >/dev/null 2>"$TMP/perm.err"
	rc=$?
	MSG="exit $rc: $(cat "$TMP/perm.err")" \
		check "attach with no permission: one clear line, exit 1" \
		test "$rc" = 1 -a "$(wc -l <"$TMP/perm.err")" = 1 -a \
		-n "$(grep -i 'permission' "$TMP/perm.err")"
fi

# ---- the hidden trace is a ring: --trace-ring 1M against a target that faults a lot ----
# 4096 first touches of a fresh 16 MiB mapping every 50 ms: some 4 MB/s of trace records
cat >"$TMP/faulter.py" <<'PY'
import mmap, time
print("ready", flush=True)
while True:
	m = mmap.mmap(-1, 16 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
	for i in range(0, 16 << 20, 4096):
		m[i] = 1
	m.close()
	time.sleep(0.05)
PY
python3 "$TMP/faulter.py" >"$TMP/faulter.out" 2>&1 &
F=$!
targets+=("$F")
for _ in $(seq 50); do grep -q ready "$TMP/faulter.out" && break; sleep 0.1; done
mkdir -p "$TMP/ringsnap"
T new-window -d -n ring "$ARENAPROF -p $F --trace-ring 1M --interval 250 \
--snapshot-dir $TMP/ringsnap; echo \$? >$TMP/exit.ring; sleep 600"
wait_screen ring 'VmHWM' 10
ap=$(pgrep -P "$(T display -p -t ring '#{pane_pid}')" -x arenaprof)
# the ring's unlinked files, summed, every 0.1 s for 6 s
most=0 samples=0
for _ in $(seq 60); do
	sum=0
	for fd in /proc/"$ap"/fd/*; do
		case $(readlink "$fd" 2>/dev/null) in
		*/arenaprof-top-*/session.trace*) sum=$((sum + $(stat -L -c %s "$fd" 2>/dev/null || echo 0)));;
		esac
	done
	[ "$sum" -gt 0 ] && samples=$((samples + 1))
	[ "$sum" -gt "$most" ] && most=$sum
	sleep 0.1
done
MSG="largest $most bytes in $samples samples" \
	check "--trace-ring 1M: the hidden trace's files never hold more than 1 MiB" \
	test "$samples" -gt 30 -a "$most" -le 1048576 -a "$most" -gt 262144
wait_screen ring ' trace [0-9.]+(B|[KM]iB)/1.00MiB( |$)' 3
check "the header shows the ring's fill and cap" grep -Eq ' trace [0-9.]+(B|[KM]iB)/1.00MiB( |$)' <<<"$SCR"
T send-keys -t ring w
wait_screen ring 'snapshot written: ' 5
snap=$TMP/ringsnap/$(sed -nE 's/.*snapshot written: ([^ ]+) in.*/\1/p' <<<"$SCR" | head -1)
r=$("$ARENAPROF" report "$snap" --json 2>"$TMP/ringsnap.err" | python3 -c '
import json, re, sys
d = json.load(sys.stdin)
m = [re.search(r"first (\d+) records \(.*\) were dropped", n) for n in d["notes"]]
m = [int(x.group(1)) for x in m if x]
print(d["pid"], d["attached"], d["faults_total"] > 1000, len(m) == 1 and m[0] > 10000)' 2>&1)
size=$(stat -c %s "$snap" 2>/dev/null || echo none)
MSG="snapshot '$snap' ($size bytes): $r $(head -c 300 "$TMP/ringsnap.err")" \
	check "w saves what the ring holds: a trace report reads (its faults), at most 1 MiB, \
with a note of how many records were dropped" \
	test "$r" = "$F True True True" -a "$size" -le 1048576
T send-keys -t ring q
kill "$F"
expect_refusal "--trace-ring below 1M: refused" 2 "bad value '512K' for --trace-ring" \
	"$ARENAPROF" top -p "$A" --trace-ring 512K --batch -n 1
expect_refusal "--trace-ring with -o: refused (-o keeps the whole session)" 2 \
	"give one of them" "$ARENAPROF" top -p "$A" --trace-ring 4M -o "$TMP/x.trace" --batch -n 1

# ---- XNNPACK's halves live: a LiteRT process on its default path ----
# Ground truth: report --json --plan of a record of the same model (XNNPACK's blocks are
# deterministic per model on one CPU). top attaches before the model loads (litert-run
# --wait-load: LiteRT's libraries mapped, so XNNPACK's allocator is attached at attach),
# so XNNPACK's blocks are all seen.
LR=scripts/litert-run
LRPY=${ARENAPROF_VENV:-/opt/arenaprof-venv}/bin/python
if [ ! -x "$LRPY" ] || ! "$LRPY" -c 'import ai_edge_litert' 2>/dev/null; then
	skip "tui: XNNPACK's halves live" "no ai-edge-litert in ${LRPY%/bin/python} (scripts/install-deps)"
else
	"$ARENAPROF" record -o "$TMP/xnn.trace" -- "$LR" "$MV2" --runs 3 --delegate xnnpack \
		>/dev/null 2>"$TMP/xnn.rec.err"
	"$ARENAPROF" report "$TMP/xnn.trace" --plan "$MV2" --json >"$TMP/xnn.rep.json" \
		2>"$TMP/xnn.rep.err"
	mkfifo "$TMP/xnn.in"
	"$LR" "$MV2" --runs 100000000 --delegate xnnpack --wait-load <"$TMP/xnn.in" \
		>"$TMP/xnn.out" 2>&1 &
	X=$!
	targets+=("$X")
	exec 6>"$TMP/xnn.in"
	for _ in $(seq 100); do grep -q '^ready to load' "$TMP/xnn.out" && break; sleep 0.1; done
	T new-session -d -s xnn -x 80 -y 24 "LANG=$LOC $ARENAPROF -p $X --plan $MV2 \
--interval 250; sleep 600"
	wait_screen xnn '^XNNPACK +allocator probed' 10
	echo go >&6
	# xnn_judge W H: the halves on screen against the report's, within the display's rounding
	xnn_judge() {
		printf '%s\n' "$SCR" >"$TMP/xnn.screen"
		python3 - "$TMP/xnn.rep.json" "$TMP/xnn.screen" "$1" "$2" <<'PY'
import json, re, sys
rep = json.load(open(sys.argv[1]))["xnnpack"]
rows = open(sys.argv[2]).read().rstrip("\n").split("\n")
W, H = int(sys.argv[3]), int(sys.argv[4])
text = "\n".join(rows)
unit = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}
bad = []
def near(shown, u, want):
	dec = len(shown.split(".")[1]) if "." in shown else 0
	return abs(float(shown) * unit[u] - want) <= 0.5 * 10 ** -dec * unit[u] + 1e-6
for name, key in [("workspace", "workspace_bytes"), ("packed", "packed_weights_bytes"),
		  ("op buffers", "scratch_bytes"), ("objects", "other_bytes")]:
	# "1.44/1.52MiB": the held figure takes the plan's unit when it has none of its own
	m = re.search(r"(?:^|  )%s ([0-9.]+)(B|[KMG]iB)?/([0-9.]+)(B|[KMG]iB)" % name, text, re.M)
	if not m:
		bad.append(f"no '{name} HELD/PLAN'")
		continue
	if not near(m.group(1), m.group(2) or m.group(4), rep[key]):
		bad.append(f"{name} held {m.group(1)}{m.group(2)}, report {rep[key]}")
	if not near(m.group(3), m.group(4), rep["planned"][key]):
		bad.append(f"{name} plan {m.group(3)}{m.group(4)}, report {rep['planned'][key]}")
if not re.search(r"^XNNPACK +arena [0-9.]+(B|[KMG]iB)?/[0-9.]+(B|[KMG]iB)", text, re.M):
	bad.append("no TFLite arena first in the XNNPACK panel")
if not re.search(r"p50 [0-9.]+ (us|ms) p99 [0-9.]+ (us|ms)", text):
	bad.append("no p50/p99")
if any(len(r) > W for r in rows) or len(rows) > H:
	bad.append("wider or taller than the window")
print("; ".join(bad))
PY
	}
	if wait_screen xnn '  objects [0-9.]+(B|[KMG]iB)?/' 30; then
		sleep 1
		SCR=$(screen xnn)
		r=$(xnn_judge 80 24)
		MSG="$r; $(grep -A1 '^XNNPACK' <<<"$SCR")" \
			check "80x24: XNNPACK's halves live (workspace, packed weights, operator \
buffers, runtime objects), held and planned, as report says of a record of the model" \
			test -z "$r"
		T resize-window -t xnn -x 200 -y 50
		sleep 0.6
		wait_screen xnn '^XNNPACK ' 5
		r=$(xnn_judge 200 50)
		MSG="$r" check "200x50: the same halves, nothing wider than the window" test -z "$r"
		# the blocks are still held: a --batch session attached now sees none of them
		"$ARENAPROF" top -p "$X" --batch -n 1 --interval 200 >"$TMP/xnn.batch" 2>&1
		MSG="$(grep -o 'xnn_[a-z_]*=[^ ]*' "$TMP/xnn.batch" | tr '\n' ' ')" \
			check "--batch attached after the model loaded: XNNPACK's keys, no block seen" \
			grep -q ' xnn_workspace_bytes=0 xnn_scratch_bytes=0 ' "$TMP/xnn.batch"
	else
		fail "the XNNPACK panel shows XNNPACK's halves on a default-path LiteRT process" \
			"$(grep -A1 '^XNNPACK' <<<"$SCR"); record: $(tail -1 "$TMP/xnn.rec.err")"
	fi
	T kill-session -t xnn
	kill "$X" 2>/dev/null
	exec 6>&-
fi

# ---- the dma-buf row, on replays of the VM guests' traces of tests/fixtures/dmabuf_fixture.c
# (scripts/vm/tests.sh, 7): at the end nothing held and the peak of the fixture's own
# figures: phase 1 and the short-lived S1 by the events (6.17), phase 1 by the polls (6.12,
# recorded without events) ----
dmabuf_row() {	# dmabuf_row TRACE: steps the replay to its end at 80x24; the row in $ROW
	T new-window -d -n dmb "LANG=$LOC $ARENAPROF top $1; sleep 600"
	T resize-window -t dmb -x 80 -y 24 2>/dev/null
	wait_screen dmb 'space plays' 10
	for _ in $(seq 60); do
		T send-keys -t dmb n
		SCR=$(screen dmb)
		grep -q EXITED <<<"$SCR" && break
		sleep 0.1
	done
	ROW=$(grep '^dma-buf ' <<<"$SCR")
	T kill-window -t dmb
}
for k in events-6.17 6.12; do
	F=tests/fixtures/trace/dmabuf-$k
	want=$(python3 - "$F.fixture.jsonl" <<'PY'
import json, sys
rows = [json.loads(x) for x in open(sys.argv[1])]
p1 = next(r for r in rows if r.get('phase') == 1)
s1 = [r['size'] for r in rows if r.get('what') == 'short-S1' and r.get('op') == 'alloc']
peak = p1['bytes'] + (s1[0] if s1 else 0)
mib = peak / (1 << 20)
print(f'{mib:.2f}MiB' if mib < 10 else f'{mib:.1f}MiB')
PY
)
	dmabuf_row "$F.aptrace"
	case $k in
	events-*) re="^dma-buf   held 0B  not freed 0B  peak $want  fentry\+bpf_iter *\$" ;;
	*) re="^dma-buf   held 0B  peak $want  fdinfo *\$" ;;
	esac
	MSG="row: '$ROW'; want peak $want; $(wide_rows 80 <<<"$SCR" | head -2)" \
		check "dma-buf row of the $k trace at 80x24: nothing held at the end, peak $want" \
		sh -c 'printf "%s\n" "$1" | grep -Eq "$2" && test -z "$3"' _ "$ROW" "$re" \
		"$(wide_rows 80 <<<"$SCR")"
done

# ---- CPU cost of the TUI with an idle target, default interval ----
start_target idle 9
I=$tpid
T new-window -d -n cpu "$ARENAPROF -p $I --plan $MV2; sleep 600"
wait_screen cpu 'VmHWM' 10
ap=$(pgrep -P "$(T display -p -t cpu '#{pane_pid}')" -x arenaprof)
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
t0=$(ticks "$ap"); s0=$(date +%s.%N)
sleep "${TUI_CPU_SECONDS:-20}"
t1=$(ticks "$ap"); s1=$(date +%s.%N)
pct=$(python3 -c "print(f'{($t1 - $t0) / $(getconf CLK_TCK) / ($s1 - $s0) * 100:.2f}')")
MSG="$pct % of a core" \
	check "CPU cost of the TUI with an idle target: $pct % of a core (goal < 2 %)" \
	python3 -c "import sys; sys.exit(0 if $pct < 2 else 1)"
T send-keys -t cpu q
