#!/usr/bin/env bash
# make install, install-strip and uninstall into a scratch DESTDIR: every file in place, a
# stripped binary that runs, completions that offer every option each command's --help
# lists, and nothing left after uninstall.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

D=$TMP/root
make -s install-strip BUILD="$BUILD" DESTDIR="$D" PREFIX=/usr >"$TMP/install.log" 2>&1
rc=$?
MSG="exit $rc: $(tail -3 "$TMP/install.log")"
check "make install-strip DESTDIR=... PREFIX=/usr: exit 0" [ "$rc" = 0 ]
want="bin/arenaprof $(ls man/*.1 | sed "s|^man/|share/man/man1/|") share/man/man5/arenaprof-trace.5
share/bash-completion/completions/arenaprof share/zsh/site-functions/_arenaprof
share/fish/vendor_completions.d/arenaprof.fish"
got=$(cd "$D/usr" 2>/dev/null && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
MSG="installed: $got"
check "install: the binary, the man pages and three completions, nothing else" \
	[ "$got" = "$(printf '%s\n' $want | sort | tr '\n' ' ')" ]
MSG="$(readelf -S "$D/usr/bin/arenaprof" 2>&1 | grep -c symtab) symbol tables"
check "install-strip: the binary has no symbol table and runs" sh -c '
	! readelf -S "$1" | grep -q "\.symtab" && "$1" --version | grep -q "^arenaprof "' _ \
	"$D/usr/bin/arenaprof"

# bash completion: the commands, then each command's options as its --help lists them
comp() {	# comp WORD...: what the completion offers for the last word
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _arenaprof
		printf "%s\n" "${COMPREPLY[@]}"' _ "$D/usr/share/bash-completion/completions/arenaprof" "$@"
}
MSG="$(comp arenaprof "" | tr '\n' ' ')"
check "bash completion: the commands" sh -c '
	for c in plan record report top heatmap export run diff check; do
		printf "%s\n" "$1" | grep -qw "$c" || exit 1; done' _ "$MSG"
# every option a command's --help lists in its own option lines ("  --name") is offered
for c in plan record report heatmap export run diff top check; do
	offered=$(comp arenaprof "$c" -- | tr '\n' ' ')
	listed=$("$ARENAPROF" "$c" --help | grep -oE -- '^ +--[a-z][a-z-]*[a-z]' | tr -d ' ' |
		sort -u)
	missing=$(for o in $listed; do [[ " $offered " == *" $o "* ]] || printf '%s ' "$o"; done)
	MSG="not offered: ${missing:-none}"
	check "bash completion of $c: every option its --help lists" [ -z "$missing" ]
done

make -s uninstall DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1
left=$(find "$D" -type f | wc -l)
MSG="$left files left"
check "make uninstall: every installed file removed" [ "$left" = 0 ]
