#!/usr/bin/env bash
# Traces of every older format still read: the committed fixtures, one of each format
# (tests/fixtures/trace/v1-reference.aptrace, written by the unit tests' reference writer
# as format 1 was; v2-mininfer.aptrace, `record` of build/mininfer on MobileNet v2 with
# run and op probes, 3 runs, by the format-2 recorder), report and export today exactly
# what they did when they were committed: the report text against the .report file beside
# each, the CSV and Chrome exports against their SHA-256 taken then. The mininfer that
# v2-mininfer recorded is gone (another inode at any path it named), so its report names
# allocating calls by file and offset, wherever this runs.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

F=tests/fixtures/trace
# fixture csv-sha256 chrome-sha256 csv-lines version
while read -r name csv chrome lines version; do
	t=$F/$name.aptrace
	MSG="version word $(od -An -tu4 -j8 -N4 "$t" | tr -d ' ')"
	check "$name: format $version" test "$(od -An -tu4 -j8 -N4 "$t" | tr -d ' ')" = "$version"
	if ! "$ARENAPROF" report "$t" >"$TMP/$name.report" 2>"$TMP/$name.err"; then
		fail "$name: report exits 0" "$(head -3 "$TMP/$name.err")"
		continue
	fi
	MSG=$(diff "$F/$name.report" "$TMP/$name.report" | head -8)
	check "$name: report as when the fixture was committed" \
		cmp -s "$F/$name.report" "$TMP/$name.report"
	"$ARENAPROF" export "$t" --format csv -o "$TMP/$name.csv"
	got=$(sha256sum <"$TMP/$name.csv" | cut -c1-64)
	MSG="sha256 $got, $(wc -l <"$TMP/$name.csv") lines (want $lines)"
	check "$name: CSV export (every fault) as when committed" \
		test "$got:$(wc -l <"$TMP/$name.csv")" = "$csv:$lines"
	got=$("$ARENAPROF" export "$t" --format chrome -o - | sha256sum | cut -c1-64)
	MSG="sha256 $got"
	check "$name: Chrome export as when committed" test "$got" = "$chrome"
done <<'LIST'
v1-reference b665e94348bb89156b1ca77cd1b5c75d63935e4dfc9e57e144066379feeefd82 223f4fd47003eaf4a344171d3d18c8d42f3956cde62300d0647c5a512793a7b7 2 1
v2-mininfer ec321a3479688d2c8c4073d1addb95b96f4e47d63cf7c79218ef41cc63840a63 679c651e8454cb136c7b147bd208bb368156dce063bf9799c69a8ea0d433bf1c 577 2
LIST
