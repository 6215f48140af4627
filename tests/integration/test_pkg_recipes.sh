#!/usr/bin/env bash
# meta-arenaprof (the Yocto layer) and the Buildroot package under scripts/pkg/, as far as
# this machine goes without bitbake or a Buildroot tree:
# - the layer's recipe, bbappend and layer.conf parse (oelint-adv and oelint-parser, from
#   /opt/oelint-venv) with no error-level finding, and layer.conf's BBFILES finds them;
# - both kernel fragments hold every CONFIG_ `arenaprof check --json` names;
# - AP_ARCH: the recipe's own Python (pkg_recipe_eval.py runs it) maps x86_64 and aarch64
#   and skips 32-bit ARM and i686 with the reason; the package's ARENAPROF_ARCH, included
#   by make as Buildroot includes it (pkg_buildroot_stub.mk), sends 32-bit ARM to the
#   Makefile, which refuses it;
# - fetch: a bare mirror of this repository stands in for the published one; the
#   recipe's SRC_URI and SRCREV, and the package's SITE and VERSION, pointed at it by
#   their documented overrides, are cloned and checked out as bitbake's git fetcher and
#   Buildroot's git download do, then cross-built and installed with their own make
#   steps and Debian's arm64 cross toolchain (aarch64-linux-gnu-gcc, its pkg-config for
#   the :arm64 libraries, the host's clang and bpftool) standing in for Yocto's sysroot
#   and Buildroot's toolchain: an aarch64 arenaprof with its man pages and completions.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

LAYER=scripts/pkg/yocto/meta-arenaprof
BB=$LAYER/recipes-devtools/arenaprof/arenaprof_0.1.0.bb
APPEND="$LAYER/recipes-kernel/linux/linux-yocto_%.bbappend"
INC=$LAYER/recipes-kernel/linux/linux-yocto-arenaprof.inc
YFRAG=$LAYER/recipes-kernel/linux/linux-yocto/arenaprof.cfg
PKG=scripts/pkg/buildroot/arenaprof/
BFRAG=${PKG}linux.fragment
STUB=tests/integration/pkg_buildroot_stub.mk
OELINT=${ARENAPROF_OELINT_VENV:-/opt/oelint-venv}
TOP=$(git rev-parse --show-toplevel)

if ! command -v aarch64-linux-gnu-gcc >/dev/null ||
   ! command -v aarch64-linux-gnu-pkg-config >/dev/null; then
	fail "arm64 cross toolchain" "aarch64-linux-gnu-gcc or -pkg-config missing: run scripts/install-deps"
	exit 1
fi
if ! "$OELINT/bin/python" -c 'import oelint_parser' 2>/dev/null; then
	fail "oelint" "no oelint-adv in $OELINT: run scripts/install-deps"
	exit 1
fi
yeval() { "$OELINT/bin/python" tests/integration/pkg_recipe_eval.py "$BB" "$@"; }
brvar() {	# NAME [MAKE-VARS...]: the package's variable, as Buildroot's make expands it
	local v=$1; shift
	make -s -f "$STUB" ARENAPROF_PKGDIR="$PKG" SRC=/nonexistent "$@" "print-$v"
}

want_md5=$(yeval var LIC_FILES_CHKSUM | sed -n 's/^file:\/\/LICENSE;md5=\([0-9a-f]*\)$/\1/p')
got_md5=$(md5sum LICENSE | cut -d' ' -f1)
MSG="recipe $want_md5, LICENSE $got_md5" \
	check "yocto: LIC_FILES_CHKSUM is LICENSE's md5" test -n "$want_md5" -a "$want_md5" = "$got_md5"

# ---- parsing: layer.conf, then oelint-adv's findings for every series it names ----
"$OELINT/bin/oelint-adv" --quiet "$LAYER/conf/layer.conf" >"$TMP/oelint-conf.txt" 2>&1
MSG="$(cat "$TMP/oelint-conf.txt")"
check "yocto: oelint-adv finds nothing in layer.conf" test -z "$MSG"
layer=$("$OELINT/bin/python" - "$TOP/$LAYER" <<'PY'
import glob, sys
from oelint_parser.cls_item import Variable
from oelint_parser.cls_stash import Stash
layer = sys.argv[1]
stash = Stash(quiet=True)
stash.AddFile(layer + "/conf/layer.conf")
stash.Finalize()
v = {i.VarName + ("_" + i.SubItem if i.SubItem else ""): i.VarValueStripped
     for i in stash.GetItemsFor(classifier=Variable.CLASSIFIER)}
files = sorted(f[len(layer) + 1:] for g in v.get("BBFILES", "").split()
	       for f in glob.glob(g.replace("${LAYERDIR}", layer)))
print(v.get("BBFILE_COLLECTIONS"), *files)
print(v.get("LAYERSERIES_COMPAT_arenaprof"))
PY
)
series=$(sed -n 2p <<<"$layer")
MSG="layer.conf: '$layer'"
check "yocto: layer.conf names its collection and series, its BBFILES the recipe and bbappend" \
	test "$(sed -n 1p <<<"$layer")" = "arenaprof recipes-devtools/arenaprof/arenaprof_0.1.0.bb \
recipes-kernel/linux/linux-yocto_%.bbappend" -a -n "$series" -a "$series" != None
for r in $series; do
	"$OELINT/bin/oelint-adv" --quiet --release "$r" --mode all "$BB" "$APPEND" "$INC" \
		>"$TMP/oelint.txt" 2>&1
	parsed=$(grep -c "^$TOP/$LAYER/" "$TMP/oelint.txt")
	MSG="$(grep -v "^$TOP/$LAYER/.*:\(info\|warning\|error\):" "$TMP/oelint.txt" | head -3)"
	check "yocto ($r): oelint-adv parses the recipe, the bbappend and its .inc" \
		sh -c '[ -z "$1" ] && [ "$2" -gt 0 ]' _ "$MSG" "$parsed"
	MSG="$(grep ':error:' "$TMP/oelint.txt")"
	check "yocto ($r): oelint-adv finds no error in them" test -z "$MSG"
	echo "oelint-adv --release $r: $(grep -c ':warning:' "$TMP/oelint.txt") warnings," \
		"$(grep -c ':info:' "$TMP/oelint.txt") infos"
done
MSG="bbappend: $(cat "$APPEND")"
check "yocto: the bbappend requires the fragment's .inc only for DISTRO_FEATURES arenaprof" \
	grep -q "^require \${@bb.utils.contains('DISTRO_FEATURES', 'arenaprof', '${INC##*/}', '', d)}$" \
	"$APPEND"

# ---- the kernel fragments against what arenaprof check names ----
"$ARENAPROF" check --json >"$TMP/check.json" 2>/dev/null
frag=$(python3 - "$TMP/check.json" "$YFRAG" "$BFRAG" <<'PY'
import json, re, sys
opts = [f["kernel_option"] for f in json.load(open(sys.argv[1]))["features"]]
named = set(re.findall(r"CONFIG_\w+", " ".join(opts)))
want_y = set(re.findall(r"(CONFIG_\w+)=y", " ".join(opts)))
def settings(path):
	s = {}
	for line in open(path):
		m = re.match(r"^(CONFIG_\w+)=(\S+)$|^# (CONFIG_\w+) is not set$", line)
		if m:
			s[m.group(1) or m.group(3)] = m.group(2) or "n"
	return s
y, b = settings(sys.argv[2]), settings(sys.argv[3])
for name, s in (("yocto", y), ("buildroot", b)):
	bad = sorted(o for o in named if o not in s or (o in want_y and s[o] != "y"))
	print("%s %d %s" % (name, len(named), ",".join(bad) or "-"))
print("same", "yes" if y == b else "no", len(y))
PY
)
for w in yocto buildroot; do
	set -- $(grep "^$w " <<<"$frag")
	MSG="check names $2 options; missing or not =y: $3"
	check "$w: the kernel fragment has every CONFIG_ arenaprof check names" \
		test "${2:-0}" -gt 10 -a "$3" = -
done
MSG="$frag"
check "the Yocto and Buildroot fragments set the same options" grep -q '^same yes ' <<<"$frag"
MSG="$(grep PSI_DEFAULT_DISABLED "$YFRAG")"
check "the fragment leaves PSI on by default (check: psi=1 with CONFIG_PSI_DEFAULT_DISABLED)" \
	grep -qx '# CONFIG_PSI_DEFAULT_DISABLED is not set' "$YFRAG"

# ---- the architectures ----
for a in x86_64:x86 aarch64:arm64; do
	got=$(yeval arch "${a%:*}" 2>&1)
	MSG="AP_ARCH for ${a%:*}: '$got'"
	check "yocto: TARGET_ARCH ${a%:*} builds ARCH=${a#*:}" test "$got" = "${a#*:}"
done
for a in arm i686; do
	got=$(yeval arch $a 2>&1)
	MSG="TARGET_ARCH $a: '$got'"
	check "yocto: TARGET_ARCH $a skips the recipe at parse time, saying why" test "$got" = \
		"skip: arenaprof: TARGET_ARCH $a is not supported: its BPF object needs a bpf/ARCH/vmlinux.h, which exists for x86_64 and aarch64 only"
done
for a in aarch64:arm64 x86_64:x86 arm:arm; do
	got=$(brvar ARENAPROF_ARCH "BR2_${a%:*}=y" BR2_ARCH="${a%:*}")
	MSG="ARENAPROF_ARCH for BR2_${a%:*}: '$got'"
	check "buildroot: BR2_${a%:*} builds ARCH=${a#*:}" test "$got" = "${a#*:}"
done

# ---- fetch: a bare mirror, the pinned revision ----
git clone -q --bare "$TOP" "$TMP/mirror.git"
srcrev=$(yeval var SRCREV)
brver=$(brvar ARENAPROF_VERSION)
MSG="SRCREV '$srcrev', ARENAPROF_VERSION '$brver'"
check "yocto and buildroot pin the same commit" \
	sh -c '[ "${#1}" = 40 ] && [ "$1" = "$2" ]' _ "$srcrev" "$brver"
MSG="$srcrev is not an ancestor of main in $TOP"
check "the pinned commit is in main's history" \
	git -C "$TMP/mirror.git" merge-base --is-ancestor "$srcrev" main
pinned=$(git -C "$TMP/mirror.git" show "$srcrev:include/arenaprof/cli/cmd.h" 2>/dev/null |
	sed -n 's/^#define AP_VERSION "\(.*\)"$/\1/p')
pv=$(yeval var PV)
MSG="PV '$pv', recipe file $(basename "$BB"), AP_VERSION at $srcrev '$pinned'"
check "yocto: PV and the recipe's name are the pinned commit's AP_VERSION" \
	test -n "$pinned" -a "$pv" = "$pinned+git" -a "$(basename "$BB")" = "arenaprof_$pinned.bb"
ygit=$(yeval var ARENAPROF_GIT_URL)
brsite=$(brvar ARENAPROF_SITE)
MSG="default ARENAPROF_GIT_URL '$ygit', ARENAPROF_SITE '$brsite'"
check "by default both fetch from the repository they sit in" \
	test "$ygit" = "$TOP" -a "$brsite" = "$TOP"

# installed: the aarch64 binary and what make install adds beside it
installed() {	# NAME ROOT LOG
	local bin=$2/usr/bin/arenaprof
	MSG="$(tail -3 "$3")"
	check "$1: builds and installs /usr/bin/arenaprof" test -x "$bin"
	[ -x "$bin" ] || return
	MSG="$(readelf -h "$bin" | grep Machine)"
	check "$1: the binary is AArch64" sh -c 'readelf -h "$1" | grep -q "Machine:.*AArch64"' _ "$bin"
	for f in share/man/man1/arenaprof.1 share/man/man1/arenaprof-record.1 \
		 share/man/man5/arenaprof-trace.5 share/bash-completion/completions/arenaprof \
		 share/zsh/site-functions/_arenaprof share/fish/vendor_completions.d/arenaprof.fish; do
		[ -f "$2/usr/$f" ] || [ -f "$2/usr/$f.gz" ] || { MSG="no /usr/$f"; break; }
		MSG=
	done
	check "$1: man pages and bash, zsh and fish completions installed under /usr" test -z "$MSG"
}

# ---- Yocto: do_fetch, do_unpack, do_compile, do_install ----
uri=$(yeval var SRC_URI ARENAPROF_GIT_URL="$TMP/mirror.git")
MSG="SRC_URI with ARENAPROF_GIT_URL=$TMP/mirror.git: '$uri'"
check "yocto: ARENAPROF_GIT_URL points SRC_URI at the mirror" \
	test "$uri" = "git://$TMP/mirror.git;protocol=file;branch=main;destsuffix=git"
# bitbake's git fetcher: a bare mirror clone into DL_DIR, SRCREV on the branch, then a
# shared clone checked out at SRCREV in UNPACKDIR/destsuffix, which must be S
url=${uri%%;*}; url=file://${url#git://}
branch=$(tr ';' '\n' <<<"$uri" | sed -n 's/^branch=//p')
dest=$(tr ';' '\n' <<<"$uri" | sed -n 's/^destsuffix=//p')
s_dir=$(yeval var S UNPACKDIR="$TMP/yocto")
MSG="S '$s_dir', unpacked into '$TMP/yocto/$dest'"
check "yocto: S is where the git fetcher unpacks SRC_URI" test "$s_dir" = "$TMP/yocto/$dest"
git clone -q --bare --mirror "$url" "$TMP/dl/git2/arenaprof.git"
MSG="$(git -C "$TMP/dl/git2/arenaprof.git" branch --contains "$srcrev" 2>&1)"
check "yocto: the fetch finds SRCREV on branch $branch" \
	sh -c 'git -C "$1" branch --contains "$2" --list "$3" | grep -q .' _ \
	"$TMP/dl/git2/arenaprof.git" "$srcrev" "$branch"
git clone -q -s -n "$TMP/dl/git2/arenaprof.git" "$s_dir" &&
	git -C "$s_dir" checkout -q "$srcrev"
MSG="HEAD $(git -C "$s_dir" rev-parse HEAD 2>&1)"
check "yocto: S is checked out at SRCREV" \
	test "$(git -C "$s_dir" rev-parse HEAD 2>/dev/null)" = "$srcrev"
# The sysroot's pkg-config is a wrapper bound to the target sysroot: the cross one here.
mkdir -p "$TMP/sdk-bin"
ln -s "$(command -v aarch64-linux-gnu-pkg-config)" "$TMP/sdk-bin/pkg-config"
yvars=(TARGET_ARCH=aarch64 TARGET_PREFIX=aarch64-linux-gnu- CC=aarch64-linux-gnu-gcc
       B="$s_dir" D="$TMP/yocto-image" prefix=/usr)
oemake=$(yeval var EXTRA_OEMAKE "${yvars[@]}")
compile=$(yeval run do_compile "${yvars[@]}")
install=$(yeval run do_install "${yvars[@]}")
MSG="EXTRA_OEMAKE '$oemake', do_compile '$compile', do_install '$install'"
check "yocto: EXTRA_OEMAKE, do_compile and do_install read from the recipe" \
	test -n "$oemake" -a -n "$compile" -a -n "$install"
# oe_runmake: ${MAKE} ${EXTRA_OEMAKE} "$@" in ${B} (= ${S} here)
(cd "$s_dir" && PATH="$TMP/sdk-bin:$PATH" &&
	eval "make -j2 $oemake $compile" && eval "make $oemake $install") >"$TMP/yocto.log" 2>&1
installed yocto "$TMP/yocto-image" "$TMP/yocto.log"

# ---- Buildroot: the git download, BUILD_CMDS, INSTALL_TARGET_CMDS ----
site=$(brvar ARENAPROF_SITE ARENAPROF_SITE="$TMP/mirror.git")
MSG="ARENAPROF_SITE=$TMP/mirror.git gives '$site', SITE_METHOD '$(brvar ARENAPROF_SITE_METHOD)'"
check "buildroot: ARENAPROF_SITE points the git download at the mirror" \
	test "$site" = "$TMP/mirror.git" -a "$(brvar ARENAPROF_SITE_METHOD)" = git
# support/download/git: fetch the version from the site, then the tree of that commit
# (tracked files only) as the package's build directory
git init -q "$TMP/br-dl" && git -C "$TMP/br-dl" fetch -q "$site" "+refs/heads/*:refs/heads/*" &&
	mkdir -p "$TMP/br-src" &&
	git -C "$TMP/br-dl" archive "$brver" | tar -x -C "$TMP/br-src"
MSG="$(ls "$TMP/br-src" 2>&1 | head -3)"
check "buildroot: the download gives ARENAPROF_VERSION's tree" test -f "$TMP/br-src/Makefile"
mkdir -p "$TMP/br-host/bin" "$TMP/br-host/sbin"
ln -s "$(command -v clang)" "$TMP/br-host/bin/clang"
ln -s "$(command -v bpftool)" "$TMP/br-host/sbin/bpftool"
brargs=(ARENAPROF_PKGDIR="$PKG" SRC="$TMP/br-src" BR2_aarch64=y
	TARGET_CROSS=aarch64-linux-gnu- TARGET_CC=aarch64-linux-gnu-gcc
	PKG_CONFIG_HOST_BINARY=aarch64-linux-gnu-pkg-config HOST_DIR="$TMP/br-host"
	TARGET_DIR="$TMP/br-target")
(make -j2 -f "$STUB" "${brargs[@]}" "$TMP/br-src/.stamp_built" &&
	make -f "$STUB" "${brargs[@]}" "$TMP/br-src/.stamp_target_installed") >"$TMP/br.log" 2>&1
installed buildroot "$TMP/br-target" "$TMP/br.log"
MSG="$(file -b "$TMP/br-target/usr/bin/arenaprof" 2>&1)"
check "buildroot: install-strip leaves no symbol table" \
	sh -c '! readelf -S "$1" | grep -q "\.symtab"' _ "$TMP/br-target/usr/bin/arenaprof"
# 32-bit ARM (if Config.in's depends were bypassed): the package gives ARCH=arm and the
# Makefile stops on it before compiling anything. The host's pkg-config stands in for
# Buildroot's, which finds the selected libraries in the arm sysroot.
make -f "$STUB" "${brargs[@]/BR2_aarch64=y/BR2_arm=y}" BR2_ARCH=arm \
	TARGET_CROSS=arm-linux-gnueabihf- TARGET_CC=arm-linux-gnueabihf-gcc \
	PKG_CONFIG_HOST_BINARY=pkg-config "$TMP/br-src/.stamp_built" >"$TMP/arm.out" 2>"$TMP/arm.err"
rc=$?
MSG="exit $rc: $(cat "$TMP/arm.err")"
check "buildroot: a 32-bit ARM build is refused by the Makefile, naming the arch" \
	sh -c '[ "$1" != 0 ] && grep -qx "Makefile:[0-9]*: \*\*\* no bpf/arm/vmlinux.h: ARCH=arm is not supported (x86, arm64); scripts/gen-vmlinux makes one from a kernel.s BTF.  Stop." "$2"' \
	_ "$rc" "$TMP/arm.err"
MSG="$(grep -m3 '^  [A-Z]' "$TMP/arm.out")"
check "buildroot: nothing is compiled for 32-bit ARM" test -z "$MSG"
