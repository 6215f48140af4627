#!/usr/bin/env bash
# arenaprof run on this host: its memory controller is cgroup v1 (or absent from cgroup v2),
# so run must refuse with one clear line and exit 1, without running the command and without
# writing anything: the cgroup trees and subtree_control files are compared before and
# after. Bad usage: exit 2 and one line. Runs that create cgroups are tested in the VM suite
# (test_vm.sh), never here: this host's cgroups belong to its supervision.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

# every cgroup directory and controller file state, to prove nothing was written
cg_state() {
	find /sys/fs/cgroup -maxdepth 4 -type d 2>/dev/null | LC_ALL=C sort
	find /sys/fs/cgroup -maxdepth 4 -name cgroup.subtree_control 2>/dev/null | LC_ALL=C sort |
		while read -r f; do echo "$f: $(cat "$f" 2>/dev/null)"; done
}

# run_case NAME WANT-RC PATTERN ARGS...: exit code, exactly one stderr line with PATTERN,
# the command not run, no crash
run_case() {
	local name=$1 want=$2 pat=$3; shift 3
	rm -f "$TMP/ran"
	"$ARENAPROF" run "$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$? lines
	lines=$(grep -c . "$TMP/err")
	if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] && grep -q -- "$pat" "$TMP/err" &&
		[ ! -e "$TMP/ran" ] && [ ! -s "$TMP/out" ]; then
		pass "$name"
	else
		fail "$name" "exit $rc (want $want), $lines stderr lines: $(head -c 400 "$TMP/err")$([ -e "$TMP/ran" ] && echo '; the command ran')"
	fi
}

before=$(cg_state)
mark=(-- sh -c "touch '$TMP/ran'")
if grep -q ' - cgroup2 ' /proc/self/mountinfo &&
	! grep -qw memory "$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)/cgroup.controllers" 2>/dev/null; then
	run_case "this host (no memory controller on cgroup v2): refused, exit 1, one line" 1 \
		"needs cgroup v2 with the memory controller" "${mark[@]}"
	check "... the line names where the memory controller is" \
		grep -q "cgroup v1 (/sys/fs/cgroup/memory)\|does not offer it" "$TMP/err"
	check "... and says nothing was changed" grep -q "nothing was changed" "$TMP/err"
	run_case "with limits, triggers, --json and --repeat: refused the same way" 1 \
		"needs cgroup v2 with the memory controller" --memory-max 64M --memory-high auto \
		--psi-trigger 'some 150000 1000000' --repeat 3 --json "${mark[@]}"
	v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	run_case "--cgroup-parent at the v2 mount without memory: refused, exit 1" 1 \
		"memory controller is not available" --cgroup-parent "$v2" "${mark[@]}"
elif ! grep -q ' - cgroup2 ' /proc/self/mountinfo; then
	run_case "this host (no cgroup v2): refused, exit 1, one line" 1 \
		"needs cgroup v2" "${mark[@]}"
else
	skip "host refusal" "this host has cgroup v2 with the memory controller; run is tested in the VM suite"
fi
run_case "--cgroup-parent that is not a cgroup: exit 1" 1 "not a cgroup v2 directory" \
	--cgroup-parent /tmp "${mark[@]}"
after=$(cg_state)
MSG="the cgroup trees differ: $(diff <(echo "$before") <(echo "$after") | head -5)" \
	check "nothing was written: every cgroup directory and subtree_control is as before" \
	test "$before" = "$after"

# bad usage: exit 2, one line, before anything else is looked at
run_case "no command: exit 2" 2 "no command" --memory-max 64M
run_case "bad --memory-max: exit 2" 2 "bad value '64Q'" --memory-max 64Q "${mark[@]}"
run_case "--memory-high auto without --memory-max: exit 2" 2 "give --memory-max" \
	--memory-high auto "${mark[@]}"
run_case "--memory-min weights without --plan: exit 2" 2 "needs --plan" \
	--memory-min weights "${mark[@]}"
run_case "a PSI trigger window out of range: exit 2" 2 "500 ms to 10 s" \
	--psi-trigger 'some 100 100' "${mark[@]}"
run_case "a PSI trigger that is not one: exit 2" 2 "some|full STALL_US WINDOW_US" \
	--psi-trigger 'sometimes' "${mark[@]}"
run_case "--repeat 0: exit 2" 2 "bad value '0'" --repeat 0 "${mark[@]}"
run_case "--plan of a missing file: exit 2" 2 "plan" --memory-min weights \
	--plan "$TMP/none.tflite" "${mark[@]}"
run_case "--user of an unknown user: exit 2, before any cgroup is looked at" 2 \
	"unknown user 'no-such-user-ap'" --user no-such-user-ap "${mark[@]}"
run_case "an unknown option: exit 2" 2 "bad option" --memory-maximum 1G "${mark[@]}"
"$ARENAPROF" run --help >"$TMP/help" 2>&1
MSG="exit $?" check "--help: exit 0 with the options" grep -q -- "--psi-trigger" "$TMP/help"
