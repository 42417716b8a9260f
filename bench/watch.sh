#!/usr/bin/env bash
# grimoire watch: drop-to-searchable latency of a ~300-page book (Grimms'
# Fairy Tales, 560 KB of text), idle CPU and memory of a watcher over a
# library of 10,000 files.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${CORPUS:-../shared/corpus}
book="$corpus/books/text/2591-0.txt"
[ -f "$book" ] || { echo "needs $book"; exit 1; }
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/grimoire" ./cmd/grimoire
g="$work/grimoire"
lib="$work/library"
for ((d = 0; d < 100; d++)); do
	mkdir -p "$lib/dir$d"
	for ((f = 0; f < 100; f++)); do
		printf '# Note %d-%d\n\nSome words about note %d in folder %d.\n' "$d" "$f" "$f" "$d" > "$lib/dir$d/n$f.md"
	done
done
touch -d '1 hour ago' "$lib"/dir*/*.md
"$g" --library "$lib" sync >/dev/null
GRIMOIRE_WATCH_DEBOUNCE=${DEBOUNCE:-2s} "$g" --library "$lib" watch 2>/dev/null &
pid=$!
until "$g" --library "$lib" status --json | grep -q '"last_full_scan"'; do sleep 0.2; done
sleep 2

ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks)
sleep 30
t1=$(ticks)
echo "idle watcher over 10,000 files: $(( (t1 - t0) * 1000 / hz )) ms CPU in 30 s"
echo "watcher memory (RSS): $(( $(awk '/VmRSS/ {print $2}' /proc/$pid/status) / 1024 )) MB"

start=$(date +%s.%N)
cp "$book" "$lib/grimm.txt"
until "$g" --library "$lib" query "Hansel and Grethel" --mode fts --json --limit 1 | grep -q grimm.txt; do sleep 0.05; done
end=$(date +%s.%N)
echo "drop to searchable, Grimms' Fairy Tales (560 KB, ~280 pages), debounce ${DEBOUNCE:-2s}: $(echo "$end - $start" | bc) s"
echo "watcher memory after ingest (RSS): $(( $(awk '/VmRSS/ {print $2}' /proc/$pid/status) / 1024 )) MB"
