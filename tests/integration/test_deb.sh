#!/usr/bin/env bash
# make deb and make deb-arm64: the packages' fields and contents, lintian's verdict (no
# error, no warning), the amd64 one installed into a scratch root with dpkg and run from
# there, then removed; the arm64 one's binary run under qemu-user with the arm64 loader.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

ARM64_BUILD=${ARM64_BUILD:-$BUILD/arm64}
VERSION=$(sed -n 's/^#define AP_VERSION "\(.*\)"/\1/p' include/arenaprof/cli/cmd.h)
# the package's version: AP_VERSION and the Debian revision of the changelog's latest entry
DEBVERSION=$(sed -n '1s/^arenaprof (\([^)]*\)).*/\1/p' scripts/pkg/deb/changelog)
want="./usr/bin/arenaprof ./usr/share/bash-completion/completions/arenaprof
./usr/share/doc/arenaprof/changelog.Debian.gz ./usr/share/doc/arenaprof/copyright
./usr/share/fish/vendor_completions.d/arenaprof.fish ./usr/share/lintian/overrides/arenaprof
$(ls man/*.1 | sed "s|^man/\\(.*\\)|./usr/share/man/man1/\\1.gz|") ./usr/share/man/man5/arenaprof-trace.5.gz
./usr/share/zsh/site-functions/_arenaprof"

# deb_check NAME DEB DEBARCH: fields, the files it holds, lintian's errors and warnings
deb_check() {
	local name=$1 deb=$2 arch=$3 info files out rc tags
	info=$(dpkg-deb --info "$deb" 2>&1)
	MSG="$(printf '%s' "$info" | grep -E 'Package|Version|Architecture|Depends' | tr '\n' ' ')"
	check "$name: package arenaprof $DEBVERSION, $arch, depending on libbpf1 and ncurses" \
		sh -c 'printf "%s\n" "$1" | grep -q "Package: arenaprof" &&
			printf "%s\n" "$1" | grep -qx " Version: $2" &&
			printf "%s\n" "$1" | grep -q "Architecture: $3" &&
			printf "%s\n" "$1" | grep -q "Depends: .*libbpf1.*libncursesw6"' _ \
		"$info" "$DEBVERSION" "$arch"
	MSG="changelog.Debian.gz's latest entry: $(dpkg-deb --fsys-tarfile "$deb" |
		tar -xOf - ./usr/share/doc/arenaprof/changelog.Debian.gz | gzip -dc | head -1)"
	check "$name: the changelog's latest entry is $VERSION's" \
		sh -c 'printf "%s" "$1" | grep -q ": arenaprof ($2-[0-9][^)]*) "' _ "$MSG" "$VERSION"
	files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sort | tr '\n' ' ')
	MSG="$files"
	check "$name: the binary, man pages, completions, changelog, copyright, overrides" \
		[ "$files" = "$(printf '%s\n' $want | sort | tr '\n' ' ')" ]
	if ! command -v lintian >/dev/null; then
		fail "$name: lintian" "lintian is missing (run scripts/install-deps)"
		return
	fi
	# E: and W: lines are errors and warnings (overridden tags print nothing); exit 0
	# with --fail-on none unless lintian itself failed
	out=$(lintian --fail-on none "$deb" 2>&1)
	rc=$?
	tags=$(printf '%s\n' "$out" | grep -E '^[EW]: ')
	MSG="$(printf '%s' "${tags:-exit $rc: $out}" | tr '\n' ';')"
	check "$name: lintian reports no error and no warning" \
		sh -c '[ "$1" = 0 ] && [ -z "$2" ]' _ "$rc" "$tags"
}

out=$(make -s deb BUILD="$BUILD" 2>&1 | tail -1)
deb=$BUILD/arenaprof_${DEBVERSION}_amd64.deb
[ "$(uname -m)" = aarch64 ] && deb=$BUILD/arenaprof_${DEBVERSION}_arm64.deb
MSG="$out"
check "make deb: $(basename "$deb") built" [ -f "$deb" ]
deb_check "deb" "$deb" "$(dpkg --print-architecture)"

# dpkg into a scratch root: installed, listed, run, removed
R=$TMP/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
: >"$R/var/lib/dpkg/status"
dpkg --root="$R" --force-depends --force-not-root --force-bad-path -i "$deb" \
	>"$TMP/dpkg.log" 2>&1
rc=$?
MSG="exit $rc: $(tail -2 "$TMP/dpkg.log")"
check "dpkg -i into a scratch root: installed" sh -c '[ "$1" = 0 ] &&
	dpkg --root="$2" -s arenaprof 2>/dev/null | grep -q "Status: install ok installed"' \
	_ "$rc" "$R"
MSG="$("$R/usr/bin/arenaprof" --version 2>&1)"
check "the installed arenaprof runs: $MSG" [ "$MSG" = "arenaprof $VERSION" ]
dpkg --root="$R" --force-not-root --force-bad-path -r arenaprof >>"$TMP/dpkg.log" 2>&1
left=$(find "$R/usr" -type f 2>/dev/null | wc -l)
MSG="$left files left"
check "dpkg -r: every file of the package removed" [ "$left" = 0 ]

if [ "$(uname -m)" != x86_64 ]; then
	exit 0	# the board builds its own package natively: the deb above
fi
out=$(make -s deb-arm64 BUILD="$BUILD" 2>&1 | tail -1)
deb64=$ARM64_BUILD/arenaprof_${DEBVERSION}_arm64.deb
MSG="$out"
check "make deb-arm64: $(basename "$deb64") built from the cross build" [ -f "$deb64" ]
deb_check "deb-arm64" "$deb64" arm64
mkdir -p "$TMP/x64"
dpkg-deb -x "$deb64" "$TMP/x64"
MSG="$(readelf -h "$TMP/x64/usr/bin/arenaprof" 2>&1 | grep Machine)"
check "deb-arm64: an AArch64 binary" sh -c 'printf "%s" "$1" | grep -q AArch64' _ "$MSG"
if command -v qemu-aarch64-static >/dev/null && [ -e /lib/ld-linux-aarch64.so.1 ]; then
	MSG="$(qemu-aarch64-static /lib/ld-linux-aarch64.so.1 "$TMP/x64/usr/bin/arenaprof" \
		--version 2>&1)"
	check "deb-arm64: its arenaprof runs under qemu-user: $MSG" [ "$MSG" = "arenaprof $VERSION" ]
else
	fail "deb-arm64 under qemu-user" "qemu-aarch64-static or the arm64 loader is missing (scripts/install-deps)"
fi
