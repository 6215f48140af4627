#!/usr/bin/env bash
# The default path's model on arm64, against the runtime (issue 24): XNNPACK's allocator
# measured in the arm64 guest (scripts/vm/xnn-truth: Debian's arm64 kernel under qemu TCG
# with -cpu cortex-a72 and -cpu cortex-a76, the aarch64 wheel of ai-edge-litert 2.3.0, an
# in-process oracle of XNNPACK's default allocator; the Interpreter, one thread) after the
# first invoke, for MobileNet v2, DeepLab v3 and face detection, against what
# `arenaprof plan --cpu CPU --json` computes on this host for that CPU: the live bytes
# to the byte (the floor, 2 % / 16 KiB, is said beside). One boot a model and CPU: about
# 20 s each on a 2-vCPU host. A missing guest piece is a FAIL, never a skip.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

models=(mobilenet_v2_1.0_224_quant deeplabv3_mnv2_dm05_pascal_quant face_detection_short_range)
for cpu in ${XNN_ARM64_CPUS:-cortex-a72 cortex-a76}; do
	paths=()
	for m in "${models[@]}"; do paths+=("$MODELS/$m.tflite"); done
	scripts/vm/xnn-truth --cpu "$cpu" --out "$TMP/vm" "${paths[@]}" >"$TMP/$cpu.out" \
		2>"$TMP/$cpu.err"
	grep '^FAIL' "$TMP/$cpu.out"
	for m in "${models[@]}"; do
		live=$(awk -v c="$cpu" -v m="$m" '$1 == "XNNTRUTH" && $2 == c && $3 == m { print $5 }' \
			"$TMP/$cpu.out")
		if ! [[ $live =~ ^[0-9]+$ ]]; then
			fail "arm64 $cpu $m: the guest's measurement" \
				"$(tail -3 "$TMP/$cpu.err" | tr '\n' ' ')"
			continue
		fi
		got=$("$ARENAPROF" plan --cpu "$cpu" --json "$MODELS/$m.tflite" 2>"$TMP/plan.err" |
			python3 -c 'import json, sys; print(json.load(sys.stdin)["xnnpack"]["total_bytes"])')
		if ! [[ $got =~ ^[0-9]+$ ]]; then
			fail "arm64 $cpu $m: plan --cpu $cpu --json" "$(head -1 "$TMP/plan.err")"
			continue
		fi
		MSG="plan says $got, XNNPACK's allocator held $live ($((got - live)) B; floor 2 %)"
		check "arm64 $cpu $m: total_bytes $got equals XNNPACK's allocator in the guest" \
			[ "$got" = "$live" ]
	done
done
