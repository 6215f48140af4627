#!/bin/sh
# The guest side of scripts/vm/xnn-truth (busybox sh): what XNNPACK sees of this CPU (the
# MIDR and HWCAPs in /proc/cpuinfo) and the live bytes of XNNPACK's allocator for one model,
# counted by tests/litert/xnnpack/xnn_preload.so (the blocks after invoke 1 dumped too).
. /ap/vm.conf
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
echo "INFO kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo)"
grep -m 6 -E '^(Features|CPU implementer|CPU architecture|CPU variant|CPU part|CPU revision)' \
	/proc/cpuinfo | sed 's/^/CPUINFO /'
X=/ap/tests/litert/xnnpack
LD_PRELOAD=$X/xnn_preload.so XNN_ORACLE_DUMP=3 XNN_ORACLE_OUT=/tmp/oracle.out \
	python3 -E -s $X/xnn_child.py "$MODEL" --mode "$MODE" > /tmp/child.out 2>&1
echo "CHILD rc $?"
sed 's/^/CHILD /' /tmp/child.out | tail -20
cat /tmp/oracle.out
