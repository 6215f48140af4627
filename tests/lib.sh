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
