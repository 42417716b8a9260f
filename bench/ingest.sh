#!/usr/bin/env bash
# Ingest throughput (MB/s of source files) on the corpus's plain-text books,
# and on its Markdown books: a first sync into a fresh index, best of RUNS.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${CORPUS:-../shared/corpus}
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/grimoire" ./cmd/grimoire
for kind in text markdown; do
	src="$corpus/books/$kind"
	[ -d "$src" ] || { echo "no $src; skipping"; continue; }
	bytes=$(find "$src" -type f \( -name '*.txt' -o -name '*.md' \) -printf '%s\n' | awk '{s+=$1} END {print s}')
	best=""
	for ((r = 0; r < runs; r++)); do
		rm -rf "$work/lib"
		cp -r "$src" "$work/lib"
		touch -d '1 hour ago' $(find "$work/lib" -type f)
		start=$(date +%s.%N)
		"$work/grimoire" --library "$work/lib" sync >/dev/null
		end=$(date +%s.%N)
		t=$(echo "$end - $start" | bc)
		if [ -z "$best" ] || (( $(echo "$t < $best" | bc) )); then best=$t; fi
	done
	echo "$kind: $(echo "scale=2; $bytes / 1048576" | bc) MB in ${best}s = $(echo "scale=2; $bytes / 1048576 / $best" | bc) MB/s (best of $runs)"
done
