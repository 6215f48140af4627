#!/usr/bin/env bash
# make check-layers, in make check: the folder order of docs/design.md checked from the
# includes, and no file over 1,000 lines, function over 150 nor line over 100 columns
# (scripts/check-layers); then the check itself, on a copy of the tree with one breach of
# each kind put in.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

out=$(python3 scripts/check-layers 2>&1)
MSG=$out
check "check-layers: the tree keeps the design's folder order and the size rules" \
	test "$(printf '%s\n' "$out" | tail -1 | cut -c1-17)" = "check-layers: ok:"

# the check can fail: a util/ file that includes a plan/ header, a file of 1,001 lines, a
# function of 151 and a line of 101 columns, in a copy of what the check reads
mkdir -p "$TMP/t/src/util" "$TMP/t/src/plan" "$TMP/t/docs" "$TMP/t/include"
cp docs/design.md "$TMP/t/docs/"
printf '#include "arenaprof/plan/plan.h"\n' >"$TMP/t/src/util/up.c"
seq 1001 | sed 's/.*/int x&;/' >"$TMP/t/src/plan/long.c"
{ echo "void f(void)"; echo "{"; seq 148 | sed 's/.*/\t;/'; echo "}"; } >"$TMP/t/src/plan/fn.c"
printf '\t/* %087d */\n' 0 >"$TMP/t/src/plan/wide.h"
out=$(python3 scripts/check-layers "$TMP/t" 2>&1)
rc=$?
MSG="exit $rc: $out"
check "check-layers: an upward include, 1,001 lines, 151-line function, 101 columns: 4 breaches" \
	sh -c '[ "$1" = 1 ] && [ "$(printf "%s\n" "$2" | grep -c "^check-layers: ")" = 4 ] &&
		printf "%s" "$2" | grep -q "util/ includes plan/" &&
		printf "%s" "$2" | grep -q "1001 lines" &&
		printf "%s" "$2" | grep -q "a function of 151 lines" &&
		printf "%s" "$2" | grep -q "wide.h:1: 101 columns"' _ "$rc" "$out"
