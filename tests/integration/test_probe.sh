#!/usr/bin/env bash
# The fault source (bpf/arenaprof.bpf.c through the probe API), with the touch fixture
# whose first touches are known exactly: every method this host allows, the markers,
# drops on a tiny ring buffer, the method choice, and the ELF symbol lookups.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

DRV=$BUILD/fixtures/probe_driver
TOUCH=$BUILD/fixtures/touch
PAGES=4096
PER_OP=64
RUNS=2
OPS=$(( (PAGES + PER_OP - 1) / PER_OP * RUNS ))

if [ "$(id -u)" -ne 0 ]; then
	skip "probe" "needs root for BPF"
	exit 0
fi
for b in "$DRV" "$TOUCH"; do
	if [ ! -x "$b" ]; then
		fail "probe fixtures built" "$b missing (make $b)"
		exit 0
	fi
done

# get OUTPUT LINE-PREFIX KEY: the value of KEY=... on the line starting with LINE-PREFIX
get() {
	printf '%s\n' "$1" | awk -v p="$2 " -v k="$3" '
		index($0, p) == 1 { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) {
			print substr($i, length(k) + 2); exit } }'
}
# eq NAME OUTPUT PREFIX KEY WANT
eq() {
	local v; v=$(get "$2" "$3" "$4")
	MSG="$3 $4=$v, want $5" check "$1" test "$v" = "$5"
}

# A file on a disk file system, so POSIX_FADV_DONTNEED really evicts it: major faults.
# On tmpfs/ramfs (a VM's initramfs) nothing can be evicted: no major-fault checks there.
FILE=$TMP/weights.bin
dd if=/dev/urandom of="$FILE" bs=4096 count=1024 conv=fsync status=none
case $(stat -f -c %T "$FILE") in
tmpfs | ramfs) evictable=false ;;
*) evictable=true ;;
esac
# major_check METHOD OUTPUT: the evicted file's first reads are major faults
major_check() {
	local mj
	if ! $evictable; then
		skip "$1: major faults on an evicted file" "$FILE is on $(stat -f -c %T "$FILE")"
		return
	fi
	mj=$(get "$2" "range file" major)
	MSG="major=$mj" check "$1: evicted file gives major faults" test "${mj:-0}" -gt 0
}

# Which methods this host allows; a refused fentry is a named skip, never silent.
methods=""
for m in tp fentry perf; do
	out=$("$DRV" -S "$m")
	if [ "$out" = "supported $m" ]; then
		methods="$methods $m"
		pass "$m: supported here"
		continue
	fi
	why=${out#unsupported $m: }
	if [ "$m" = fentry ]; then
		MSG="reason: $why" check "fentry: refusal names its cause (EPERM)" \
			grep -q EPERM <<<"$why"
		skip "fentry" "$why (tested in the VM suite)"
		# forced, it fails with that one-line reason and runs nothing
		out=$("$DRV" -m fentry -- "$TOUCH" -n 1 2>/dev/null); rc=$?
		MSG="rc=$rc, output: $out" check "fentry forced: fails with the reason" \
			test "$rc" -ne 0 -a "$out" = "error: $why"
	elif [ "$m" = tp ] && [ "$(uname -m)" != x86_64 ]; then
		skip "tp" "$why (x86 only)"
	else
		fail "$m: supported here" "$why"
	fi
done

# auto takes the first method that works, in the order tp, fentry, perf
want=$(echo $methods | cut -d' ' -f1)
out=$("$DRV" -m auto -- "$TOUCH" -n 16 2>&1)
first=$(printf '%s\n' "$out" | head -n 1)
MSG="got: $first" check "auto picks ${want:-nothing} here" test "$first" = "method $want"

for m in $methods; do
	out=$("$DRV" -m "$m" -r "$TOUCH:touch_run" -o "$TOUCH:touch_op:0" -- \
		"$TOUCH" -n "$PAGES" -k "$PER_OP" -r "$RUNS" -f "$FILE" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^(method|counters|faults|markers|range) ' |
		sed "s/^/# $m: /"
	MSG="rc=$rc: $(printf '%s\n' "$out" | tail -n 3)" check "$m: fixture ran" test "$rc" -eq 0
	first=$(printf '%s\n' "$out" | head -n 1)
	MSG="got: $first" check "$m: forced method used" test "$first" = "method $m"
	eq "$m: no drops" "$out" counters ringbuf_drops 0
	eq "$m: every page of the region faults once" "$out" "range anon" faults "$PAGES"
	eq "$m: first-touched pages = $PAGES exactly" "$out" "range anon" distinct_pages "$PAGES"
	eq "$m: region faults are on an anonymous vma" "$out" "range anon" anon "$PAGES"
	eq "$m: region faults carry the region's vma bounds" "$out" "range anon" vma_exact "$PAGES"
	eq "$m: region faults are in run 0" "$out" "range anon" run0 "$PAGES"
	eq "$m: region faults carry the current op" "$out" "range anon" op_match "$PAGES"
	eq "$m: run begins" "$out" markers run_begin "$RUNS"
	eq "$m: run ends" "$out" markers run_end "$RUNS"
	eq "$m: op begins" "$out" markers op_begin "$OPS"
	eq "$m: op ends" "$out" markers op_end "$OPS"
	# nothing unaccounted: every record written arrived (no drops above)
	ev=$(get "$out" counters events)
	got=$(( $(get "$out" faults total) + $(get "$out" markers run_begin) + \
		$(get "$out" markers run_end) + $(get "$out" markers op_begin) + \
		$(get "$out" markers op_end) ))
	MSG="counter $ev, received $got" check "$m: events counter = records received" \
		test "$ev" = "$got"
	vu=$(get "$out" faults vma_unknown)
	MSG="vma_unknown=$vu vma_misses=$(get "$out" counters vma_misses)" \
		check "$m: vma misses counted" test "$vu" = "$(get "$out" counters vma_misses)"
	# the file: read faults on the file's vma (fault-around maps several pages per fault)
	ff=$(get "$out" "range file" faults)
	MSG="file faults=$ff" check "$m: file reads fault" test "${ff:-0}" -gt 0
	eq "$m: file faults are on the file's vma" "$out" "range file" file "$ff"
	eq "$m: file faults carry the file's vma bounds" "$out" "range file" vma_exact "$ff"
	eq "$m: file faults outside any op" "$out" "range file" op_match "$ff"
	eq "$m: file faults are reads" "$out" "range file" write 0
	case $m in
	tp)
		eq "tp: reports writes" "$out" "range anon" write "$PAGES"
		eq "tp: does not claim major/minor" "$out" faults majmin_known 0
		;;
	fentry)
		eq "fentry: reports writes" "$out" "range anon" write "$PAGES"
		major_check fentry "$out"
		eq "fentry: first anonymous touches are minor" "$out" "range anon" major 0
		;;
	perf)
		eq "perf: tells major from minor on every fault" "$out" faults majmin_known \
			"$(get "$out" faults total)"
		major_check perf "$out"
		eq "perf: first anonymous touches are minor" "$out" "range anon" major 0
		eq "perf: every address known" "$out" faults addr_unknown 0
		;;
	esac

	# A one-page ring buffer under a storm, read only after the storm (-s): drops happen
	# and are counted, not silent.
	storm=65536
	out=$("$DRV" -m "$m" -b 4096 -s -- "$TOUCH" -n "$storm" 2>&1)
	printf '%s\n' "$out" | grep -E '^(counters|range) ' | sed "s/^/# $m tiny ring: /"
	dr=$(get "$out" counters ringbuf_drops)
	MSG="ringbuf_drops=$dr" check "$m: tiny ring reports drops" test "${dr:-0}" -gt 0
	got=$(get "$out" "range anon" faults)
	MSG="received $got + dropped $dr < $storm" \
		check "$m: tiny ring: received + dropped covers the storm" \
		test $(( ${got:-0} + ${dr:-0} )) -ge "$storm"
done

# Symbols: uprobe offsets and LiteRT's invoke entry point.
# file_offset ELF SYMBOL: "offset 0x..." computed from readelf's symbol and LOAD segments
file_offset() {
	local va off vaddr fsz t
	va=$(readelf -Ws "$1" | awk -v s="$2" '$8 == s { print $2; exit }')
	[ -n "$va" ] || return
	va=$((16#$va))
	while read -r t off vaddr _ fsz _; do
		[ "$t" = LOAD ] || continue
		if [ "$va" -ge $((vaddr)) ] && [ "$va" -lt $((vaddr + fsz)) ]; then
			printf 'offset %#x\n' $((va - vaddr + off))
			return
		fi
	done < <(readelf -lW "$1")
}
out=$("$DRV" -L "$TOUCH:touch_op")
want=$(file_offset "$TOUCH" touch_op)
MSG="got '$out', want '$want'" check "symbols: touch_op file offset" test "$out" = "$want"
out=$("$DRV" -L "$TOUCH:no_such_symbol")
MSG="got: $out" check "symbols: missing symbol is an error" grep -q "no function symbol" <<<"$out"
wheel=$(compgen -G \
	'/opt/arenaprof-venv/lib/python3*/site-packages/ai_edge_litert/libpywrap_litert_common.so' |
	head -n 1)
if [ -n "$wheel" ]; then
	# every API in the wheel: the Python wrapper and CompiledModel's Run; not C++
	# Interpreter::Invoke (that Run is its caller), xnn_invoke_runtime (inside them) nor
	# CompiledModel's C API (its Run is there)
	out=$("$DRV" -I "$wheel" | sort | tr '\n' ' ')
	want="invoke _ZN20LiteRtCompiledModelT3RunESt17basic_string_viewIcSt11char_traitsIcEERKSt6vectorIP19LiteRtTensorBufferTSaIS6_EESA_RbP14LiteRtOptionsTPK20LiteRtSchedulingInfo invoke _ZN6tflite19interpreter_wrapper18InterpreterWrapper6InvokeEi "
	MSG="got: $out" check "symbols: the LiteRT wheel's run entry points, every API" \
		test "$out" = "$want"
	inv=_ZN6tflite19interpreter_wrapper18InterpreterWrapper6InvokeEi
	# a local .symtab symbol in a library whose text segment's vaddr != file offset
	sym=_ZN6tflite4impl11Interpreter6InvokeEv
	want=$(file_offset "$wheel" $sym)
	out=$("$DRV" -L "$wheel:$sym")
	MSG="got '$out', want '$want'" check "symbols: wheel Invoke file offset" \
		test "$out" = "$want"
	# libLiteRt.so is stripped to its exports: CompiledModel's C API, no interpreter
	out=$("$DRV" -I "$(dirname "$wheel")/libLiteRt.so" | sort | tr '\n' ' ')
	want="invoke LiteRtRunCompiledModel invoke LiteRtRunCompiledModelAsync invoke LiteRtRunCompiledModelAsyncWithOptions invoke LiteRtRunCompiledModelAsyncWithSchedulingInfo invoke LiteRtRunCompiledModelWithOptions invoke LiteRtRunCompiledModelWithSchedulingInfo "
	MSG="got: $out" check "symbols: libLiteRt.so's entry points are CompiledModel's C API" \
		test "$out" = "$want"
	# end to end: a run marker on that entry counts the Python interpreter's invoke()s
	py=/opt/arenaprof-venv/bin/python3
	cat >"$TMP/invoke.py" <<'PY'
import sys
import numpy as np
from ai_edge_litert.interpreter import Interpreter
it = Interpreter(model_path=sys.argv[1])
it.allocate_tensors()
d = it.get_input_details()[0]
it.set_tensor(d["index"], np.zeros(d["shape"], dtype=d["dtype"]))
for _ in range(int(sys.argv[2])):
    it.invoke()
PY
	out=$("$DRV" -r "$wheel:$inv" -- "$py" "$TMP/invoke.py" \
		"$MODELS/mobilenet_v1_0.25_128_quant.tflite" 3 2>&1)
	eq "symbols: run marker on the wheel counts 3 invoke()s" "$out" markers run_begin 3
	eq "symbols: and their 3 returns" "$out" markers run_end 3
else
	skip "symbols: LiteRT wheel" "no ai_edge_litert in /opt/arenaprof-venv"
fi
