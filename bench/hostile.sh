#!/usr/bin/env bash
# Peak memory, time and index size of a sync over each book that costs far
# more than its size (internal/bomb/writebooks: books of one long word,
# books that inflate past the cap on a book's text), each in a library of
# its own beside a small ordinary book, with what status says of it.
# GRIMOIRE= measures another binary (an older build, say) on the same
# files.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ ! -x /usr/bin/time ]; then
	echo "needs GNU time (/usr/bin/time): apt-get install time" >&2
	exit 1
fi
bin=${GRIMOIRE:-}
if [ -z "$bin" ]; then
	bin=$work/grimoire
	go build -o "$bin" ./cmd/grimoire
fi
go run ./internal/bomb/writebooks "$work/books"
printf '%-24s %10s %10s %10s  %s\n' book "peak RSS" wall index status
for book in "$work"/books/*; do
	name=$(basename "$book")
	lib=$work/lib-$name
	mkdir -p "$lib"
	cp "$book" "$lib/"
	printf '# Small Book\n\nThe aardvark digs.\n' >"$lib/small.md"
	/usr/bin/time -v -o "$work/time" timeout "${TIMEOUT:-600}" "$bin" --library "$lib" sync >/dev/null 2>"$work/sync.err" || true
	peak=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time")
	size=$(du -sb "$lib/.grimoire" 2>/dev/null | cut -f1)
	status=$("$bin" --library "$lib" status --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)
f = [x["error"] for x in s.get("failures") or [] if not x["path"].endswith("small.md")]
print(f[0] if f else "read")' 2>/dev/null || echo "?")
	printf '%-24s %7d MB %10s %7d MB  %s\n' "$name" $((peak / 1024)) "$wall" $((${size:-0} / 1048576)) "$status"
done
