# The VM suite's guest helpers (busybox sh), sourced by tests.sh and tests-litert.sh.
# capture NAME CMD... runs one test command and prints its exit code, time, stdout and
# stderr as a section for scripts/vm/check.py:
#     === NAME rc RC secs S
#     --- stdout
#     ...
#     --- stderr
#     ...
#     === end NAME
now() { cut -d' ' -f1 /proc/uptime; }

capture() {	# capture NAME CMD...
	name=$1
	shift
	t0=$(now)
	"$@" > "/tmp/$name.out" 2> "/tmp/$name.err"
	rc=$?
	t1=$(now)
	echo "=== $name rc $rc secs $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }")"
	echo "--- stdout"
	awk '{ print }' "/tmp/$name.out"
	echo "--- stderr"
	awk '{ print }' "/tmp/$name.err"
	echo "=== end $name"
}
