#!/usr/bin/env bash
# arenaprof check (root): the JSON parses and every feature's status agrees with what the
# test finds by itself (the files, bpftool's own feature probe, record with each fault
# method); the faces and the exit status agree; as nobody, the bpf permission is missing,
# exit 2 and one line on stderr, never a crash. Then --btf FILE and ARENAPROF_BTF on record
# and check: this kernel's BTF as raw BTF and as an ELF .BTF traces mininfer's pages as the
# truth says; a missing file, a non-BTF file and another kernel's BTF are refused in one
# line; and, in a private mount namespace with /sys/kernel/btf hidden (nothing outside it
# sees that), the BTF is reported missing with --btf named, and --btf restores record.
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
check "check --json: one JSON object with kernel, arch, btf, features, faces, top_procfs_only" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"schema_version", "kernel", "arch", "btf", "features", "faces",
	"top_procfs_only"}, d.keys()
assert d["schema_version"] == 1, d["schema_version"]
assert set(d["btf"]) == {"source", "file"}, d["btf"]
assert d["btf"]["source"] in ("built-in", "missing"), d["btf"]
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
okif kernel_btf test -e /sys/kernel/btf/vmlinux
okif psi test -r /proc/pressure/memory
okif uprobes test -r /sys/bus/event_source/devices/uprobe/type
okif smaps_rollup test -r /proc/self/smaps_rollup
okif tracefs grep -q '^[^ ]* [^ ]* tracefs ' /proc/mounts
okif cgroup_v2 grep -q '^[^ ]* [^ ]* cgroup2 ' /proc/mounts
v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
okif memcg_v2 sh -c '[ -n "$1" ] && grep -qw memory "$1/cgroup.controllers"' _ "$v2"
okif clear_refs sh -c 'echo 5 > /proc/self/clear_refs'
okif bpf true	# root: the syscall and the permission
# the dma-buf iterator's context type in the kernel's BTF, by bpftool (6.16 on)
if command -v bpftool >/dev/null; then
	okif dmabuf_iter sh -c 'bpftool btf dump file /sys/kernel/btf/vmlinux |
		grep -q "STRUCT .bpf_iter__dmabuf."'
fi

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
check "as nobody: bpf missing (not permitted), record unavailable, top degraded (/proc only)" \
	sh -c '[ "$1" = missing ] && printf "%s" "$2" | grep -q "not permitted" &&
	[ "$3" = unavailable ] && [ "$4" = degraded ] && [ "$5" = True ]' _ "$(st bpf)" \
	"$(detail bpf)" "$(face record)" "$(face top)" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["top_procfs_only"])' "$J")"
MSG="$(cat "$TMP/nobody.err")"
check "as nobody: one line on stderr naming bpf for record (top runs on /proc)" sh -c '
	[ "$(wc -l <"$1")" = 1 ] && grep -q "^arenaprof check: record cannot run: bpf missing" "$1"' \
	_ "$TMP/nobody.err"
(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'sleep 3 & exec "$0" top \
	--batch -n 1 -p $!' "$TMP/arenaprof" >"$TMP/nobody-top.txt" 2>"$TMP/nobody-top.err")
rc=$?
MSG="exit $rc: $(head -3 "$TMP/nobody-top.err") $(head -3 "$TMP/nobody-top.txt")"
check "as nobody: top runs as check says (degraded: /proc figures), exit 0" sh -c '
	[ "$1" = 0 ] && grep -q "^# no root: /proc" "$2"' _ "$rc" "$TMP/nobody-top.txt"

# ---- --btf FILE, ARENAPROF_BTF ----
MI=$BUILD/mininfer
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
BR=200	# with its op markers some 0.2 s: a 2-run mininfer could exit, under load, before
	# even a 10 ms maps snapshot named its model file's mapping (no weights mapping)
"$MI" --truth "$MV2" --runs $BR >"$TMP/truth.json"
btf_rec() {	# btf_rec NAME ARGS...: mininfer traced (BR runs, markers), its report in NAME.json
	local n=$1
	shift
	"$ARENAPROF" record "$@" -o "$TMP/$n.trace" --interval 10 --run-probe "$MI:mininfer_invoke" \
		--op-probe "$MI:mininfer_op:0" -- "$MI" "$MV2" --runs $BR \
		>/dev/null 2>"$TMP/$n.err" &&
		"$ARENAPROF" report "$TMP/$n.trace" --plan "$MV2" --json --pages >"$TMP/$n.json" \
			2>>"$TMP/$n.err"
}
btf_pages() {	# btf_pages NAME LABEL: the trace's pages against the truth, page by page
	python3 tests/py/check_trace.py "$TMP/$1.json" "$TMP/truth.json" --runs $BR \
		--agreement --label "$2: "
}
btf_json() {	# btf_json FILE EXPR: a Python expression over the check JSON d holds
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); f = {x["name"]: x for x in d["features"]}
sys.exit(not eval("(" + sys.argv[2] + ")"))' "$1" "$2"
}
SYSBTF=/sys/kernel/btf/vmlinux
if [ -r $SYSBTF ]; then
	btf_rec raw --btf $SYSBTF
	MSG="exit $?: $(tail -3 "$TMP/raw.err")"
	check "record --btf $SYSBTF: exit 0" test -s "$TMP/raw.json"
	btf_pages raw "--btf $SYSBTF"
	ARENAPROF_BTF=$SYSBTF btf_rec env
	MSG="exit $?: $(tail -3 "$TMP/env.err")"
	check "ARENAPROF_BTF=$SYSBTF record: exit 0" test -s "$TMP/env.json"
	btf_pages env "ARENAPROF_BTF"
	# an ELF file carrying the BTF in .BTF, as a vmlinux with debug info and pahole -J
	if objcopy --add-section .BTF=$SYSBTF --set-section-flags .BTF=readonly /bin/true \
		"$TMP/vmlinux.elf" 2>"$TMP/objcopy.err"; then
		btf_rec elf --btf "$TMP/vmlinux.elf"
		MSG="exit $?: $(tail -3 "$TMP/elf.err")"
		check "record --btf ELF-with-.BTF: exit 0" test -s "$TMP/elf.json"
		btf_pages elf "--btf ELF"
	else
		fail "an ELF file with .BTF made by objcopy" "$(cat "$TMP/objcopy.err")"
	fi
	ARENAPROF_BTF=/nonexistent "$ARENAPROF" check --btf $SYSBTF --json >"$TMP/cb.json" \
		2>/dev/null
	MSG="$(head -c 600 "$TMP/cb.json")"
	check "check --btf over a bad ARENAPROF_BTF: the option wins, source --btf, btf ok" \
		btf_json "$TMP/cb.json" 'd["btf"] == {"source": "--btf", "file": "'$SYSBTF'"} and
f["btf"]["status"] == "ok" and "read this process right" in f["btf"]["detail"]'
	ARENAPROF_BTF=$SYSBTF "$ARENAPROF" check >"$TMP/ce.txt" 2>/dev/null
	MSG="$(head -3 "$TMP/ce.txt")"
	check "check with ARENAPROF_BTF: the text says BTF: ARENAPROF_BTF=FILE" \
		grep -qx "BTF: ARENAPROF_BTF=$SYSBTF" "$TMP/ce.txt"
else
	fail "--btf tests" "$SYSBTF is not readable here"
fi
expect_refusal "record --btf /nonexistent: exit 2, one line" 2 \
	"^arenaprof record: --btf /nonexistent: No such file or directory$" \
	"$ARENAPROF" record --btf /nonexistent -o "$TMP/x.trace" -- true
expect_refusal "record --btf /etc/passwd: exit 2, one line: not BTF" 2 \
	"^arenaprof record: --btf /etc/passwd: not BTF" \
	"$ARENAPROF" record --btf /etc/passwd -o "$TMP/x.trace" -- true
expect_refusal "ARENAPROF_BTF=/etc/passwd check: exit 2, one line naming it" 2 \
	"^arenaprof check: ARENAPROF_BTF=/etc/passwd: not BTF" \
	env ARENAPROF_BTF=/etc/passwd "$ARENAPROF" check
expect_refusal "top --btf /nonexistent: exit 2, one line" 2 \
	"^arenaprof top: --btf /nonexistent: No such file" "$ARENAPROF" top -p $$ --btf /nonexistent
# a BTF whose layout check passes but where a type the programs use is gone (its name
# changed in the string table): the CO-RE relocation fails, and says which
if python3 -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"\0vm_area_struct\0")
b[i + 14] = ord("X")
open(sys.argv[2], "wb").write(b)' $SYSBTF "$TMP/novma.btf" 2>/dev/null; then
	want="perf: --btf $TMP/novma.btf is not this kernel's BTF (uname -r $(uname -r)): CO-RE"
	want="$want cannot relocate struct vm_area_struct.vm_flags against it"
	expect_refusal "record --btf without vm_area_struct: exit 1, the relocation named" \
		1 "$want" \
		"$ARENAPROF" record --probe perf --btf "$TMP/novma.btf" -o "$TMP/x.trace" -- true
else
	fail "a BTF without vm_area_struct" "could not patch a copy of $SYSBTF"
fi
# another kernel's BTF: the VM suite's cached 6.1 kernel (scripts/vm/fetch-kernels)
other=${ARENAPROF_VM_CACHE:-/var/cache/arenaprof-vm}/linux-6.1/vmlinuz
if [ -s "$other" ] && python3 scripts/btf-from-image.py "$other" "$TMP/6.1.btf" >/dev/null 2>&1
then
	expect_refusal "record --btf of another kernel (6.1): exit 1, one line, uname -r named" 1 \
		"is not this kernel's BTF (uname -r $(uname -r)): .*probably for another kernel" \
		"$ARENAPROF" record --btf "$TMP/6.1.btf" -o "$TMP/x.trace" -- true
	"$ARENAPROF" check --btf "$TMP/6.1.btf" --json >"$TMP/co.json" 2>/dev/null
	MSG="$(head -c 600 "$TMP/co.json")"
	check "check --btf of another kernel: btf missing, record and top unavailable" \
		btf_json "$TMP/co.json" 'f["btf"]["status"] == "missing" and
"another kernel" in f["btf"]["detail"] and d["faces"]["record"] == "unavailable"'
else
	skip "another kernel's BTF refused" \
		"no $other to cut a 6.1 BTF from (scripts/vm/fetch-kernels)"
fi
# no built-in BTF: /sys/kernel/btf hidden by a tmpfs in a mount namespace of the test's own
if unshare -m --propagation private true 2>/dev/null; then
	cp $SYSBTF "$TMP/vmlinux.btf"
	# hidden CMD...: CMD with /sys/kernel/btf empty
	hidden=(unshare -m --propagation private sh -c
		'mount -t tmpfs none /sys/kernel/btf && exec "$@"' _)
	want="no kernel BTF (/sys/kernel/btf/vmlinux: No such file or directory): give --btf FILE"
	want="$want or ARENAPROF_BTF=FILE, this kernel's BTF (uname -r $(uname -r)), from pahole -J"
	name="no built-in BTF, no --btf: record exits 1, one line naming --btf, ARENAPROF_BTF"
	expect_refusal "$name, pahole, BTFHub" 1 "$want .*BTFHub" \
		"${hidden[@]}" "$ARENAPROF" record -o "$TMP/x.trace" -- true
	"${hidden[@]}" "$ARENAPROF" check --json >"$TMP/cm.json" 2>/dev/null
	MSG="$(head -c 600 "$TMP/cm.json")"
	check "no built-in BTF: check says source missing, btf missing naming --btf" \
		btf_json "$TMP/cm.json" 'd["btf"] == {"source": "missing", "file": None} and
f["btf"]["status"] == "missing" and "--btf FILE" in f["btf"]["detail"]'
	"${hidden[@]}" "$ARENAPROF" check >"$TMP/cm.txt" 2>/dev/null
	MSG="$(head -3 "$TMP/cm.txt")"
	check "no built-in BTF: the text says BTF: missing and that --btf fixes it" \
		grep -qx "BTF: missing (--btf FILE or ARENAPROF_BTF=FILE fixes it)" "$TMP/cm.txt"
	"${hidden[@]}" "$ARENAPROF" record --btf "$TMP/vmlinux.btf" -o "$TMP/hid.trace" \
		--run-probe "$MI:mininfer_invoke" --op-probe "$MI:mininfer_op:0" -- \
		"$MI" "$MV2" --runs $BR >/dev/null 2>"$TMP/hid.err"
	r=$?
	"$ARENAPROF" report "$TMP/hid.trace" --plan "$MV2" --json --pages >"$TMP/hid.json" \
		2>>"$TMP/hid.err"
	MSG="exit $r: $(tail -3 "$TMP/hid.err")"
	check "no built-in BTF, --btf a copy of it: record exits 0 with perf (tp, fentry named)" \
		sh -c '[ "$1" = 0 ] && grep -q "tracing pid [0-9]* with perf" "$2" &&
			grep -q "tp: attaches by the kernel.s own BTF ids" "$2"' _ \
		"$r" "$TMP/hid.err"
	btf_pages hid "no built-in BTF, --btf"
	"${hidden[@]}" "$ARENAPROF" check --btf "$TMP/vmlinux.btf" --json >"$TMP/ch.json" \
		2>/dev/null
	MSG="$(head -c 600 "$TMP/ch.json")"
	check "no built-in BTF, check --btf: btf ok from the file, kernel_btf ok, perf ok" \
		btf_json "$TMP/ch.json" 'd["btf"]["source"] == "--btf" and
f["btf"]["status"] == "ok"
and f["kernel_btf"]["status"] == "ok" and f["perf_events"]["status"] == "ok" and
f["tp_btf"]["status"] == "missing"'
else
	skip "no built-in BTF (hidden in a mount namespace)" "unshare -m is refused here"
fi

# usage
MSG="$("$ARENAPROF" check --help 2>&1 | head -3)"
check "check --help: exit 0, lists --json" sh -c '"$1" check --help | grep -q -- "--json"' _ \
	"$ARENAPROF"
expect_refusal "check --bogus: exit 2, one line" 2 "bad option" "$ARENAPROF" check --bogus
expect_refusal "check extra: exit 2, one line" 2 "no arguments" "$ARENAPROF" check extra
