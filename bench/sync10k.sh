#!/usr/bin/env bash
# First sync and no-op re-sync of a library of 10,000 small Markdown files,
# with `find` over the same tree for comparison. Needs hyperfine for the
# repeated timings (apt-get install hyperfine); prints single runs without it.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-10000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/grimoire" ./cmd/grimoire
lib="$work/library"
for ((d = 0; d < n / 100; d++)); do
	mkdir -p "$lib/dir$d"
	for ((f = 0; f < 100; f++)); do
		i=$((d * 100 + f))
		printf '# Note %d\n\nThis is note %d about topic %d, with a few words of text.\n\n## Details\n\nMore text for note %d.\n' "$i" "$i" "$((i % 37))" "$i" > "$lib/dir$d/note$i.md"
	done
done
touch -d '1 hour ago' "$lib"/dir*/*.md
echo "library: $n files in $((n / 100)) folders"
start=$(date +%s.%N)
"$work/grimoire" --library "$lib" sync >/dev/null
end=$(date +%s.%N)
echo "first sync (hash, parse, embed, index): $(echo "$end - $start" | bc) s"
if command -v hyperfine >/dev/null; then
	hyperfine --warmup 2 --runs 10 \
		-n "grimoire sync (no-op)" "$work/grimoire --library $lib sync" \
		-n "find" "find $lib -name '*.md' -newer $work/grimoire"
else
	time "$work/grimoire" --library "$lib" sync
	time find "$lib" -name '*.md' >/dev/null
fi
"$work/grimoire" --library "$lib" sync --json | grep -E '"(scanned|hashed|ingested)"'
