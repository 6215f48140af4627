#!/usr/bin/env bash
# Hostile inputs, each a regression test: inputs that are not regular files (a FIFO that
# would block a reader forever, /dev/zero that never ends) and numbers that would wrap or
# mean "no limit". Each must end within seconds with exit 2 and one line naming the cause.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

AP=$ARENAPROF
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
mkfifo "$TMP/fifo"

# hostile NAME PATTERN CMD...: exit 2 within 10 s, one stderr line holding PATTERN
hostile() {
	local name=$1 pat=$2 out rc
	shift 2
	out=$(timeout 10 "$@" 2>&1 >/dev/null)
	rc=$?
	MSG="exit $rc: $out"
	check "$name" sh -c '[ "$1" = 2 ] && [ "$(printf "%s\n" "$2" | wc -l)" = 1 ] &&
		printf "%s" "$2" | grep -q -- "$3"' _ "$rc" "$out" "$pat"
}

hostile "report of a FIFO: refused, not blocked" "not a regular file" "$AP" report "$TMP/fifo"
hostile "report of /dev/zero: refused" "not a regular file" "$AP" report /dev/zero
hostile "heatmap of a FIFO: refused, not blocked" "not a regular file" \
	"$AP" heatmap "$TMP/fifo" --plan "$MV2" -o "$TMP/h.svg"
hostile "export of a FIFO: refused, not blocked" "not a regular file" \
	"$AP" export "$TMP/fifo" --format json -o "$TMP/e.json"

hostile "record -p 4294967297 (would wrap to pid 1): refused" "bad value '4294967297'" \
	"$AP" record -o "$TMP/x.trace" -p 4294967297
hostile "record --duration inf: refused" "bad value 'inf'" \
	"$AP" record -o "$TMP/x.trace" --duration inf -- true
hostile "record --duration 1e-12: refused" "bad value '1e-12'" \
	"$AP" record -o "$TMP/x.trace" --duration 1e-12 -- true
hostile "record --runs 99999999999999999999 (overflows): refused" "bad value" \
	"$AP" record -o "$TMP/x.trace" --runs 99999999999999999999 -- true
hostile "export --max-instants -1: refused" "max-instants" \
	"$AP" export /dev/null --format chrome --max-instants -1 -o "$TMP/e.json"
hostile "plan --threads 4294967297: refused" "threads" "$AP" plan "$MV2" --threads 4294967297

# SIGPIPE: record's stderr closed early (| head) must not kill it before the trace ends
if [ "$(id -u)" = 0 ]; then
	"$AP" record -o "$TMP/pipe.trace" --run-probe "$BUILD/mininfer:mininfer_invoke" -- \
		"$BUILD/mininfer" "$MV2" --runs 30 2>&1 >/dev/null | head -c 10 >/dev/null
	out=$("$AP" report "$TMP/pipe.trace" --json 2>&1)
	MSG="$(printf '%s' "$out" | head -c 300)"
	check "record whose stderr pipe closes: the trace still ends cleanly, 30 runs" \
		python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(not (d["complete"] and d["runs"] == 30))' "$out"
else
	skip "record with a closed stderr pipe" "needs root (BPF)"
fi
