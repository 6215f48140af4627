#!/bin/sh
# The arm64 LiteRT suite's guest side (scripts/vmtest --arch arm64 --litert; busybox sh):
# a real LiteRT, Debian's arm64 python3.11 with the ai-edge-litert 2.3.0 and numpy aarch64
# wheels, runs scripts/litert_run.py on MobileNet v2 int8 with delegate none under
# arenaprof record, with no marker of ours: record must find LiteRT's invoke in the wheel
# and the arena through its allocation probe. litert_run.py --print-arena prints LiteRT's
# own arena base and size (read from its ArenaPlanner by tests/litert/litert_plan.py): the
# ground truth scripts/vm/check.py judges the report against.
. /ap/vm.conf
. /ap/scripts/vm/lib.sh
AP=/ap/build/arenaprof
MV2=/ap/tests/models/mobilenet_v2_1.0_224_quant.tflite
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LITERT_RUN_TOOLS=/ap/tests/litert

echo "INFO kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo) mem $(awk '/MemTotal/ { print $2 }' /proc/meminfo) kB"
capture python python3 -E -s -c 'import sys, numpy, ai_edge_litert; print(sys.version.split()[0], numpy.__version__)'
# record stops recording after LITERT_RUNS invokes; the workload runs its 5 more
capture litert_record $AP record -o /tmp/litert.trace --runs "$LITERT_RUNS" -- \
	python3 -E -s /ap/scripts/litert_run.py $MV2 --runs $((LITERT_RUNS + 5)) \
	--delegate none --print-arena
capture litert_json $AP report /tmp/litert.trace --plan $MV2 --json
capture litert_text $AP report /tmp/litert.trace --plan $MV2
# CompiledModel on the default path (run_by_index): every run counted
capture litert_compiled $AP record -o /tmp/compiled.trace --runs "$LITERT_RUNS" -- \
	python3 -E -s /ap/scripts/litert_run.py $MV2 --runs $((LITERT_RUNS + 5)) \
	--delegate xnnpack --api compiled
capture litert_compiled_json $AP report /tmp/compiled.trace --plan $MV2 --json
# the aarch64 wheel's CONV_2D is kGenericOptimized: at 4 threads a float CONV_2D takes an
# im2col where x86-64 takes hwcn_weights. LiteRT's plan against this build's (whose
# default --arch is arm64), judged by scripts/vm/check.py with tests/litert/compare_plan.py
for m in gen_float16_weights face_detection_short_range; do
	capture "lplan_$m" python3 -E -s /ap/tests/litert/litert_plan.py --threads 4 \
		/ap/tests/models/$m.tflite
	capture "aplan_$m" $AP plan --delegate none /ap/tests/models/$m.tflite --threads 4 --csv
	capture "apjson_$m" $AP plan --delegate none /ap/tests/models/$m.tflite --threads 4 --json
done
