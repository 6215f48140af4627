#!/usr/bin/env bash
# Hostile inputs, each a regression test: inputs that are not regular files (a FIFO that
# would block a reader forever, /dev/zero that never ends) and numbers that would wrap or
# mean "no limit". Each must end within seconds with exit 2 and one line naming the cause.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

AP=$ARENAPROF
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
mkfifo "$TMP/fifo"

expect_refusal "report of a FIFO: refused, not blocked" 2 "not a regular file" "$AP" report "$TMP/fifo"
expect_refusal "report of /dev/zero: refused" 2 "not a regular file" "$AP" report /dev/zero
expect_refusal "heatmap of a FIFO: refused, not blocked" 2 "not a regular file" \
	"$AP" heatmap "$TMP/fifo" --plan "$MV2" -o "$TMP/h.svg"
expect_refusal "export of a FIFO: refused, not blocked" 2 "not a regular file" \
	"$AP" export "$TMP/fifo" --format json -o "$TMP/e.json"
expect_refusal "plan --import of a FIFO: refused, not blocked" 2 "not a regular file" \
	"$AP" plan --import "$TMP/fifo"
expect_refusal "plan --import /dev/zero: refused, not read until memory runs out" 2 \
	"not a regular file" "$AP" plan --import /dev/zero

expect_refusal "record -p 4294967297 (would wrap to pid 1): refused" 2 "bad value '4294967297'" \
	"$AP" record -o "$TMP/x.trace" -p 4294967297
expect_refusal "record --duration inf: refused" 2 "bad value 'inf'" \
	"$AP" record -o "$TMP/x.trace" --duration inf -- true
expect_refusal "record --duration 1e-12: refused" 2 "bad value '1e-12'" \
	"$AP" record -o "$TMP/x.trace" --duration 1e-12 -- true
expect_refusal "record --runs 99999999999999999999 (overflows): refused" 2 "bad value" \
	"$AP" record -o "$TMP/x.trace" --runs 99999999999999999999 -- true
expect_refusal "export --max-instants -1: refused" 2 "max-instants" \
	"$AP" export /dev/null --format chrome --max-instants -1 -o "$TMP/e.json"
expect_refusal "plan --threads 4294967297: refused" 2 "threads" "$AP" plan "$MV2" --threads 4294967297
# the plan fuzzer's model whose tensor shapes add up past 2^62 bytes (the profile's sums
# overflowed): refused, at the model reader now (a tensor over 2^56 bytes)
expect_refusal "plan of a model whose tensors add up past 2^62 bytes: refused" 2 \
	"would hold more than 2^56 bytes" \
	"$AP" plan tests/fuzz/regress/plan-tensor-bytes-overflow.tflite

# Sizes near 2^63 (tests/hostile/make_model.py writes the models): refused with one line
# naming the limit, never an exit 0 with offsets wrapped negative.
python3 tests/hostile/make_model.py huge-tensor "$TMP/huge.tflite"
python3 tests/hostile/make_model.py huge-sum "$TMP/hugesum.tflite"
expect_refusal "plan of a model with a 2^63-byte tensor: refused" 2 \
	"tensor 0 (huge) of type COMPLEX128 and shape \[536870912, 1073741824\] would hold more than 2^56 bytes" \
	"$AP" plan "$TMP/huge.tflite"
expect_refusal "plan --csv of that model: refused too" 2 "would hold more than 2^56" \
	"$AP" plan "$TMP/huge.tflite" --csv
expect_refusal "plan of two 2^56-byte tensors (the sum overflows the limit): refused" 2 \
	"sizes add up to more than 2^56 bytes" "$AP" plan "$TMP/hugesum.tflite"
csv_head='tensor,name,offset,size,first_node,last_node'
printf '%s\n0,a,9223372036854775000,700,0,1\n1,b,0,64,0,1\n' "$csv_head" >"$TMP/nearmax.csv"
expect_refusal "plan --import CSV with an offset near INT64_MAX: refused" 2 \
	"nearmax.csv:2: tensor 0: offset 9223372036854775000 + size 700 is beyond the limit" \
	"$AP" plan --import "$TMP/nearmax.csv"
printf '%s\n0,a,0,9223372036854775000,0,1\n' "$csv_head" >"$TMP/bigsize.csv"
expect_refusal "plan --import CSV with a size near INT64_MAX: refused" 2 \
	"bigsize.csv:2: tensor 0: size 9223372036854775000 is beyond the limit" \
	"$AP" plan --import "$TMP/bigsize.csv"
# 65 tensors of 2^50 bytes at offset 0: each fits, their breadth (2^56 + 2^50) does not
{ echo "$csv_head"; for i in $(seq 0 64); do echo "$i,t$i,0,1125899906842624,0,1"; done; } \
	>"$TMP/sum.csv"
expect_refusal "plan --import CSV whose sizes add up past 2^56: refused" 2 \
	"sum.csv:66: the tensors' sizes add up to more than 2^56" "$AP" plan --import "$TMP/sum.csv"
printf '(id=0): size=100, offset=9223372036854775000, first_used=0 last_used=1\n' >"$TMP/tflm.txt"
expect_refusal "plan --import TFLM plan with an offset near INT64_MAX: refused" 2 \
	"tflm.txt:1: id 0: offset 9223372036854775000 + size 100 is beyond" \
	"$AP" plan --import "$TMP/tflm.txt"
# the largest accepted: one tensor of exactly 2^56 bytes at offset 0 plans
printf '%s\n0,a,0,72057594037927936,0,1\n' "$csv_head" >"$TMP/atmax.csv"
out=$("$AP" plan --import "$TMP/atmax.csv" --json 2>&1)
MSG="$(printf '%s' "$out" | head -c 300)"
check "plan --import of one 2^56-byte tensor: accepted, arena 2^56" python3 -c \
	'import json,sys; sys.exit(json.loads(sys.argv[1])["arena_bytes"] != 1 << 56)' "$out"

# Kernel-added tensors bounded by the model's size (src/plan/litert/kernels.c): 130,000
# UNIDIRECTIONAL_SEQUENCE_LSTMs sharing one operator table (4 file bytes each, 12 tensors
# reserved by each Init) took 600 MB and 2.5 s; now refused at once. Just under the limit
# the plan is made, in memory under 64 MiB + 128 x the model's size.
# rss_lim KIB: a peak-RSS bound. Under the sanitized build (test_sanitize.sh sets
# ASAN_OPTIONS) ASan's shadow memory and quarantine count in the peak: the bounds hold for
# the plain build, and there get four times the room plus 256 MiB.
rss_lim() {
	if [ -n "${ASAN_OPTIONS:-}" ]; then echo $(($1 * 4 + 262144)); else echo "$1"; fi
}
# rss_run CMD...: sets rc, kb (peak RSS, KiB) and out (stderr)
rss_run() {
	local o
	o=$( { /usr/bin/time -f 'RSS %M' timeout 30 "$@" >/dev/null; } 2>&1)
	rc=$?
	kb=$(printf '%s\n' "$o" | sed -n 's/^RSS //p' | tail -1)
	out=$(printf '%s\n' "$o" | grep -v '^RSS\|^Command exited')
}
python3 tests/hostile/make_model.py ulstm-130000 "$TMP/ulstm.tflite"
size=$(stat -c %s "$TMP/ulstm.tflite")
rss_run "$AP" plan "$TMP/ulstm.tflite"
MSG="exit $rc, RSS ${kb:-?} KiB, model $size bytes: $out"
check "plan of 130,000 table-sharing LSTMs: refused, one line, RSS < 64 MiB + 128 x model" \
	sh -c '[ "$1" = 2 ] && [ -n "$2" ] && [ "$2" -lt "$5" ] &&
		[ "$(printf "%s\n" "$3" | wc -l)" = 1 ] &&
		printf "%s" "$3" | grep -q "kernels of a $4-byte model would add more than"' \
	_ "$rc" "$kb" "$out" "$size" "$(rss_lim $((65536 + 128 * size / 1024)))"
python3 tests/hostile/make_model.py ulstm-5700 "$TMP/ulstm-ok.tflite"
size=$(stat -c %s "$TMP/ulstm-ok.tflite")
rss_run "$AP" plan "$TMP/ulstm-ok.tflite"
MSG="exit $rc, RSS ${kb:-?} KiB, model $size bytes: $out"
check "plan of 5,700 table-sharing LSTMs (68,400 kernel tensors, under the limit): planned, RSS < 64 MiB + 128 x model" \
	sh -c '[ "$1" = 0 ] && [ -n "$2" ] && [ "$2" -lt "$3" ]' \
	_ "$rc" "$kb" "$(rss_lim $((65536 + 128 * size / 1024)))"
"$AP" plan --delegate none "$TMP/ulstm-ok.tflite" --csv >"$TMP/ulstm-ok.csv"
n=$(grep -c '<kernel tensor node=' "$TMP/ulstm-ok.csv")
MSG="$n kernel tensors"
check "...with every kernel tensor in the plan (12 per operator)" [ "$n" = 68400 ]

# A RESIDENT record with a 4 MiB all-ones bitmap over 128 GiB (2^25 pages) took 1.58 GB
# and 8 s: the bitmap is now kept as one. Every reader stays within 2 x the trace + 64 MiB,
# with a plan too (the correlation's per-page tables cover the plan's extent, not the
# 128 GiB mapping).
python3 tests/hostile/resident_trace.py "$TMP/res.trace" 128 4096
python3 tests/hostile/resident_trace.py "$TMP/res4.trace" 128 4096 4
for t in res res4; do
	size=$(stat -c %s "$TMP/$t.trace")
	lim=$(rss_lim $(( (2 * size) / 1024 + 65536 )))
	for cmd in "report --json" "report --pages" "export --format chrome -o $TMP/$t.json" \
		"report --json --plan $MV2" "export --format csv --plan $MV2 -o $TMP/$t.csv" \
		"heatmap --plan $MV2 --force --faults all -o $TMP/$t.hm.csv"; do
		# shellcheck disable=SC2086
		rss_run "$AP" ${cmd%% *} "$TMP/$t.trace" ${cmd#* }
		MSG="exit $rc, RSS ${kb:-?} KiB (limit $lim): $out"
		check "${cmd%% -o*} of a 128 GiB all-resident bitmap ($t): exit 0, RSS < 2 x trace + 64 MiB" \
			sh -c '[ "$1" = 0 ] && [ -n "$2" ] && [ "$2" -lt "$3" ]' _ "$rc" "$kb" "$lim"
	done
	out=$("$AP" report "$TMP/$t.trace" --json 2>&1)
	MSG="$(printf '%s' "$out" | head -c 400)"
	check "report of it ($t): 2^25 pages resident at attach, the fault on one is no first touch" \
		python3 -c 'import json,sys
d = json.loads(sys.argv[1])
m = [m for m in d["mappings"] if m["start"] == 0x7f0000000000][0]
sys.exit(not (m["resident_at_attach_pages"] == 1 << 25 and m["first_touch_pages"] == 0 and
	      d["faults_total"] == 1))' "$out"
done

# SIGPIPE: record's stderr closed early (| head) must not kill it before the trace ends
if [ "$(id -u)" = 0 ]; then
	# stderr is a pipe whose reader is closed before record starts: its very first
	# note meets EPIPE, every time (a '| head' would race with head's exit)
	python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=w))' \
		"$AP" record -o "$TMP/pipe.trace" --run-probe "$BUILD/mininfer:mininfer_invoke" -- \
		"$BUILD/mininfer" "$MV2" --runs 30
	out=$("$AP" report "$TMP/pipe.trace" --json 2>&1)
	MSG="$(printf '%s' "$out" | head -c 300)"
	check "record whose stderr pipe closes: the trace still ends cleanly, 30 runs" \
		python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(not (d["complete"] and d["runs"] == 30))' "$out"
else
	skip "record with a closed stderr pipe" "needs root (BPF)"
fi

# Record fields whose values would size arrays (tests/hostile/mutate_trace.py rewrites
# them and fixes the CRCs): no crash, and memory bounded by the trace, not by the value.
# bounded NAME TRACE CMD-ARGS...: exit 0 or 2, no signal, peak RSS under 256 MiB, 30 s
bounded() {
	local name=$1 t=$2 out rc kb
	shift 2
	out=$( { /usr/bin/time -f 'RSS %M' timeout 30 "$AP" "$1" "$t" "${@:2}" >/dev/null; } 2>&1)
	rc=$?
	kb=$(printf '%s\n' "$out" | sed -n 's/^RSS //p' | tail -1)
	MSG="exit $rc, peak RSS ${kb:-?} KiB: $(printf '%s\n' "$out" | grep -v '^RSS' | tail -2)"
	# a sanitizer's report (make SANITIZE=1, test_sanitize.sh) fails it too
	check "$name" sh -c '[ "$1" = 0 ] || [ "$1" = 2 ]; ok=$?; [ $ok = 0 ] && [ -n "$2" ] &&
		[ "$2" -lt 262144 ] && ! printf "%s" "$3" | grep -q "Sanitizer\|runtime error"' \
		_ "$rc" "$kb" "$out"
}
if [ "$(id -u)" = 0 ]; then
	"$AP" record -o "$TMP/base.trace" --run-probe "$BUILD/mininfer:mininfer_invoke" \
		--op-probe "$BUILD/mininfer:mininfer_op:0" -- "$BUILD/mininfer" "$MV2" --runs 3 \
		>/dev/null 2>&1
	# the format's second decoder (tests/hostile/unpack_trace.py, from the man page):
	# the trace with its PACKED records unpacked is larger and reads the same
	python3 tests/hostile/unpack_trace.py "$TMP/base.trace" "$TMP/plain.trace"
	"$AP" report "$TMP/base.trace" --json --plan "$MV2" >"$TMP/packed.json" 2>&1
	"$AP" report "$TMP/plain.trace" --json --plan "$MV2" >"$TMP/plain.json" 2>&1
	MSG="sizes $(stat -c %s "$TMP/base.trace") $(stat -c %s "$TMP/plain.trace"): $(head -c 200 "$TMP/plain.json")"
	check "a recorded trace packs its faults, and unpacked by a second decoder reads the same" \
		python3 -c 'import json,os,sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in a, b:
    del d["trace"]
sys.exit(not (a == b and a["faults_total"] > 0 and
              os.path.getsize(sys.argv[3]) < os.path.getsize(sys.argv[4])))' \
		"$TMP/packed.json" "$TMP/plain.json" "$TMP/base.trace" "$TMP/plain.trace"
	M=tests/hostile/mutate_trace.py
	python3 $M "$TMP/base.trace" "$TMP/max.trace" fault.run=2147483647 fault.op=2147483647
	python3 $M "$TMP/base.trace" "$TMP/big.trace" fault.run=1000000000 fault.op=1000000000
	python3 $M "$TMP/base.trace" "$TMP/runs.trace" run.run=268435455 op.op=268435455
	# every fault's vma 64 TiB long: the arena mapping the trace names is that large
	python3 $M "$TMP/base.trace" "$TMP/span.trace" fault.vm_span=70368744177664
	size=$(stat -c %s "$TMP/span.trace")
	lim=$(rss_lim $(( (2 * size) / 1024 + 65536 )))
	for cmd in "report --json --plan $MV2" "heatmap --plan $MV2 --force --faults all -o $TMP/s.csv" \
		"export --format chrome --plan $MV2 -o $TMP/s.json" \
		"export --format csv --plan $MV2 -o $TMP/s2.csv"; do
		# shellcheck disable=SC2086
		rss_run "$AP" ${cmd%% *} "$TMP/span.trace" ${cmd#* }
		MSG="exit $rc, RSS ${kb:-?} KiB (limit $lim): $out"
		# exit 0, or 2 from heatmap when the overlapping vmas leave no arena to draw
		check "${cmd%% -o*} of a trace whose vmas are 64 TiB long: exit 0 or 2, RSS < 2 x trace + 64 MiB" \
			sh -c '{ [ "$1" = 0 ] || [ "$1" = 2 ]; } && [ -n "$2" ] && [ "$2" -lt "$3" ]' _ \
			"$rc" "$kb" "$lim"
	done
	for t in max big runs; do
		bounded "report of a trace with run/op = huge values ($t)" "$TMP/$t.trace" report
		bounded "report --plan --json ($t)" "$TMP/$t.trace" report --plan "$MV2" --json
		bounded "heatmap --by run ($t)" "$TMP/$t.trace" heatmap --plan "$MV2" --by run \
			--force -o "$TMP/$t.svg"
		bounded "heatmap --faults all --by op ($t)" "$TMP/$t.trace" heatmap --plan "$MV2" \
			--faults all --force -o "$TMP/$t.csv"
		bounded "export chrome ($t)" "$TMP/$t.trace" export --format chrome --plan "$MV2" \
			-o "$TMP/$t.json"
	done

	# One damaged record in the middle (tests/hostile/corrupt_trace.py): report refuses
	# the trace; with --salvage it reports every other record, says what it skipped and
	# exits 1. Ground truth: exactly the damaged FAULT record is lost.
	faults=$("$AP" report "$TMP/base.trace" --json | python3 -c \
		'import json,sys; print(json.load(sys.stdin)["faults_total"])')
	for how in payload length; do
		read -r n at size < <(python3 tests/hostile/corrupt_trace.py "$TMP/base.trace" \
			"$TMP/bad-$how.trace" $how)
		if [ $how = payload ]; then
			expect_refusal "report of a trace with one bad crc: refused" 2 \
				"corrupt record at offset $at: crc mismatch (--salvage skips" \
				"$AP" report "$TMP/bad-$how.trace"
		fi
		out=$("$AP" report "$TMP/bad-$how.trace" --salvage --json 2>"$TMP/salv.err")
		rc=$?
		MSG="exit $rc; faults $faults ($n in the file), damaged record at $at ($size bytes): $(head -c 300 "$TMP/salv.err"); $(printf '%s' "$out" | head -c 200)"
		check "report --salvage, damaged $how: exit 1, every fault but one, $size bytes skipped" \
			python3 -c 'import json,sys
d = json.loads(sys.argv[1])
ok = (sys.argv[2] == "1" and d["faults_total"] == int(sys.argv[3]) - 1 and
      d["salvaged_bytes"] == int(sys.argv[4]) and d["salvaged_records"] == 1 and
      not d["complete"] and d["runs"] == 3)
sys.exit(not ok)' "$out" $rc "$faults" "$size"
		MSG="$(cat "$TMP/salv.err")"
		check "report --salvage, damaged $how: one line on stderr says what was skipped" \
			sh -c '[ "$(wc -l <"$1")" = 1 ] && grep -q "salvaged: $2 bytes skipped (about 1 records)" "$1"' \
			_ "$TMP/salv.err" "$size"
	done
	"$AP" report "$TMP/bad-payload.trace" --salvage >"$TMP/salv.txt" 2>/dev/null
	MSG="$(head -3 "$TMP/salv.txt")"
	check "report --salvage text: says what was skipped" \
		grep -q "^salvaged:  76 bytes skipped (about 1 records)" "$TMP/salv.txt"
	# heatmap and export: their second pass over the trace skips the same record
	"$AP" export "$TMP/base.trace" --format csv -o "$TMP/e0.csv" 2>/dev/null
	"$AP" export "$TMP/bad-payload.trace" --format csv -o "$TMP/e1.csv" --salvage \
		2>"$TMP/salv.err"
	rc=$?
	MSG="exit $rc, rows $(wc -l <"$TMP/e1.csv") of $(wc -l <"$TMP/e0.csv"): $(cat "$TMP/salv.err")"
	check "export --salvage csv: exit 1, one fault row less, says so" sh -c \
		'[ "$1" = 1 ] && [ $(($(wc -l <"$2") + 1)) = "$(wc -l <"$3")" ] &&
		grep -q "salvaged: 76 bytes skipped" "$4"' _ $rc "$TMP/e1.csv" "$TMP/e0.csv" "$TMP/salv.err"
	expect_refusal "export of the damaged trace without --salvage: refused" 2 \
		"crc mismatch (--salvage skips" "$AP" export "$TMP/bad-payload.trace" --format csv \
		-o "$TMP/e2.csv"
	"$AP" heatmap "$TMP/base.trace" --plan "$MV2" --faults all --force -o "$TMP/h0.csv" \
		2>"$TMP/h0.err"
	"$AP" heatmap "$TMP/bad-payload.trace" --plan "$MV2" --faults all --force \
		-o "$TMP/h1.csv" --salvage 2>"$TMP/salv.err"
	rc=$?
	MSG="exit $rc: $(cat "$TMP/h0.err" "$TMP/salv.err")"
	check "heatmap --salvage --faults all: exit 1, at most one fault less, says so" \
		python3 -c 'import csv, sys
def total(p):
	return sum(int(c) for row in list(csv.reader(open(p)))[1:] for c in row[2:] if c)
a, b = total(sys.argv[1]), total(sys.argv[2])
sys.exit(not (sys.argv[3] == "1" and a - 1 <= b <= a and
	      "salvaged: 76 bytes skipped" in open(sys.argv[4]).read()))' \
		"$TMP/h0.csv" "$TMP/h1.csv" $rc "$TMP/salv.err"
	out=$("$AP" report "$TMP/base.trace" --salvage --json 2>&1)
	rc=$?
	MSG="exit $rc: $(printf '%s' "$out" | head -c 200)"
	check "report --salvage of an intact trace: exit 0, nothing skipped" python3 -c \
		'import json,sys; d=json.loads(sys.argv[1]); sys.exit(not (sys.argv[2] == "0" and d["salvaged_bytes"] == 0 and d["complete"]))' \
		"$out" $rc
	# 20 MiB of noise in the middle: skipped in well under the timeout, memory flat
	python3 -c 'import os, sys
d = open(sys.argv[1], "rb").read()
half = len(d) // 2
off = 16
while True:	# the first record boundary past the middle
	ln = int.from_bytes(d[off + 4:off + 8], "little")
	if off >= half:
		break
	off += 12 + ln
open(sys.argv[2], "wb").write(d[:off] + os.urandom(20 << 20) + d[off:])' \
		"$TMP/base.trace" "$TMP/noise.trace"
	out=$( { /usr/bin/time -f 'RSS %M' timeout 30 "$AP" report "$TMP/noise.trace" --salvage \
		--json >"$TMP/noise.json"; } 2>&1)
	rc=$?
	kb=$(printf '%s\n' "$out" | sed -n 's/^RSS //p' | tail -1)
	MSG="exit $rc, RSS ${kb:-?} KiB: $out"
	check "report --salvage past 20 MiB of noise: every fault, 20 MiB skipped, RSS < 64 MiB" \
		python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
sys.exit(not (sys.argv[2] == "1" and int(sys.argv[3]) < int(sys.argv[5]) and
	      d["faults_total"] == int(sys.argv[4]) and d["salvaged_bytes"] == 20 << 20))' \
		"$TMP/noise.json" $rc "${kb:-999999}" "$faults" "$(rss_lim 65536)"
else
	skip "hostile record fields" "needs root to record the trace they are made from"
fi

# A trace naming a FIFO as the file of the mapping that holds an allocation's caller:
# report names the caller from that file's symbols, and opening the FIFO blocked forever.
if [ "$(id -u)" = 0 ]; then
	# the file of the first caller ("_IO_file_doallocate (libc.so.6)"), as mapped; a
	# recording on a loaded machine may see no caller, so up to three are made
	lib= tries=0
	while [ -z "$lib" ] && [ "$tries" -lt 3 ]; do
		tries=$((tries + 1))
		"$AP" record -o "$TMP/alloc.trace" -- "$BUILD/mininfer" \
			"$MODELS/split_concat.tflite" --runs 1 >/dev/null 2>&1
		lib=$("$AP" report "$TMP/alloc.trace" --json | python3 -c 'import json, os, sys
d = json.load(sys.stdin)
c = [x["caller"] for x in d.get("not_planned", {}).get("callers", []) if "(" in x["caller"]]
base = c[0].rsplit("(", 1)[1].rstrip(")") if c else None
print(next((m["path"] for m in d["mappings"] if base and os.path.basename(m["path"]) == base), ""))')
	done
	if [ -n "$lib" ]; then
		n=$(python3 tests/hostile/rename_path.py "$TMP/alloc.trace" "$TMP/fifolib.trace" \
			"$lib" "$TMP/fifo")
		out=$(timeout 10 "$AP" report "$TMP/fifolib.trace" 2>&1)
		rc=$?
		MSG="exit $rc, $n mappings of $lib renamed: $(printf '%s\n' "$out" | grep -m1 'fifo+')"
		check "report of a trace naming a FIFO as a library: not blocked, the caller named" \
			sh -c '[ "$1" = 0 ] && [ "$2" -gt 0 ] && printf "%s" "$3" | grep -q "fifo+0x"' \
			_ "$rc" "$n" "$out"
	else
		# make SANITIZE=1: mininfer's malloc is ASan's, which the probe does not see
		skip "report of a trace naming a FIFO as a library" "in $tries recordings mininfer made no allocation the probe names a caller for (under make SANITIZE=1 its allocator is not the C library's)"
	fi
else
	skip "report of a trace naming a FIFO as a library" "needs root to record the trace"
fi

# Traces the report fuzzer once failed on (tests/fuzz/regress/report-*, see
# tests/fuzz/run-fuzz), their crcs made right: each command the fuzzer drives ends bounded.
# The plan is the bundled model the trace names, as in tests/fuzz/fuzz_report.c.
for f in tests/fuzz/regress/report-*.aptrace; do
	[ -e "$f" ] || continue
	n=$(basename "$f" .aptrace)
	t=$TMP/$n.trace
	python3 tests/hostile/mutate_trace.py "$f" "$t"
	plan=
	for m in split_concat keras_lstm_mnist_ptq mobilenet_v1_0.25_128_quant \
		model_invoking_error; do
		grep -qa "$m" "$f" && plan=$MODELS/$m.tflite && break
	done
	if [ -z "$plan" ]; then
		bounded "fuzz regression $n: report" "$t" report
		bounded "fuzz regression $n: export csv" "$t" export --format csv -o "$TMP/$n.csv"
		continue
	fi
	bounded "fuzz regression $n: report --plan" "$t" report --plan "$plan"
	bounded "fuzz regression $n: report --json --pages" "$t" report --plan "$plan" --pages
	bounded "fuzz regression $n: heatmap" "$t" heatmap --plan "$plan" --force -o "$TMP/$n.svg"
	bounded "fuzz regression $n: heatmap --faults all --by run" "$t" heatmap --plan "$plan" \
		--force --faults all --by run -o "$TMP/$n.png"
	bounded "fuzz regression $n: export chrome" "$t" export --plan "$plan" --format chrome \
		-o "$TMP/$n.json"
	bounded "fuzz regression $n: export csv" "$t" export --plan "$plan" --format csv \
		-o "$TMP/$n.csv"
done

# Untrusted text on a terminal: a model path and a command line holding OSC 52 (clipboard
# write), ESC[2J (clear screen), BEL and a newline must come out as '?', never raw.
evil=$TMP/$(printf 'evil\033]52;c;SGVsbG8=\007\033[2J\nmodel.tflite')
cp "$MV2" "$evil"
# no_ctl NAME FILE: no ESC or BEL in FILE, and no line the names' newline started
no_ctl() {
	MSG="$(grep -c "$(printf '\033')" "$2") lines with ESC; lines starting a name's tail: $(grep -c '^model.tflite\|^x ' "$2")"
	check "$1" sh -c '! grep -q "$(printf "\033\\|\007")" "$1" && ! grep -q "^model.tflite\|^x " "$1" &&
		grep -q "evil?\]52;c;SGVsbG8=??\[2J?model.tflite" "$1"' _ "$2"
}
"$AP" plan "$evil" > "$TMP/plan.evil" 2>&1
no_ctl "plan of a model whose path holds terminal escapes: printed as '?'" "$TMP/plan.evil"
if [ "$(id -u)" = 0 ]; then
	"$AP" record -o "$TMP/evil.trace" -- "$BUILD/mininfer" "$evil" --runs 1 \
		"$(printf 'arg\033[2J\nx')" >/dev/null 2>&1
	"$AP" report "$TMP/evil.trace" --plan "$evil" > "$TMP/rep.evil" 2>&1
	no_ctl "report: the target's command line and mapping paths printed as '?'" \
		"$TMP/rep.evil"
	MSG="$(grep -a '^target' "$TMP/rep.evil")"
	check "report: the command line's own escape and newline as '?'" \
		grep -q 'arg?\[2J?x' "$TMP/rep.evil"
	"$AP" report "$TMP/evil.trace" --plan "$evil" --json > "$TMP/rep.json" 2>&1
	MSG="$(head -c 200 "$TMP/rep.json")"
	check "report --json: valid JSON, the command line's escape and newline as '?' (made printable where read)" \
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit("\x1b" in d["command"] or "arg?[2J?x" not in d["command"])' "$TMP/rep.json"
fi

# record -- a command that cannot run: an error (not a warning), exit 2, no trace left
if [ "$(id -u)" = 0 ]; then
	out=$("$AP" record -o "$TMP/none.trace" -- /nonexistent/cmd 2>&1 >/dev/null)
	rc=$?
	MSG="exit $rc, trace $( [ -e "$TMP/none.trace" ] && echo left || echo gone): $out"
	check "record -- /nonexistent: exit 2, 'error: cannot run', no trace left behind" \
		sh -c '[ "$1" = 2 ] && [ ! -e "$2" ] && printf "%s" "$3" | grep -q "error: cannot run" &&
			! printf "%s" "$3" | grep -q "warning: cannot run"' _ "$rc" "$TMP/none.trace" "$out"
fi

# A CSV plan whose quoted field never closes, over 200,000 lines: one pass, not one per
# line (the record was split again from its start for every line read: minutes here)
python3 -c "
import sys
sys.stdout.write('tensor,name,offset,size,first_node,last_node\n0,\"unclosed')
sys.stdout.write('\nxxxxxxxx' * 200000)
" > "$TMP/unclosed.csv"
expect_refusal "plan --import of a CSV whose quote never closes: one clear line, not a hang" 2 \
	"a quoted field is never closed" "$AP" plan --import "$TMP/unclosed.csv"

# A model rewritten (cp over it) while plan has it mapped: a clear error, never SIGBUS.
# The race is real, so it is run 150 times with a copy loop beside it (the binary before
# this check died of SIGBUS in about 1 run of 20 here).
race=$TMP/race.tflite
DL=$MODELS/deeplabv3_mnv2_dm05_pascal_quant.tflite
cp "$DL" "$race"
( for _ in $(seq 1 5000); do cp "$DL" "$race" 2>/dev/null; done ) &
copier=$!
sig=0 trunc=0
for _ in $(seq 1 150); do
	"$AP" plan "$race" >/dev/null 2>"$TMP/race.err"
	rc=$?
	[ $rc -gt 128 ] && sig=$((sig + 1))
	grep -q 'truncated while it was being read' "$TMP/race.err" && trunc=$((trunc + 1))
done
kill "$copier" 2>/dev/null
wait "$copier" 2>/dev/null
echo "INFO: model rewritten under plan: $trunc of 150 runs saw the truncation and said so"
MSG="$sig of 150 runs were killed by a signal"
check "plan of a model being rewritten: never killed by SIGBUS (150 runs)" [ "$sig" = 0 ]
