#!/usr/bin/env bash
# MediaPipe as a real target (docs/mediapipe.md): its Pose solution (tests/mediapipe/pose.py,
# a pose detector then a landmark model every frame) recorded with no option, then
# reported with its two models. MediaPipe links its own TFLite statically into
# _framework_bindings.so and reads each model file into memory. Ground truth comes from
# that TFLite itself, in the recorded process, by bpftrace uprobes beside the recorder:
# each arena's buffer as TFLite sizes it (tflite::ResizableAlignedBuffer::Resize: the size
# asked for, and the aligned data pointer it then holds), each model's bytes as TFLite is
# handed them (FlatBufferModel::BuildFromBuffer and VerifyAndBuildFromBuffer: the buffer
# and its length), and the frames the fixture ran.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

AP=$ARENAPROF
mpv=${ARENAPROF_MEDIAPIPE_VENV:-/opt/mediapipe-venv}
FRAMES=${MEDIAPIPE_FRAMES:-20}
PY=$mpv/bin/python

if [ "$(id -u)" != 0 ]; then
	skip "mediapipe" "needs root (BPF)"
	exit 0
fi
if ! "$PY" -c 'import mediapipe, cv2' 2>/dev/null; then
	fail "mediapipe" "no mediapipe in $mpv (run scripts/install-deps)"
	exit 0
fi
if ! command -v bpftrace >/dev/null; then
	fail "mediapipe" "no bpftrace for the ground truth (run scripts/install-deps)"
	exit 0
fi

# j FILE EXPR: a value of a JSON file (python expression over d)
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

read -r SO DET LMK < <("$PY" -c 'import glob, os, mediapipe
d = os.path.dirname(mediapipe.__file__)
print(glob.glob(os.path.join(d, "python", "_framework_bindings*.so"))[0],
      os.path.join(d, "modules", "pose_detection", "pose_detection.tflite"),
      os.path.join(d, "modules", "pose_landmark", "pose_landmark_full.tflite"))')

# --- the ground truth tracer, then the recording it watches
RESIZE=_ZN6tflite22ResizableAlignedBuffer6ResizeEm
BUILD_FB=_ZN6tflite4impl15FlatBufferModel15BuildFromBufferEPKcmPNS_13ErrorReporterE
VBUILD_FB=_ZN6tflite4impl15FlatBufferModel24VerifyAndBuildFromBufferEPKcmPNS_14TfLiteVerifierEPNS_13ErrorReporterE
# the two builders return a std::unique_ptr: arg0 is where, the buffer and length follow
bpftrace -q -e "BEGIN { printf(\"ready\n\"); }
uprobe:$SO:$RESIZE { @t[tid] = arg0; @s[tid] = arg1; }
uretprobe:$SO:$RESIZE /@s[tid]/ { \$p = (uint64 *)@t[tid];
	printf(\"arena %d %lx %lu\n\", pid, *(\$p + 1), @s[tid]); delete(@s[tid]); }
uprobe:$SO:$BUILD_FB { printf(\"model %d %lx %lu\n\", pid, arg1, arg2); }
uprobe:$SO:$VBUILD_FB { printf(\"model %d %lx %lu\n\", pid, arg1, arg2); }" \
	>"$TMP/bt.out" 2>"$TMP/bt.err" &
BT=$!
for _ in $(seq 300); do grep -q '^ready' "$TMP/bt.out" && break; sleep 0.1; done
MSG="$(tail -3 "$TMP/bt.err")"
check "bpftrace's uprobes on MediaPipe's TFLite attached" grep -q '^ready' "$TMP/bt.out"

T=$TMP/pose.trace
"$AP" record -o "$T" -- "$PY" tests/mediapipe/pose.py --frames "$FRAMES" \
	>"$TMP/rec.out" 2>"$TMP/rec.err"
rc=$?
kill -INT "$BT" 2>/dev/null
wait "$BT" 2>/dev/null
MSG="exit $rc: $(grep -v '^W0000' "$TMP/rec.err" | tail -3)"
check "record of the Pose solution, no option: exit 0" [ "$rc" = 0 ]
[ "$rc" = 0 ] || exit 0
MSG="$(grep 'run probe' "$TMP/rec.err")"
check "record found the run probe in the statically linked TFLite by itself" \
	grep -q "run probe: .*_framework_bindings.*:_ZN6tflite4impl11Interpreter6InvokeEv (run entry point found automatically: C++ tflite::Interpreter::Invoke)" \
	"$TMP/rec.err"
found=$(sed -n "s/^frames $FRAMES found \([0-9]*\)$/\1/p" "$TMP/rec.out")
MSG="$(tail -1 "$TMP/rec.out")"
check "the fixture ran $FRAMES frames, a pose found in each (the landmark model ran)" \
	[ "$found" = "$FRAMES" ]

"$AP" report "$T" --json >"$TMP/plain.json" 2>"$TMP/plain.err"
pid=$(j "$TMP/plain.json" "d['pid']")
grep "^arena $pid " "$TMP/bt.out" | sort -u >"$TMP/arenas"
grep "^model $pid " "$TMP/bt.out" | sort -u >"$TMP/bufs"
MSG="$(cat "$TMP/bt.out" | head -8)"
check "ground truth: TFLite sized two arenas and was handed two model buffers in pid $pid" \
	sh -c '[ "$(wc -l <"$1")" = 2 ] && [ "$(wc -l <"$2")" = 2 ]' _ "$TMP/arenas" "$TMP/bufs"

# --- the runs, with no option: each model's invokes, as the fixture ran them
r=$(j "$TMP/plain.json" "(d['runs'], d['runs_begun'])" | tr -d '(),')
MSG="report: $r; the fixture: $FRAMES frames, $found poses"
check "report, no option: runs = frames + poses, all begun runs completed" \
	[ "$r" = "$((FRAMES + found)) $((FRAMES + found))" ]

# --- each model's plan against the arena TFLite sized (XNNPACK, MediaPipe's CPU path)
for m in "$DET" "$LMK"; do
	"$AP" plan "$m" --delegate xnnpack --json >"$TMP/plan.json" 2>/dev/null
	want=$(j "$TMP/plan.json" "d['tflite_bytes']")
	MSG="plan $want; TFLite's: $(cut -d' ' -f4 "$TMP/arenas" | tr '\n' ' ')"
	check "plan of $(basename "$m"): the TFLite arena beside XNNPACK is the size TFLite asked" \
		grep -q " $want\$" "$TMP/arenas"
done

# --- the two models: runs by interpreter, each arena where TFLite put it
"$AP" report "$T" --plan "$DET" --plan "$LMK" --json >"$TMP/two.json" 2>"$TMP/two.err"
rc=$?
MSG="exit $rc: $(head -2 "$TMP/two.err")"
check "report --plan DETECTOR --plan LANDMARK: exit 0" [ "$rc" = 0 ]
want=("$FRAMES" "$found")
for k in 0 1; do
	read -r base bytes < <(j "$TMP/two.json" "'%x %d' % (d['models'][$k]['arena_base'] or 0,
		d['models'][$k]['arena_bytes'])")
	MSG="report: $base $bytes; TFLite's: $(cut -d' ' -f3,4 "$TMP/arenas" | tr '\n' ' ')"
	check "model $((k + 1)): its arena is the one TFLite sized (data pointer and size)" \
		grep -q "^arena $pid $base $bytes\$" "$TMP/arenas"
	r=$(j "$TMP/two.json" "(d['models'][$k]['runs'], d['models'][$k]['plan_matches'])" |
		tr -d '(),')
	MSG="$r (want ${want[$k]} True)"
	check "model $((k + 1)): its runs are its interpreter's (${want[$k]}), the plan matches" \
		[ "$r" = "${want[$k]} True" ]
done

# --- the weights: read into memory, in a buffer grown to hold them (docs/mediapipe.md)
for k in 0 1; do
	m=$(j "$TMP/two.json" "d['models'][$k]['model']")
	size=$(stat -c %s "$m")
	read -r held grown base bytes < <(j "$TMP/two.json" "'%s %s %x %d' % (
		d['models'][$k]['weights_held'], d['models'][$k]['weights_copy_grown'],
		d['models'][$k]['weights_copy_base'] or 0, d['models'][$k]['weights_copy_bytes'])")
	buf=$(awk -v n="$size" '$4 == n { print $3 }' "$TMP/bufs")
	MSG="report: $held grown $grown at $base, $bytes bytes; TFLite built it from ${buf:-?} ($size bytes)"
	check "model $((k + 1)): its weights a copy, the block that holds the bytes TFLite was handed" \
		python3 -c 'import sys
held, grown, base, n, buf, size = sys.argv[1:7]
b, p = int(base, 16), int(buf or "0", 16)
sys.exit(not (held == "copy" and grown == "True" and b <= p and
              p + int(size) <= b + int(n)))' "$held" "$grown" "$base" "$bytes" "$buf" "$size"
done
"$AP" report "$T" --plan "$DET" --plan "$LMK" >"$TMP/two.txt" 2>/dev/null
MSG="$(grep -E '^model [12] ' "$TMP/two.txt" | cut -c1-160)"
check "text: a line per model in the summary, each with its runs and its weights a copy" \
	sh -c '[ "$(grep -c "^model [12] .*: $2 runs .*arena as planned.*its weights a copy in anonymous memory" "$1")" = 2 ]' \
	_ "$TMP/two.txt" "$FRAMES"
