#!/usr/bin/env bash
# The Yocto recipe and the Buildroot package under scripts/pkg/, run outside their trees:
# their make variables and build and install steps, read from the files themselves, with
# what Yocto's SDK and Buildroot's toolchain would give them stood in for by Debian's
# arm64 cross toolchain (aarch64-linux-gnu-gcc, its pkg-config for the :arm64 libraries,
# the host's clang and bpftool). Each builds the tree from scratch and installs it into a
# scratch root; the result must be an aarch64 arenaprof with its man pages and
# completions. The recipe's licence checksum must be LICENSE's: bitbake checks it.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

BB=scripts/pkg/yocto/arenaprof_0.1.0.bb
MK=scripts/pkg/buildroot/arenaprof/arenaprof.mk

if ! command -v aarch64-linux-gnu-gcc >/dev/null ||
   ! command -v aarch64-linux-gnu-pkg-config >/dev/null; then
	fail "arm64 cross toolchain" "aarch64-linux-gnu-gcc or -pkg-config missing: run scripts/install-deps"
	exit 1
fi

want_md5=$(sed -n 's/^LIC_FILES_CHKSUM = "file:\/\/LICENSE;md5=\([0-9a-f]*\)"$/\1/p' "$BB")
got_md5=$(md5sum LICENSE | cut -d' ' -f1)
MSG="recipe $want_md5, LICENSE $got_md5" \
	check "yocto: LIC_FILES_CHKSUM is LICENSE's md5" test -n "$want_md5" -a "$want_md5" = "$got_md5"

# the tracked files of this tree, as a fetcher would give them
src() {
	mkdir -p "$1"
	git ls-files -z | xargs -0 cp --parents -t "$1"
}

# installed: the aarch64 binary, stripped, and what make install adds beside it
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

# ---- Yocto: EXTRA_OEMAKE, do_compile (oe_runmake all), do_install ----
# The SDK's pkg-config is a wrapper bound to the target sysroot: the cross one here.
mkdir -p "$TMP/sdk-bin"
ln -s "$(command -v aarch64-linux-gnu-pkg-config)" "$TMP/sdk-bin/pkg-config"
arch=$(sed -n "s/^AP_ARCH = \"\${@bb.utils.contains('TARGET_ARCH', 'aarch64', '\([a-z0-9]*\)', .*/\1/p" "$BB")
MSG="AP_ARCH for aarch64: '$arch'"
check "yocto: an aarch64 TARGET_ARCH builds ARCH=arm64" test "$arch" = arm64
oemake=$(python3 - "$BB" "$TMP/yocto" <<'PY'
import re, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
m = re.search(r'^EXTRA_OEMAKE = "(.*?)"$', text, re.M)
given = {"AP_ARCH": "arm64", "TARGET_PREFIX": "aarch64-linux-gnu-",
	 "CC": "aarch64-linux-gnu-gcc", "B": sys.argv[2]}
print(re.sub(r"\$\{(\w+)\}", lambda k: given[k.group(1)], m.group(1)) if m else "")
PY
)
compile=$(sed -n '/^do_compile() {/,/^}/{s/^\toe_runmake \(.*\)/\1/p}' "$BB")
install=$(sed -n '/^do_install() {/,/^}/{s/^\toe_runmake \(.*\)/\1/p}' "$BB" |
	sed "s|\${D}|$TMP/yocto-image|; s|\${prefix}|/usr|")
MSG="EXTRA_OEMAKE '$oemake', do_compile '$compile', do_install '$install'"
check "yocto: EXTRA_OEMAKE, do_compile and do_install read from the recipe" \
	test -n "$oemake" -a -n "$compile" -a -n "$install"
src "$TMP/yocto-src"
(cd "$TMP/yocto-src" && PATH="$TMP/sdk-bin:$PATH" &&
	eval "make -j2 $oemake $compile" && eval "make $oemake $install") >"$TMP/yocto.log" 2>&1
installed yocto "$TMP/yocto-image" "$TMP/yocto.log"

# ---- Buildroot: ARENAPROF_MAKE_OPTS, BUILD_CMDS, INSTALL_TARGET_CMDS ----
mkdir -p "$TMP/br-host/bin" "$TMP/br-host/sbin"
ln -s "$(command -v clang)" "$TMP/br-host/bin/clang"
ln -s "$(command -v bpftool)" "$TMP/br-host/sbin/bpftool"
brarch=$(sed -n 's/^ARENAPROF_ARCH = $(if $(BR2_aarch64),\([a-z0-9]*\),.*/\1/p' "$MK")
MSG="ARENAPROF_ARCH for BR2_aarch64: '$brarch'"
check "buildroot: BR2_aarch64 builds ARCH=arm64" test "$brarch" = arm64
br=$(python3 - "$MK" "$TMP/br-src" "$TMP/br-host" "$TMP/br-target" <<'PY'
import re, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
given = {"ARENAPROF_ARCH": "arm64", "TARGET_CROSS": "aarch64-linux-gnu-",
	 "TARGET_CC": "aarch64-linux-gnu-gcc",
	 "PKG_CONFIG_HOST_BINARY": "aarch64-linux-gnu-pkg-config", "@D": sys.argv[2],
	 "HOST_DIR": sys.argv[3], "TARGET_DIR": sys.argv[4], "MAKE": "make",
	 "TARGET_MAKE_ENV": ""}
def subst(s):
	s = re.sub(r"\$\((ARENAPROF_MAKE_OPTS)\)", lambda k: opts, s)
	return re.sub(r"\$\(([@\w]+)\)", lambda k: given[k.group(1)], s)
m = re.search(r"^ARENAPROF_MAKE_OPTS = (.*)$", text, re.M)
opts = subst(m.group(1)) if m else ""
for name in ("BUILD_CMDS", "INSTALL_TARGET_CMDS"):
	c = re.search(r"^define ARENAPROF_%s\n\t(.*?)\nendef" % name, text, re.M | re.S)
	print(subst(c.group(1)).strip() if c else "")
PY
)
build=$(sed -n 1p <<<"$br")
inst=$(sed -n 2p <<<"$br")
MSG="BUILD_CMDS '$build', INSTALL_TARGET_CMDS '$inst'"
check "buildroot: the build and install commands read from the package" \
	test -n "$build" -a -n "$inst"
src "$TMP/br-src"
(eval "${build/make /make -j2 }" && eval "$inst") >"$TMP/br.log" 2>&1
installed buildroot "$TMP/br-target" "$TMP/br.log"
MSG="$(file -b "$TMP/br-target/usr/bin/arenaprof" 2>&1)"
check "buildroot: install-strip leaves no symbol table" \
	sh -c '! readelf -S "$1" | grep -q "\.symtab"' _ "$TMP/br-target/usr/bin/arenaprof"
