# Helpers for integration tests: each check prints PASS:/FAIL:/SKIP: lines that
# tests/run-tests counts. Source it; $ARENAPROF is the binary under test.
: "${BUILD:=build}"
: "${ARENAPROF:=$BUILD/arenaprof}"
MODELS=tests/models
TMP=$(mktemp -d /tmp/arenaprof-test.XXXXXX)
# only the test's own shell cleans up: a background job killed before it execs is a
# bash subshell that would otherwise run this trap too
TEST_SHELL=$BASHPID
trap '[ "$BASHPID" = "$TEST_SHELL" ] && rm -rf "$TMP"' EXIT

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: ${2:-}"; }
skip() { echo "SKIP: $1: $2"; }
check() {	# check NAME CONDITION-COMMAND... ; message from $MSG if set
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "${MSG:-command failed: $*}"; fi
	MSG=
}

# expect_refusal NAME RC PATTERN CMD...: CMD ends within 10 s (a refusal, not a hang) with
# exit RC and one line on stderr holding PATTERN
expect_refusal() {
	local name=$1 want=$2 pat=$3 out rc
	shift 3
	out=$(timeout 10 "$@" 2>&1 >/dev/null)
	rc=$?
	MSG="exit $rc (want $want): $out"
	check "$name" sh -c '[ "$1" = "$2" ] && [ "$(printf "%s\n" "$3" | wc -l)" = 1 ] &&
		printf "%s" "$3" | grep -q -- "$4"' _ "$rc" "$want" "$out" "$pat"
}

# find_clang: prints the first clang on PATH (clang, then clang-14 to clang-19); 1 for none
find_clang() {
	local c
	for c in clang clang-14 clang-15 clang-16 clang-17 clang-18 clang-19; do
		command -v "$c" >/dev/null 2>&1 && echo "$c" && return 0
	done
	return 1
}
