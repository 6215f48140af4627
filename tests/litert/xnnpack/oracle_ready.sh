# Sourced by the XNNPACK oracle's tests: oracle_ready LABEL checks what the oracle needs
# (root for bpftrace's uprobes, bpftrace, ai-edge-litert 2.3.0 in $venv, the built
# $ARENAPROF); on the first thing missing it prints a FAIL with the reason and returns 1.
# oracle_preload LABEL builds the in-process oracle, $TMP/xnn_preload.so (xnn_preload.c).
oracle_ready() {
	local label=$1 ver
	if [ "$(id -u)" != 0 ]; then
		fail "$label: the oracle" "needs root (bpftrace uprobes)"
		return 1
	fi
	if ! command -v bpftrace >/dev/null; then
		fail "$label: the oracle" "no bpftrace on PATH (scripts/install-deps installs it)"
		return 1
	fi
	if ! ver=$("$venv/bin/python" -c \
		'import importlib.metadata as m; print(m.version("ai-edge-litert"))' 2>&1); then
		fail "$label: the oracle" "no ai-edge-litert in $venv (scripts/install-deps): $ver"
		return 1
	fi
	if [ "$ver" != 2.3.0 ]; then
		fail "$label: the oracle" "ai-edge-litert $ver in $venv: the plan models 2.3.0"
		return 1
	fi
	if [ ! -x "$ARENAPROF" ]; then
		fail "$label: built" "$ARENAPROF missing"
		return 1
	fi
}

oracle_preload() {
	if ! cc -O2 -shared -fPIC -o "$TMP/xnn_preload.so" tests/litert/xnnpack/xnn_preload.c \
		-lpthread 2>"$TMP/preload.err"; then
		fail "$1: the in-process oracle built" "$(head -1 "$TMP/preload.err")"
		return 1
	fi
}
