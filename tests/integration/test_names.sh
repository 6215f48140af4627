#!/usr/bin/env bash
# Hostile names through every face and format. A model's custom operator name and tensor
# names, a trace's mapping paths and notes, and an imported plan's tensor names hold ESC
# sequences (clear screen, OSC 52), BEL, the 8-bit CSI, a newline, a tab, a comma, a
# quote, a backslash and an invalid byte (tests/hostile/evil_names.py). They are made
# printable once, where they are read (util/escape.h, ap_name_clean): every output of
# plan, report, heatmap, export and diff, in text, JSON, CSV and SVG, must hold none of
# them raw (no control byte but the newlines of its own lines, no C1, valid UTF-8), its
# JSON must parse, its CSV must parse with one field count, its SVG must parse, and the
# names must still be there, as '?'.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

EVIL=tests/hostile/evil_names.py
GEN=$BUILD/bench/scale_trace
MV1=$MODELS/mobilenet_v1_0.25_128_quant.tflite
DET=$MODELS/gen_detection_postprocess.tflite
if [ ! -x "$GEN" ]; then
	fail "names: $GEN" "not built (make check builds it)"
	exit 1
fi

# the arena tensor of MobileNet v1 written first (a name that reports and heatmaps show)
name=$("$ARENAPROF" plan --delegate none --csv "$MV1" | awk -F, '$7 == "arena" { print $2; exit }')
if ! python3 "$EVIL" model "$MV1" "$TMP/mv1.tflite" "$name" ||
	! python3 "$EVIL" model "$DET" "$TMP/det.tflite" TFLite_Detection_PostProcess ||
	! "$GEN" fault 2000 "$TMP/f.trace" || ! "$GEN" note 200 "$TMP/n.trace" ||
	! python3 "$EVIL" trace "$TMP/f.trace" "$TMP/fe.trace" >/dev/null ||
	! python3 "$EVIL" trace "$TMP/n.trace" "$TMP/ne.trace" >/dev/null ||
	! python3 "$EVIL" csv "$TMP/evil.csv"; then
	fail "names: the hostile inputs" "could not be written"
	exit 1
fi

# clean FORMAT FILE: the checks above, on one output; prints why not, exit 1
clean() {
	python3 - "$1" "$2" <<'PY'
import csv, io, json, re, sys
import xml.etree.ElementTree as ET
fmt, path = sys.argv[1].split(':')[0], sys.argv[2]
named = sys.argv[1].endswith(':named')
data = open(path, 'rb').read()
if fmt == 'ansi':	# its own colours are the only escapes it may hold
    data = re.sub(rb'\x1b\[[0-9;]*m', b'', data)
try:
    text = data.decode('utf-8')
except UnicodeDecodeError as e:
    sys.exit('not UTF-8: %s' % e)
bad = [c for c in text if (ord(c) < 0x20 and c != '\n') or 0x7f <= ord(c) <= 0x9f]
if bad:
    sys.exit('raw control characters: %r' % sorted(set(bad)))
def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
if fmt == 'json':	# and no control character escaped into a string (\u001b) either
    bad = {c for s in strings(json.loads(text)) for c in s
           if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f}
    if bad:
        sys.exit('control characters in its strings: %r' % sorted(bad))
elif fmt == 'csv':
    n = {len(r) for r in csv.reader(io.StringIO(text))}
    if len(n) != 1:
        sys.exit('rows of %s fields' % sorted(n))
elif fmt == 'svg':
    ET.fromstring(text)
if named and 'e?[2J?' not in text and '?]52;c;SGk=' not in text:
    sys.exit('the hostile name is not in it (as ? where it had control bytes)')
PY
}

# face LABEL FORMAT[:named] ARGS...: arenaprof ARGS exits 0 (or 3, a gate) and its output
# is clean; with :named, the hostile name is in it (as '?' where it had control bytes)
face() {
	local label=$1 fmt=$2 rc out
	shift 2
	"$ARENAPROF" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 3 ]; then
		fail "names: $label" "exit $rc: $(head -c 300 "$TMP/err")"
		return
	fi
	if out=$(clean "$fmt" "$TMP/out" 2>&1); then
		case $fmt in
		*:named) pass "names: $label: printable, parses, the names in it as '?'" ;;
		*) pass "names: $label: printable, parses" ;;
		esac
	else
		fail "names: $label" "$out"
	fi
}

face "plan of a model with a hostile tensor name" text:named plan "$TMP/mv1.tflite"
face "plan --json (a hostile tensor name)" json:named plan --json "$TMP/mv1.tflite"
face "plan --csv (a hostile tensor name)" csv:named plan --csv "$TMP/mv1.tflite"
face "plan of a model with a hostile custom operator name" text:named plan "$TMP/det.tflite"
face "plan --json (a hostile custom operator name)" json:named plan --json "$TMP/det.tflite"
face "plan --csv (a hostile custom operator name)" csv plan --csv "$TMP/det.tflite"
face "plan --import of a CSV plan with hostile tensor names" text:named \
	plan --import "$TMP/evil.csv"
face "plan --import --json" json:named plan --import "$TMP/evil.csv" --json
face "plan --import --csv" csv:named plan --import "$TMP/evil.csv" --csv
for t in fe ne; do
	tr=$TMP/$t.trace
	face "report of a trace with hostile paths and notes ($t)" text:named report "$tr"
	face "report --json ($t)" json:named report --json "$tr"
	face "report --plan, a hostile model ($t)" text:named report --plan "$TMP/mv1.tflite" "$tr"
	face "report --plan --json ($t)" json:named report --json --plan "$TMP/mv1.tflite" "$tr"
	face "report --plan, a hostile custom operator ($t)" text:named \
		report --plan "$TMP/det.tflite" "$tr"
	face "export json ($t)" json:named export "$tr" --format json -o -
	face "export csv --plan, a hostile custom operator ($t)" csv:named \
		export "$tr" --plan "$TMP/det.tflite" --format csv -o -
	face "diff of two traces ($t)" text diff "$TMP/f.trace" "$tr"
	face "diff --json of two traces ($t)" json diff --json "$TMP/f.trace" "$tr"
done
face "export chrome (notes)" json:named export "$TMP/ne.trace" --format chrome -o -
tr=$TMP/fe.trace
face "heatmap csv (a hostile model)" csv:named heatmap "$tr" --force --plan "$TMP/mv1.tflite" \
	--format csv -o -
face "heatmap svg" svg:named heatmap "$tr" --force --plan "$TMP/mv1.tflite" --format svg -o -
face "heatmap on the terminal" ansi:named heatmap "$tr" --force --plan "$TMP/mv1.tflite" \
	--format ansi -o -
face "diff of two plans" text diff "$MV1" "$TMP/mv1.tflite"
face "diff --json of two plans" json diff --json "$MV1" "$TMP/mv1.tflite"
