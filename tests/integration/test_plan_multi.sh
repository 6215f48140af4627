#!/usr/bin/env bash
# arenaprof plan A.tflite B.tflite ...: several models in one process. The ground truth is
# each model's own `plan --json`: the multi JSON must hold it byte for byte, its sums must
# be the sums of those figures, and the budget's verdict must follow from them.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

A=$MODELS/mobilenet_v1_0.25_128_quant.tflite
B=$MODELS/face_detection_short_range.tflite
W=$MODELS/gen_while_loop.tflite		# subgraphs of its own: their arenas count too

py() {	# py PYTHON-EXPR FILES...: the expression on json.load of each file (d[0], d[1], ...)
	local e=$1
	shift
	python3 -c "import json,sys; d=[json.load(open(f)) for f in sys.argv[1:]]; print($e)" "$@"
}

# plan_json OUT ARGS...: plan --json ARGS into OUT; its exit status
plan_json() {
	local out=$1
	shift
	"$ARENAPROF" plan "$@" --json >"$out" 2>"$TMP/err"
}

# --- the default path (XNNPACK): each model's object is its plan --json, byte for byte
plan_json "$TMP/a.json" "$A"
plan_json "$TMP/b.json" "$B"
plan_json "$TMP/ab.json" "$A" "$B"
MSG="exit $?: $(cat "$TMP/err")" check "xnnpack: two models plan" test -s "$TMP/ab.json"
for x in a b; do
	# the single object, without its newline, is a substring of the multi document
	MSG="plan --json of $x not found whole in the multi JSON" \
		check "xnnpack: models[] holds model $x's plan --json byte for byte" \
		grep -qF -- "$(head -c -1 "$TMP/$x.json")" "$TMP/ab.json"
done
r=$(py "d[2]['models'] == [d[0], d[1]] and d[2]['schema_version'] == d[0]['schema_version']" \
	"$TMP/a.json" "$TMP/b.json" "$TMP/ab.json")
MSG="$r" check "xnnpack: models equal the single plans field by field, same schema_version" \
	test "$r" = True
r=$(py "d[2]['anonymous_bytes'], d[0]['anonymous_bytes'] + d[1]['anonymous_bytes']" \
	"$TMP/a.json" "$TMP/b.json" "$TMP/ab.json")
MSG="multi, sum: $r" check "xnnpack: anonymous_bytes is the sum of the models' ($r)" \
	test "$(echo "$r" | tr -d '() ' | cut -d, -f1)" = "$(echo "$r" | tr -d '() ' | cut -d, -f2)"
r=$(py "d[2]['weights_bytes'] == d[0]['reclaimable_bytes'] + d[1]['reclaimable_bytes'] and
	d[2]['total_bytes'] == d[2]['anonymous_bytes'] + d[2]['weights_bytes']" \
	"$TMP/a.json" "$TMP/b.json" "$TMP/ab.json")
MSG="$(py "d[0]['weights_bytes'], d[0]['total_bytes']" "$TMP/ab.json")" \
	check "xnnpack: weights_bytes sums the reclaimable halves, total_bytes both" test "$r" = True
r=$(py "d[0]['largest_model'] == 1 and 'verdict' not in d[0]" "$TMP/ab.json")
check "xnnpack: the larger model named, no verdict without --budget" test "$r" = True

# XNNPACK's workspace is one per delegate, so per interpreter: it adds up too
r=$(py "d[2]['anonymous_bytes'] - sum(m['tflite_bytes'] + m['xnnpack']['total_bytes']
	for m in d[2]['models'])" "$TMP/a.json" "$TMP/b.json" "$TMP/ab.json")
MSG="off by $r" check "xnnpack: every model's arenas and whole XNNPACK side are counted" \
	test "$r" = 0

# --- the same model twice: an interpreter each, so twice the memory
plan_json "$TMP/aa.json" "$A" "$A"
r=$(py "d[1]['anonymous_bytes'] == 2 * d[0]['anonymous_bytes'] and
	d[1]['weights_bytes'] == 2 * d[0]['reclaimable_bytes'] and d[1]['models'] == [d[0]] * 2
	and d[1]['largest_model'] == 0" "$TMP/a.json" "$TMP/aa.json")
MSG="$(py "d[0]['anonymous_bytes']" "$TMP/aa.json")" \
	check "the same model twice doubles the sums" test "$r" = True

# --- a budget between the larger model and the sum: each fits alone, the two do not
read -r big sum < <(py "max(d[0]['anonymous_bytes'], d[1]['anonymous_bytes']),
	d[2]['anonymous_bytes']" "$TMP/a.json" "$TMP/b.json" "$TMP/ab.json" | tr -d '(),')
budget=$(((big + sum) / 2))
for m in "$A" "$B"; do
	"$ARENAPROF" plan "$m" --budget "$budget" >/dev/null 2>&1
	MSG="exit $?" check "budget $budget: $(basename "$m") alone fits (exit 0)" test $? = 0
done
"$ARENAPROF" plan "$A" "$B" --budget "$budget" >"$TMP/ab.txt" 2>"$TMP/err"
rc=$?
MSG="exit $rc: $(cat "$TMP/err")" check "budget $budget: the two do not fit, exit 3" test $rc = 3
check "budget: the text says does not fit, the larger model decides" \
	grep -q "^  does not fit: the models' non-reclaimable memory alone" "$TMP/ab.txt"
MSG="$(grep -A1 'decided most' "$TMP/ab.txt")" check "budget: model 2 named as deciding" \
	grep -q "^  decided most by model 2, $B:" "$TMP/ab.txt"
MSG="$(grep 'memory\.\|would fit' "$TMP/ab.txt")" \
	check "budget: over it, no cgroup settings as advice, the budget that would fit instead" \
	sh -c '! grep -q "^    memory\." "$1" &&
		grep -q "^  would fit: a budget of at least " "$1"' _ "$TMP/ab.txt"
plan_json "$TMP/abb.json" "$A" "$B" --budget "$budget"
MSG="exit $?" check "budget, JSON: exit 3 too" test $? = 3
r=$(py "(v := d[0]['verdict']) and (v['budget_bytes'] == $budget and not v['arena_fits'] and
	not v['fits'] and v['margin_bytes'] == $budget - d[0]['total_bytes'] and
	v['decided_by'] == 1 and v['memory_max'] == $budget and
	v['memory_high'] == $budget * 95 // 100 and
	all(m['budget']['arena_fits'] for m in d[0]['models']))" "$TMP/abb.json")
MSG="$(py "d[0]['verdict']" "$TMP/abb.json")" \
	check "budget, JSON: the verdict on the sums, each model's own verdict fits" test "$r" = True
"$ARENAPROF" plan "$A" "$B" --budget "$sum" >"$TMP/fit.txt"
MSG="exit $?" check "budget of exactly the sum: fits, exit 0" test $? = 0

# --- the builtin kernels: the arenas of every subgraph LiteRT plans, and the weights
for m in "$A" "$W"; do
	plan_json "$TMP/$(basename "$m").none.json" "$m" --delegate none
done
plan_json "$TMP/aw.none.json" "$A" "$W" --delegate none
anon_of='sum(m["arena_bytes"] + m["persistent_bytes"] + sum(s["arena_bytes"] +
	s["persistent_bytes"] for s in m["subgraph_plans"] if s["index"] != m["subgraph"] and
	"arena_bytes" in s) for m in d[:2])'
r=$(py "d[2]['models'] == d[:2] and d[2]['anonymous_bytes'] == $anon_of and
	d[2]['weights_bytes'] == d[0]['weights_bytes'] + d[1]['weights_bytes']" \
	"$TMP/$(basename "$A").none.json" "$TMP/$(basename "$W").none.json" "$TMP/aw.none.json")
MSG="$(py "d[0]['anonymous_bytes'], d[0]['weights_bytes']" "$TMP/aw.none.json")" \
	check "--delegate none: the sums of every model's arenas (subgraphs too) and weights" \
	test "$r" = True
# between the arenas and arenas + weights: fits only by paging weights out, exit 0
read -r anon total < <(py "d[0]['anonymous_bytes'], d[0]['total_bytes']" \
	"$TMP/aw.none.json" | tr -d '(),')
mid=$(((anon + total) / 2))
"$ARENAPROF" plan "$A" "$W" --delegate none --budget "$mid" >"$TMP/mid.txt"
MSG="exit $?" check "--delegate none: weights paged out still passes the gate (exit 0)" test $? = 0
check "--delegate none: the text says so" grep -q "^  fits only by paging weights out" \
	"$TMP/mid.txt"

# --- the options apply to every model
plan_json "$TMP/a76.json" "$A" --cpu cortex-a76 --threads 2 --strategy greedy-size
plan_json "$TMP/ab76.json" "$A" "$B" --cpu cortex-a76 --threads 2 --strategy greedy-size
r=$(py "d[1]['models'][0] == d[0] and d[1]['models'][1]['cpu'] == 'cortex-a76' and
	d[1]['models'][1]['strategy'] == 'greedy-size'" "$TMP/a76.json" "$TMP/ab76.json")
check "--cpu, --threads, --strategy plan every model" test "$r" = True

# --- CSV: one table, a model column first, each model's rows as its own CSV
"$ARENAPROF" plan "$A" "$B" --csv >"$TMP/ab.csv"
{
	echo "model,$(head -1 <("$ARENAPROF" plan "$A" --csv))"
	for m in "$A" "$B"; do
		"$ARENAPROF" plan "$m" --csv | tail -n +2 | sed "s|^|$m,|"
	done
} >"$TMP/want.csv"
MSG="$(diff "$TMP/want.csv" "$TMP/ab.csv" | head -3)" \
	check "--csv: one table with a model column" cmp -s "$TMP/want.csv" "$TMP/ab.csv"

# --- text: a block per model, then the process
"$ARENAPROF" plan "$A" "$B" >"$TMP/t.txt"
check "text: a block per model and the process" sh -c 'grep -q "^model 1     $1$" "$3" &&
	grep -q "^model 2     $2$" "$3" && grep -q "^process     2 models" "$3"' _ "$A" "$B" \
	"$TMP/t.txt"
check "one model: no process block" sh -c '! "$1" plan "$2" | grep -q "^process "' _ \
	"$ARENAPROF" "$A"

# --- bad input among several: one line naming the file, the single model's exit code
head -c 5000 "$A" >"$TMP/truncated.tflite"
printf 'not a model at all' >"$TMP/junk.tflite"
for bad in "$TMP/missing.tflite" "$TMP/truncated.tflite" "$TMP/junk.tflite" "$TMP"; do
	expect_refusal "bad model among several: $(basename "$bad")" 2 "$bad" \
		"$ARENAPROF" plan "$A" "$bad" "$B" --json
	out=$("$ARENAPROF" plan "$A" "$bad" --json 2>/dev/null)
	MSG="stdout: ${out:0:80}" check "bad model among several: no partial JSON ($(basename \
		"$bad"))" test -z "$out"
done
expect_refusal "several models: --top refused" 2 "--top lists one model's" \
	"$ARENAPROF" plan "$A" "$B" --top 3
expect_refusal "several models: --subgraph refused" 2 "--subgraph shows one model's" \
	"$ARENAPROF" plan "$A" "$B" --subgraph 0
expect_refusal "several models: --input-shape refused" 2 "--input-shape resizes one" \
	"$ARENAPROF" plan "$A" "$B" --input-shape 1,128,128,3
expect_refusal "--import takes no MODEL" 2 "no MODEL with --import" \
	"$ARENAPROF" plan --import "$TMP/ab.csv" "$A"
