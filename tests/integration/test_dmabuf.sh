#!/usr/bin/env bash
# dma-bufs on the host (docs/dmabuf.md). The host has no dma-buf exporter (no DMA heap, no
# udmabuf), so the recorded side is the VM suite's (scripts/vm/tests.sh, 7); here: report,
# text, JSON and OpenMetrics, of two traces the 6.12 (fdinfo) and 6.17 (bpf_iter) guests
# recorded of tests/fixtures/dmabuf_fixture.c, against what the fixture printed then; the
# dma-buf records written as records of their own, never packed, so that a reader from
# before them skips them; the fixture recorded with the export and release events too
# (type 18), judged as the VM suite judges it; and a process without dma-bufs recorded
# here: no such record, no device line. The /proc parsers' own fixtures are tests/unit/test_dmabuf.c's.
. tests/lib.sh
FIX=tests/fixtures/trace

# The record types of a trace's top level (its file header, then type, len, crc, payload)
types() {
	python3 -c 'import struct, sys
b = open(sys.argv[1], "rb").read()
o, t = 16, []
while o + 12 <= len(b):
    ty, n, _ = struct.unpack_from("<III", b, o)
    t.append(ty)
    o += 12 + n
print(" ".join(map(str, t)))' "$1"
}

for k in 6.12 6.17; do
	t=$FIX/dmabuf-$k.aptrace
	src=fdinfo
	[ $k = 6.17 ] && src=bpf_iter
	"$ARENAPROF" report "$t" --json > "$TMP/$k.json" 2> "$TMP/$k.err"
	MSG="$(cat "$TMP/$k.err")"
	check "$k: report --json reads the guest's trace" [ -s "$TMP/$k.json" ]
	python3 tests/py/check_dmabuf_report.py "$TMP/$k.json" "$FIX/dmabuf-$k.fixture.jsonl" \
		$src "$k"
	"$ARENAPROF" report "$t" > "$TMP/$k.txt"
	MSG=$(head -8 "$TMP/$k.txt")
	check "$k: text: the verdict's device line and the CMA note" \
		grep -q '^device     dma-bufs 1.44 MiB at their peak (4 buffers' "$TMP/$k.txt"
	MSG=$(grep -A7 '^dma-bufs ' "$TMP/$k.txt")
	check "$k: text: the dma-bufs section names the exporters and A's name" sh -c \
		"grep -q ' system  *DMA heap (system)  *npu-weights' '$TMP/$k.txt' &&
		 grep -q ' udmabuf  *udmabuf ' '$TMP/$k.txt' && grep -q 'source $src' '$TMP/$k.txt'"
	"$ARENAPROF" report "$t" --format openmetrics > "$TMP/$k.om"
	MSG=$(grep dmabuf "$TMP/$k.om")
	check "$k: OpenMetrics: arenaprof_dmabuf_peak_bytes 1507328" \
		grep -q '^arenaprof_dmabuf_peak_bytes{.*} 1507328$' "$TMP/$k.om"
	ty=$(types "$t")
	MSG="top-level types: $ty"
	check "$k: the dma-buf records are records of their own (15, 16), never packed" sh -c \
		"printf ' %s ' '$ty' | grep -q ' 15 ' && printf ' %s ' '$ty' | grep -q ' 16 '"
done

# the same fixture recorded with the export and release events (6.12, 6.17: fentry), and
# its two buffers that lived less than a sample: judged by the VM suite's own judge
# (scripts/vm/check_dmabuf.py) against what the fixture printed then
for k in 6.12 6.17; do
	t=$FIX/dmabuf-events-$k.aptrace
	"$ARENAPROF" report "$t" > "$TMP/ev$k.txt"
	"$ARENAPROF" report "$t" --json > "$TMP/ev$k.json"
	"$ARENAPROF" report "$t" --format openmetrics > "$TMP/ev$k.om"
	rel=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["kernel"])' \
		"$TMP/ev$k.json")
	python3 tests/py/check_dmabuf_trace.py "$FIX/dmabuf-events-$k.fixture.jsonl" \
		"$TMP/ev$k.txt" "$TMP/ev$k.json" "$TMP/ev$k.om" "$rel" yes "events $k"
	ty=$(types "$t")
	MSG="top-level types: $ty"
	check "events $k: the events are records of their own (18), never packed" sh -c \
		"printf ' %s ' '$ty' | grep -q ' 18 '"
done

# --budget counts the device memory: the dma-bufs' peak (the fixture's own most held at
# once, from its allocations and frees) in the peak and in the non-reclaimable part
for k in 6.12 6.17; do
	t=$FIX/dmabuf-events-$k.aptrace
	held=$(python3 -c 'import json, sys
ev = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("op") == "alloc":
        ev.append((r["t1_ns"], r["size"]))
    elif r.get("op") == "free":
        ev.append((r["t0_ns"], -r["size"]))
cur = top = 0
for _, d in sorted(ev):
    cur += d
    top = max(top, cur)
print(top)' "$FIX/dmabuf-events-$k.fixture.jsonl")
	"$ARENAPROF" report "$t" --json >"$TMP/b$k.json" 2>/dev/null
	read -r hwm anon shmem < <(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["samples"]
print(s["vmhwm_max_bytes"], s["pss_anon_max_bytes"], s["pss_shmem_max_bytes"])' "$TMP/b$k.json")
	for b in $((hwm + held / 2)) $((hwm + held + 1048576)); do
		"$ARENAPROF" report "$t" --budget "$b" --json >"$TMP/bb.json" 2>/dev/null
		rc=$?
		want=$([ "$b" -gt $((hwm + held)) ] && echo 0 || echo 3)
		r=$(python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["budget"]
dev, hwm, anon, shmem = (int(v) for v in sys.argv[2:6])
print("ok" if b["device_bytes"] == dev and b["peak_bytes"] == hwm + dev and
      b["nonreclaimable_bytes"] == anon + shmem + dev else json.dumps(b))' \
			"$TMP/bb.json" "$held" "$hwm" "$anon" "$shmem")
		MSG="exit $rc (want $want): $r; the fixture held $held at most"
		check "events $k: --budget $b counts the dma-bufs' peak in the peak and the non-reclaimable part" \
			sh -c '[ "$1" = "$2" ] && [ "$3" = ok ]' _ "$rc" "$want" "$r"
	done
done

# the live view's OpenMetrics (top --openmetrics) of a replay of the events trace: at its
# end nothing held, and the peak of phase 1 and S1, the fixture's own figures
ev=$FIX/dmabuf-events-6.17
"$ARENAPROF" top "$ev.aptrace" --batch --openmetrics "$TMP/live.om" > /dev/null 2>&1
want=$(python3 -c 'import json, sys
r = [json.loads(x) for x in open(sys.argv[1])]
p1 = next(x for x in r if x.get("phase") == 1)
print(p1["bytes"] + sum(x["size"] for x in r if x.get("what") == "short-S1" and x["op"] == "alloc"))' \
	"$ev.fixture.jsonl")
MSG=$(grep dmabuf "$TMP/live.om")
check "top --openmetrics of the replay: arenaprof_dmabuf_bytes 0, arenaprof_dmabuf_peak_bytes $want" \
	sh -c "grep -Eq '^arenaprof_dmabuf_bytes(\{[^}]*\})? 0$' '$TMP/live.om' &&
	       grep -Eq '^arenaprof_dmabuf_peak_bytes(\{[^}]*\})? $want$' '$TMP/live.om'"

# a process without dma-bufs: no dma-buf record, and its report has no part of them
if "$ARENAPROF" record -o "$TMP/none.trace" -- "$BUILD/mininfer" \
	"$MODELS/mobilenet_v2_1.0_224_quant.tflite" --runs 1 > /dev/null 2> "$TMP/none.err"; then
	ty=$(types "$TMP/none.trace")
	MSG="top-level types: $ty"
	check "no dma-buf held: no record of types 15, 16 and 18" sh -c \
		"! printf ' %s ' '$ty' | grep -qE ' (15|16|18) '"
	"$ARENAPROF" report "$TMP/none.trace" > "$TMP/none.txt"
	"$ARENAPROF" report "$TMP/none.trace" --json > "$TMP/none.json"
	MSG=$(head -8 "$TMP/none.txt")
	check "no dma-buf held: no device line, no dma-bufs section, no \"dmabuf\" in JSON" sh -c \
		"! grep -qE '^(device|dma-bufs) ' '$TMP/none.txt' && python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(\"dmabuf\" in d or \"dmabuf_peak_bytes\" in d[\"summary\"])' '$TMP/none.json'"
else
	skip "record of a process without dma-bufs" "record cannot run here: $(tail -1 "$TMP/none.err")"
fi
