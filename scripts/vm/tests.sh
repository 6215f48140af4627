#!/bin/sh
# The VM suite's guest side (busybox sh), run by scripts/vm/init as root in the guest's
# root cgroup. It runs each test command as a section (capture, scripts/vm/lib.sh);
# scripts/vm/check.py (on the host) judges the sections; cg_check prints its own
# PASS:/FAIL: lines. /ap/vm.conf (written by scripts/vmtest) sets KERNEL, PEAK
# (resettable|readonly), RUNS and OTHER_BTF (the kernel whose BTF /ap/other.btf is).
. /ap/vm.conf
. /ap/scripts/vm/lib.sh
AP=/ap/build/arenaprof
MI=/ap/build/mininfer
MV2=/ap/tests/models/mobilenet_v2_1.0_224_quant.tflite
CG=/sys/fs/cgroup

# 7. dma-bufs (docs/dmabuf.md): the fixture's DMA-heap and udmabuf buffers, one named,
#    one mapped in part, one passed to its child, freed in steps, two living for less than
#    a sample, recorded with their export and release events; the report's
#    figures against what the fixture printed (scripts/vm/check.py, judge_dmabuf). A
#    kernel without the exporters (6.1) shows the fallback: the fixture exits 77 and the
#    report of a process without dma-bufs has no dma-buf part. Run alone with ONLY=dmabuf.
section_dmabuf() {
	DF=/ap/build/fixtures/dmabuf_fixture
	capture dmabuf_env sh -c "ls -l /dev/dma_heap/ /dev/udmabuf; grep -i cma /proc/meminfo; true"
	capture dmabuf_rec $AP record -o /tmp/dmabuf.trace -- $DF
	capture dmabuf_json $AP report /tmp/dmabuf.trace --json
	capture dmabuf_text $AP report /tmp/dmabuf.trace
	capture dmabuf_om $AP report /tmp/dmabuf.trace --format openmetrics
	# the trace itself, for the host's own test of it (tests/fixtures/trace/dmabuf-K.*)
	capture dmabuf_trace sh -c "gzip -c /tmp/dmabuf.trace | base64"
	capture nodmabuf_rec $AP record -o /tmp/nodmabuf.trace -- $MI $MV2 --runs 1
	capture nodmabuf_json $AP report /tmp/nodmabuf.trace --json
	capture nodmabuf_text $AP report /tmp/nodmabuf.trace
	capture dmabuf_check $AP check --json
}

echo "INFO kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo) mem $(awk '/MemTotal/ { print $2 }' /proc/meminfo) kB"
echo "INFO cgroup.controllers $(cat $CG/cgroup.controllers)"
if [ "${ONLY:-}" = dmabuf ]; then
	section_dmabuf
	exit 0
fi
capture env sh -c "cat $CG/cgroup.controllers; ls -l $CG/cgroup.procs /proc/pressure/memory; cat /proc/pressure/memory"

# 1. memory.peak through a held fd (6.12) / reset unsupported and a fresh cgroup (6.1);
#    a cgroup removed under a session and under a PSI trigger
capture cg_check /ap/build/fixtures/cg_check "$CG" "$PEAK"

# 2. OOM: a 101 MiB arena (MobileNet v2 planned as float32, tensors x16) under 64M
OOMW="$MI $MV2 --as-dtype float32 --scale 16 --runs 1"
capture oom_json $AP run --memory-max 64M --json -- $OOMW
capture oom_text $AP run --memory-max 64M -- $OOMW
capture fits_json $AP run --memory-max 512M --memory-high auto --json -- $OOMW

# 3 and 4. memory.high below the working set (a 12.6 MiB arena, MobileNet v2 x8, runs
#    re-reading the 3.4 MiB of weights): high events, no OOM kill, paid in reclaim,
#    pressure; PSI triggers armed and waited on
HIGHW="$MI $MV2 --scale 8 --runs $HIGH_RUNS"
capture high_json $AP run --memory-high "$HIGH" --memory-max 512M \
	--psi-trigger 'some 50000 1000000' --psi-trigger 'full 50000 1000000' --json -- $HIGHW
capture high_text $AP run --memory-high "$HIGH" --memory-max 512M \
	--psi-trigger 'some 50000 1000000' -- $HIGHW
capture min_weights $AP run --memory-min weights --plan "$MV2" --repeat 2 --json -- \
	$MI $MV2 --runs 1
capture tiny $AP run --json -- true
capture psi_bad $AP run --psi-trigger 'some 100 100' -- true
capture not_cgroup $AP run --cgroup-parent /tmp -- true
mkdir -p $CG/busy && echo "+memory" > $CG/cgroup.subtree_control
sleep 60 & busy=$!
echo $busy > $CG/busy/cgroup.procs
mkdir -p $CG/busy/inner
capture busy_parent $AP run --cgroup-parent $CG/busy -- true
kill $busy
wait $busy 2>/dev/null
rmdir $CG/busy/inner $CG/busy
capture exec_fail $AP run -- /nonexistent/command
capture interrupt sh -c "$AP run -- sleep 30 & p=\$!; sleep 1; kill -INT \$p; wait \$p"
capture cg_left sh -c "ls -d $CG/arenaprof-run-* $CG/cg_check.* 2>/dev/null; true"

# 5. first-touch pages with each fault source, against the truth computed here; auto mode
capture truth $MI --truth $MV2 --runs "$RUNS"
for m in fentry tp perf; do
	capture "rec_$m" $AP record --probe $m -o /tmp/$m.trace --run-probe $MI:mininfer_invoke \
		--op-probe $MI:mininfer_op:0 -- $MI $MV2 --runs "$RUNS"
	capture "rep_$m" $AP report /tmp/$m.trace --plan $MV2 --json --pages
done
capture rec_auto $AP record -o /tmp/auto.trace -- $MI $MV2 --runs 1
capture rep_auto $AP report /tmp/auto.trace --plan $MV2 --json

# 6. a kernel without /sys/kernel/btf/vmlinux: the file hidden under a tmpfs, its copy as
#    --btf FILE (a raw BTF of this very kernel, as BTFHub's are) and the other kernel's BTF
#    (/ap/other.btf, cut from its image by scripts/vmtest) as a wrong one. The kernel keeps
#    its BTF inside: this tests the relocation against the file, not a kernel without BTF.
BTFS=/sys/kernel/btf
if cp $BTFS/vmlinux /tmp/vmlinux.btf && mount -t tmpfs tmpfs $BTFS; then
	# none of libbpf's other vmlinux locations either (btf__load_vmlinux_btf)
	r=$(uname -r)
	capture nobtf_paths sh -c "ls -d $BTFS/vmlinux /boot/vmlinux-$r /lib/modules/$r/vmlinux-$r \
		/lib/modules/$r/build/vmlinux /usr/lib/modules/$r/kernel/vmlinux \
		/usr/lib/debug/boot/vmlinux-$r /usr/lib/debug/boot/vmlinux-$r.debug \
		/usr/lib/debug/lib/modules/$r/vmlinux 2>/dev/null; true"
	capture nobtf_rec $AP record -o /tmp/nobtf.trace -- $MI $MV2 --runs 1
	capture nobtf_check $AP check --json
	capture btf_truth $MI --truth $MV2 --runs 2
	capture btf_rec $AP record --btf /tmp/vmlinux.btf -o /tmp/btf.trace \
		--run-probe $MI:mininfer_invoke --op-probe $MI:mininfer_op:0 -- $MI $MV2 --runs 2
	capture btf_rep $AP report /tmp/btf.trace --plan $MV2 --json --pages
	capture btf_check $AP check --btf /tmp/vmlinux.btf --json
	# the environment's path takes the option's from here on (the host's test_check.sh
	# traces mininfer through it too): a short record, and check
	capture btfenv_rec env ARENAPROF_BTF=/tmp/vmlinux.btf $AP record -o /tmp/btfenv.trace \
		-- true
	capture btfenv_check env ARENAPROF_BTF=/tmp/vmlinux.btf $AP check --json
	if [ -s /ap/other.btf ]; then
		echo "INFO other_btf ${OTHER_BTF:-?}"
		capture btf_wrong $AP record --btf /ap/other.btf -o /tmp/wrong.trace -- \
			$MI $MV2 --runs 1
	fi
	umount $BTFS
else
	capture nobtf_hide sh -c "echo cannot copy and hide $BTFS/vmlinux >&2; exit 1"
fi

# 8. report --budget from memory.peak (issue 27): record run from a child cgroup, its
#    target writing 32 MiB to a file in the initramfs (page cache charged to the cgroup,
#    in no VmHWM) before it runs mininfer, so the cgroup's peak decides; the cgroup's own
#    memory.peak, read after, bounds what the trace sampled
echo "+memory" > $CG/cgroup.subtree_control
mkdir -p $CG/budget
capture budget_rec sh -c "echo \$\$ > $CG/budget/cgroup.procs && exec $AP record \
	-o /tmp/budget.trace -- sh -c 'dd if=/dev/zero of=/tmp/blob bs=1M count=32 \
	2>/dev/null && exec $MI $MV2 --runs 2'"
capture budget_cgpeak cat $CG/budget/memory.peak
capture budget_json $AP report /tmp/budget.trace --budget 28M --json
rm -f /tmp/blob
rmdir $CG/budget

section_dmabuf
