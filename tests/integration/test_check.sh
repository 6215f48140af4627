#!/usr/bin/env bash
# arenaprof check (root): the JSON parses and every feature's status agrees with what the
# test finds by itself (the files, bpftool's own feature probe, record with each fault
# method); the faces and the exit status agree; as nobody, the bpf permission is missing,
# exit 2 and one line on stderr, never a crash.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

if [ "$(id -u)" != 0 ]; then
	fail "check tests need root" "run make check as root (BPF)"
	exit 1
fi

J=$TMP/check.json
"$ARENAPROF" check --json >"$J" 2>"$TMP/check.err"
rc=$?
MSG="$(head -c 300 "$J")"
check "check --json: one JSON object with kernel, arch, features, faces" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"kernel", "arch", "features", "faces"}, d.keys()
assert set(d["faces"]) == {"record", "top", "run", "plan"}, d["faces"]
for f in d["features"]:
    assert set(f) == {"name", "status", "detail", "affects", "kernel_option"}, f
    assert f["status"] in ("ok", "missing", "refused"), f
    assert f["detail"] and f["affects"] and f["kernel_option"], f' "$J"

st() {	# st NAME: the status check gave the feature
	python3 -c 'import json, sys
print(next((f["status"] for f in json.load(open(sys.argv[1]))["features"]
            if f["name"] == sys.argv[2]), "absent"))' "$J" "$1"
}
detail() {
	python3 -c 'import json, sys
print(next((f["detail"] for f in json.load(open(sys.argv[1]))["features"]
            if f["name"] == sys.argv[2]), ""))' "$J" "$1"
}
face() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["faces"][sys.argv[2]])' \
		"$J" "$1"
}
okif() {	# okif NAME CONDITION...: the status is ok exactly when CONDITION holds
	local name=$1 want=missing got; shift
	"$@" && want=ok
	got=$(st "$name")
	MSG="check says $got, the test finds $want ($(detail "$name"))"
	check "$name: $want, as the test finds" [ "$got" = "$want" ]
}

okif btf test -e /sys/kernel/btf/vmlinux
okif psi test -r /proc/pressure/memory
okif uprobes test -r /sys/bus/event_source/devices/uprobe/type
okif smaps_rollup test -r /proc/self/smaps_rollup
okif tracefs grep -q '^[^ ]* [^ ]* tracefs ' /proc/mounts
okif cgroup_v2 grep -q '^[^ ]* [^ ]* cgroup2 ' /proc/mounts
v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
okif memcg_v2 sh -c '[ -n "$1" ] && grep -qw memory "$1/cgroup.controllers"' _ "$v2"
okif clear_refs sh -c 'echo 5 > /proc/self/clear_refs'
okif bpf true	# root: the syscall and the permission

# bpftool's own probe of the map type and the helper
if command -v bpftool >/dev/null && bpftool -j feature probe kernel >"$TMP/bt.json" 2>/dev/null
then
	okif ringbuf python3 -c 'import json, sys
sys.exit(not json.load(open(sys.argv[1]))["map_types"]["have_ringbuf_map_type"])' "$TMP/bt.json"
	okif bpf_find_vma python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["helpers"]
sys.exit("bpf_find_vma" not in d["perf_event_available_helpers"])' "$TMP/bt.json"
else
	skip "ringbuf, bpf_find_vma against bpftool" "no bpftool feature probe here"
fi

# each fault method: ok exactly when record with it traces a command
for m in tp fentry perf; do
	name=$m
	[ $m = tp ] && name=tp_btf
	[ $m = perf ] && name=perf_events
	if [ $m = tp ] && [ "$(uname -m)" != x86_64 ]; then
		MSG="$(st tp_btf)"
		check "tp_btf: missing off x86" [ "$MSG" = missing ]
		continue
	fi
	"$ARENAPROF" record --probe $m -o "$TMP/$m.trace" -- true >/dev/null 2>"$TMP/$m.err"
	r=$?
	got=$(st $name)
	MSG="check says $got ($(detail $name)); record --probe $m exits $r: $(cat "$TMP/$m.err")"
	check "$name: ok exactly when record --probe $m traces a command" \
		[ "$([ "$got" = ok ] && echo 0)" = "$([ $r = 0 ] && echo 0)" ]
	# a method the kernel refuses with EPERM (fentry on this host): refused, and why
	if [ $r != 0 ] && grep -q '(EPERM)' "$TMP/$m.err"; then
		MSG="$got: $(detail $name)"
		check "$name: refused, with the kernel's EPERM as record says it" sh -c '
			[ "$1" = refused ] &&
			printf "%s" "$2" | grep -q "Operation not permitted (EPERM)"' _ \
			"$got" "$(detail $name)"
	fi
done
if [ "$(uname -m)" = x86_64 ]; then
	okif tracepoint test "$(st tp_btf)" = ok
fi

# faces: run needs the v2 memory controller, plan nothing; record's default method is tp
want=ok
[ "$(st memcg_v2)" = ok ] || want=unavailable
MSG="run $(face run)"
check "faces: run $want (memcg_v2 $(st memcg_v2))" [ "$(face run)" = "$want" ]
MSG="plan $(face plan)"
check "faces: plan ok" [ "$(face plan)" = ok ]
want=ok
for f in cgroup_v2 memcg_v2 memory_peak psi smaps_rollup uprobes; do
	[ "$(st $f)" = ok ] || want=degraded
done
[ "$(st tp_btf)" = ok ] || want=degraded
for f in btf bpf ringbuf bpf_find_vma; do
	[ "$(st $f)" = ok ] || want=unavailable
done
MSG="record $(face record)"
check "faces: record $want, from its features" [ "$(face record)" = "$want" ]
want=0
for k in record top run plan; do
	case $(face $k) in
	degraded) [ $want = 0 ] && want=1 ;;
	unavailable) want=2 ;;
	esac
done
MSG="exit $rc: $(cat "$TMP/check.err")"
check "check: exit $want, as the faces say" [ "$rc" = "$want" ]
if [ "$want" = 2 ]; then
	MSG="$(cat "$TMP/check.err")"
	check "check: one line on stderr naming what cannot run" sh -c '
		[ "$(wc -l <"$1")" = 1 ] && grep -q "^arenaprof check: .* cannot run: " "$1"' _ \
		"$TMP/check.err"
fi

# the text table: a row for each feature, with the JSON's status
"$ARENAPROF" check >"$TMP/check.txt" 2>/dev/null
MSG="$(head -20 "$TMP/check.txt")"
check "check: the table has each feature with its JSON status, and the faces" python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
rows = dict(re.findall(r"^(\S+) +(ok|missing|refused) ", open(sys.argv[2]).read(), re.M))
for f in d["features"]:
    assert rows.get(f["name"]) == f["status"], f["name"]
faces = ", ".join("%s %s" % (k, d["faces"][k]) for k in ("record", "top", "run", "plan"))
assert "faces: " + faces in open(sys.argv[2]).read()' "$J" "$TMP/check.txt"

# as nobody: no bpf permission, exit 2, one line, no crash
cp "$ARENAPROF" "$TMP/arenaprof" && chmod 755 "$TMP" "$TMP/arenaprof"
(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/arenaprof" check --json \
	>"$TMP/nobody.json" 2>"$TMP/nobody.err")
rc=$?
MSG="exit $rc: $(cat "$TMP/nobody.err")"
check "as nobody: exit 2" [ "$rc" = 2 ]
J=$TMP/nobody.json
MSG="bpf: $(st bpf) ($(detail bpf)), record $(face record)"
check "as nobody: bpf missing (not permitted), record and top unavailable" sh -c '
	[ "$1" = missing ] && printf "%s" "$2" | grep -q "not permitted" &&
	[ "$3" = unavailable ] && [ "$4" = unavailable ]' _ "$(st bpf)" "$(detail bpf)" \
	"$(face record)" "$(face top)"
MSG="$(cat "$TMP/nobody.err")"
check "as nobody: one line on stderr naming bpf" sh -c '[ "$(wc -l <"$1")" = 1 ] &&
	grep -q "^arenaprof check: record and top cannot run: bpf missing" "$1"' _ "$TMP/nobody.err"

# usage
MSG="$("$ARENAPROF" check --help 2>&1 | head -3)"
check "check --help: exit 0, lists --json" sh -c '"$1" check --help | grep -q -- "--json"' _ \
	"$ARENAPROF"
expect_refusal "check --bogus: exit 2, one line" 2 "bad option" "$ARENAPROF" check --bogus
expect_refusal "check extra: exit 2, one line" 2 "no arguments" "$ARENAPROF" check extra
