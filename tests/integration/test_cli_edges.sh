#!/usr/bin/env bash
# The small edges of issue 27, item 6, outside the TUI: an unknown option given without a
# command is not blamed on top; the completions' option values are the values each
# command accepts (every one taken, a value outside them refused) and PIDs for -p; the
# heatmap CSV's first column is headed by what it holds; the PNG heatmap is as wide as its
# longest line of text (none cut, read back from the pixels); record -q keeps its set-up
# lines off stderr, not out of the trace.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

AP=$ARENAPROF
MI=$BUILD/mininfer
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
PY=${ARENAPROF_VENV:-/opt/arenaprof-venv}/bin/python	# Pillow (scripts/install-deps)

# --- an unknown option: the command named only when one was given
for form in "--frobnicate" "-p 1 --frobnicate"; do
	# shellcheck disable=SC2086
	expect_refusal "arenaprof $form: exit 2, no command blamed" 2 \
		"^arenaprof: bad option or missing value: '--frobnicate' (no command given" \
		"$AP" $form
done
expect_refusal "arenaprof top --frobnicate: top's own usage named" 2 \
	"^arenaprof top: bad option .*'arenaprof top --help'" "$AP" top --frobnicate
expect_refusal "arenaprof report --frobnicate: report's" 2 \
	"^arenaprof report: bad option .*'arenaprof report --help'" "$AP" report --frobnicate

# --- completion values (bash): what _arenaprof offers after each option
comp() {	# comp WORD...: the completion's offers for the last word (may be empty)
	bash -c '. scripts/completions/arenaprof.bash; COMP_WORDS=(arenaprof "${@:1}")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _arenaprof
		printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}
if [ "$(id -u)" = 0 ]; then
	"$AP" record -o "$TMP/t.trace" --run-probe "$MI:mininfer_invoke" \
		--op-probe "$MI:mininfer_op:0" -- "$MI" "$MV2" --runs 3 >/dev/null 2>"$TMP/rec.err" || fail "record" "$(tail -2 "$TMP/rec.err")"
fi
# accepts CMD OPT VALUE: the command takes VALUE for OPT (exit 0)
accepts() {
	case "$1" in
	plan) "$AP" plan "$MV2" "$2" "$3" --json ;;
	report) "$AP" report "$TMP/t.trace" --plan "$MV2" "$2" "$3" ;;
	export) "$AP" export "$TMP/t.trace" --plan "$MV2" "$2" "$3" -o "$TMP/x.out" ;;
	heatmap) "$AP" heatmap "$TMP/t.trace" --plan "$MV2" "$2" "$3" -o "$TMP/h.svg" ;;
	esac >/dev/null 2>&1
}
for co in "plan --strategy" "plan --delegate" "report --format" "report --delegate" \
	"report --runtime" "export --format" "heatmap --by" "heatmap --faults" "heatmap --attr" "heatmap --format"; do
	set -- $co
	vals=$(comp "$1" x "$2" "" | tr '\n' ' ')
	if [ "$1" != plan ] && [ ! -s "$TMP/t.trace" ]; then
		skip "completion of $co" "needs a trace (root, BPF) to try its values"
		continue
	fi
	bad=
	for v in $vals; do
		# heatmap --format: the -o name must agree; ansi writes to the terminal
		[ "$co" = "heatmap --format" ] && continue
		accepts "$1" "$2" "$v" || bad="$bad $v"
	done
	accepts "$1" "$2" frobnicate && bad="$bad (frobnicate taken)"
	MSG="offered '$vals', refused:$bad"
	check "bash completion of $co: offers values, each one taken, another refused" \
		sh -c '[ -n "$1" ] && [ -z "$2" ]' _ "$vals" "$bad"
done
# heatmap --format: each value offered is one the help lists, and the list is complete
vals=$(comp heatmap x --format "" | tr '\n' ' ')
MSG="offered '$vals'" check "bash completion of heatmap --format: svg png csv ansi" \
	test "$vals" = "svg png csv ansi "
sleep 30 &
spid=$!
for w in "-p" "record -p" "top --pid"; do
	# shellcheck disable=SC2086
	offers=$(comp $w "")
	MSG="$(printf '%s' "$offers" | head -c 200)"
	check "bash completion of '$w': PIDs, the running sleep's among them" \
		sh -c 'printf "%s\n" "$1" | grep -qx " *$2" &&
			! printf "%s\n" "$1" | grep -qv "^ *[0-9][0-9]*$"' _ "$offers" "$spid"
done
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
for f in scripts/completions/_arenaprof scripts/completions/arenaprof.fish; do
	miss=
	for v in tflite greedy-breadth openmetrics chrome "op run" marker fentry; do
		grep -q -- "$v" "$f" || miss="$miss $v"
	done
	grep -q "_pids\|__fish_complete_pids" "$f" || miss="$miss pids"
	MSG="missing:$miss" check "$(basename "$f"): the same value lists and PIDs for -p" \
		test -z "$miss"
done

if [ ! -s "$TMP/t.trace" ]; then
	skip "heatmap CSV, PNG and record -q" "needs root (BPF) to record"
	exit 0
fi
# --- the heatmap CSV: its first column headed op (--by op) or runs (--by run)
"$AP" heatmap "$TMP/t.trace" --plan "$MV2" -o "$TMP/op.csv" 2>/dev/null
"$AP" heatmap "$TMP/t.trace" --plan "$MV2" --by run -o "$TMP/run.csv" 2>/dev/null
MSG="$(head -c 40 "$TMP/op.csv") | $(head -c 40 "$TMP/run.csv")"
check "heatmap CSV: the first column headed 'op' (its cells operator indexes) or 'runs' (A-B)" \
	sh -c 'head -1 "$1" | grep -q "^op,label,-\{0,1\}[0-9]" &&
		sed -n 2p "$1" | grep -q "^-1,\"-1 input" &&
		head -1 "$2" | grep -q "^runs,label," && sed -n 2p "$2" | grep -q "^-\{0,1\}[0-9]*-[0-9]*,"' \
	_ "$TMP/op.csv" "$TMP/run.csv"

# --- PNG: a narrow plot (8 columns) under a long subtitle; the subtitle's last glyph is
# drawn, inside the image (the pixels read back), as is the legend's last line
"$AP" heatmap "$TMP/t.trace" --plan "$MV2" --by run --cols 8 -o "$TMP/n.png" 2>/dev/null
r=$("$PY" - "$TMP/n.png" <<'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert('RGB')
w, h = im.size
sub = im.info['Description']
need = 8 + 6 * len(sub)
# the rightmost ink of the subtitle's line (y 22..32: M + LINE, a 10-pixel glyph)
ink = [x for x in range(w) for y in range(22, 32) if im.getpixel((x, y)) != (255, 255, 255)]
last = max(ink) if ink else -1
ok = w >= need and need - 6 <= last < need and last < w - 1
print('ok' if ok else 'width %d, subtitle of %d chars needs %d, its ink ends at %d' %
      (w, len(sub), need, last))
PY
)
MSG="$r" check "PNG heatmap: the subtitle whole (its last glyph drawn, inside the image)" \
	test "$r" = ok

# --- record -q: no set-up lines on stderr; the trace's notes are the same
"$AP" record -q -o "$TMP/q.trace" --run-probe "$MI:mininfer_invoke" -- "$MI" "$MV2" \
	--runs 3 >/dev/null 2>"$TMP/q.err"
rc=$?
MSG="exit $rc: $(cat "$TMP/q.err")"
check "record -q: exit 0, no set-up line (tracing, ring buffer, probes), the outcome kept" \
	sh -c '[ "$1" = 0 ] && ! grep -q "tracing pid\|ring buffer\|allocation probe: malloc" "$2" &&
		grep -q "faults, 3 runs" "$2"' _ "$rc" "$TMP/q.err"
MSG="$(grep -c . "$TMP/rec.err") lines without -q"
check "record without -q: the set-up lines are there" \
	grep -q "^arenaprof record: tracing pid .* with .*; writing " "$TMP/rec.err"
n1=$("$AP" report "$TMP/t.trace" --json | python3 -c 'import json, sys
print(len(json.load(sys.stdin)["notes"]))')
n2=$("$AP" report "$TMP/q.trace" --json | python3 -c 'import json, sys
print(len(json.load(sys.stdin)["notes"]))')
MSG="notes: $n1 without -q, $n2 with" check "record -q: the trace keeps its notes" \
	sh -c '[ "$1" -gt 0 ] && [ "$1" = "$2" ]' _ "$n1" "$n2"
# the report does not repeat them: the set-up lines are what record printed without -q and
# not with it (less the two that are no note: tracing, ring buffer); none is a report note,
# the report counts them
"$AP" report "$TMP/t.trace" --plan "$MV2" >"$TMP/t.txt" 2>&1
r=$(python3 - "$TMP/rec.err" "$TMP/q.err" "$TMP/t.txt" <<'PY'
import re, sys
def lines(p):
    return [l.rstrip('\n').replace('arenaprof record: ', '', 1) for l in open(p)]
# pids, rates, counts and the trace's name differ run to run
key = lambda t: re.sub(r'[0-9]+', 'N', re.sub(r'[^ ]*[.]trace', 'T', t))
quiet = {key(t) for t in lines(sys.argv[2])}
setup = [t for t in lines(sys.argv[1]) if key(t) not in quiet and
         not t.startswith(('tracing pid', 'ring buffer'))]
notes = [l[11:].rstrip('\n') for l in open(sys.argv[3]) if l.startswith('note       ')]
m = [re.search(r'and ([0-9]+) set-up lines of record', n) for n in notes]
count = [int(x.group(1)) for x in m if x]
rep = [n for n in notes if n in setup]
ok = setup and count == [len(setup)] and not rep
print('ok' if ok else 'set-up %s; counted %s; repeated %s' % (setup, count, rep))
PY
)
MSG="$r" check "report: record's set-up lines not repeated as notes, counted once" test "$r" = ok
