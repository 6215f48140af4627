#!/usr/bin/env bash
# Output paths as root in a directory other users can write to (util/outfile.c): record -o
# and export -o do not follow a planted symbolic link, do not write through another
# user's file in a sticky world-writable directory, refuse a FIFO at once instead of
# blocking, and create traces 0600 (they hold addresses and command lines). The files
# the refusals protect must come out byte for byte unchanged.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

if [ "$(id -u)" != 0 ]; then
	skip "output paths" "needs root (record, and files owned by another user)"
	exit 0
fi
if ! id nobody >/dev/null 2>&1; then
	fail "output paths" "no user 'nobody' to plant files as"
	exit 0
fi
AP=$ARENAPROF
shared=$TMP/shared
mkdir -p "$shared"
chmod 1777 "$shared"
victim=$TMP/victim
printf 'secret\n' > "$victim"
chmod 0600 "$victim"
sum() { sha256sum "$1" | cut -d' ' -f1; }
want=$(sum "$victim")


ln -s "$victim" "$shared/link.trace"
chown -h nobody "$shared/link.trace"
expect_refusal "record -o through a symlink nobody planted: refused" 2 "symbolic link" \
	"$AP" record -o "$shared/link.trace" -- true
MSG="the link's target changed"
check "... the file it points to is untouched" [ "$(sum "$victim")" = "$want" ]

printf 'nobody owns this\n' > "$shared/theirs.trace"
chown nobody "$shared/theirs.trace"
theirs=$(sum "$shared/theirs.trace")
expect_refusal "record -o onto nobody's file in a sticky world-writable directory: refused" 2 \
	"another user" "$AP" record -o "$shared/theirs.trace" -- true
MSG="changed"
check "... their file is untouched" [ "$(sum "$shared/theirs.trace")" = "$theirs" ]

mkfifo "$shared/fifo.trace"
expect_refusal "record -o onto a FIFO: refused at once, not blocked" 2 "FIFO" \
	"$AP" record -o "$shared/fifo.trace" -- true

"$AP" record -o "$TMP/new.trace" -- true >/dev/null 2>&1
MSG="mode $(stat -c %a "$TMP/new.trace" 2>&1)"
check "a new trace is created 0600" [ "$(stat -c %a "$TMP/new.trace" 2>/dev/null)" = 600 ]
printf 'old contents, longer than nothing at all\n' > "$TMP/mine.trace"
chmod 0644 "$TMP/mine.trace"
"$AP" record -o "$TMP/mine.trace" -- true >/dev/null 2>&1
MSG="mode $(stat -c %a "$TMP/mine.trace") head $(head -c 8 "$TMP/mine.trace" | od -c | head -1)"
check "an existing trace of our own is rewritten and made 0600" \
	sh -c '[ "$(stat -c %a "$1")" = 600 ] && head -c 7 "$1" | grep -q APTRACE' _ \
	"$TMP/mine.trace"

ln -s "$victim" "$shared/link.json"
chown -h nobody "$shared/link.json"
expect_refusal "export -o through a planted symlink: refused" 2 "symbolic link" \
	"$AP" export "$TMP/new.trace" --format json -o "$shared/link.json"
MSG="the link's target changed"
check "... the file it points to is untouched" [ "$(sum "$victim")" = "$want" ]

ln -s "$victim" "$shared/link.svg"
chown -h nobody "$shared/link.svg"
expect_refusal "heatmap -o through a planted symlink: refused" 2 "symbolic link" \
	"$AP" heatmap "$TMP/new.trace" --plan "$MODELS/mobilenet_v2_1.0_224_quant.tflite" \
	--force -o "$shared/link.svg"
MSG="the link's target changed"
check "... the file it points to is untouched" [ "$(sum "$victim")" = "$want" ]
