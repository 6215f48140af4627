#!/usr/bin/env bash
# src/plan/litert/stl_order.c against the real libstdc++ (g++): unordered_set<int> iteration order
# and std::sort with ties, on thousands of generated cases.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

if ! command -v g++ >/dev/null; then
	fail "stl ground truth" "g++ is missing (scripts/install-deps installs build-essential)"
	exit 1
fi
g++ -std=c++17 -O1 tests/stl/stl_truth.cc -o "$TMP/truth" &&
	${CC:-gcc} -std=gnu11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -Iinclude \
		tests/stl/stl_emul.c src/plan/litert/stl_order.c -o "$TMP/emul" ||
	{ fail "stl harness builds" "compile failed"; exit 1; }
python3 - >"$TMP/cases" <<'PY'
import random
r = random.Random(20261130)
for _ in range(3000):
    n = r.choice([1, 2, 5, 13, 14, 15, 27, 40, 100, 300])
    print("set", *[r.randrange(0, r.choice([20, 200, 5000])) for _ in range(n)])
for _ in range(3000):
    n = r.choice([2, 5, 16, 17, 30, 64, 200, 1000])
    print("sort", *[r.randrange(0, r.choice([2, 4, 10, 1000])) for _ in range(n)])
# adversarial for the heap fallback: many equal keys in organ-pipe shapes
for n in (100, 1000, 5000):
    print("sort", *(list(range(n // 2)) + list(range(n // 2, 0, -1))))
PY
"$TMP/truth" <"$TMP/cases" >"$TMP/want"
"$TMP/emul" <"$TMP/cases" >"$TMP/got"
sets=$(grep -c '^set' "$TMP/cases"); sorts=$(grep -c '^sort' "$TMP/cases")
diffs=$(diff <(paste -d'|' "$TMP/cases" "$TMP/want") <(paste -d'|' "$TMP/cases" "$TMP/got") |
	grep -c '^<')
MSG="$diffs of $((sets + sorts)) cases differ" \
	check "unordered_set order and std::sort ties equal libstdc++ ($sets sets, $sorts sorts)" \
	test "$diffs" -eq 0
