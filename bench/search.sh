#!/usr/bin/env bash
# Search speed at scale, on two libraries:
#
# - a synthetic index of CHUNKS chunks (default 100,000; 1,000,000 takes
#   about 15 minutes to build, once), of Zipf-distributed pseudo-words;
# - EDITIONS copies of War and Peace from the corpus (default 60, about
#   157,000 chunks; each copy's first line differs, so each is a book of
#   its own), asked the questions in bench/editions-queries.txt: every
#   word of them is frequent, and every passage is held 60 times.
#   EDITIONS=0 leaves it out.
#
# For each: in-process latency and CPU time per search (Go benchmarks),
# `grimoire query` as a whole process (hyperfine when installed; for the
# synthetic index also `grimoire hook claude-code`), and the MCP server's start-up, latency, CPU time per search and memory over
# stdio (needs python3). Indexes are cached under the Go temp directory,
# by schema version.
set -euo pipefail
cd "$(dirname "$0")/.."
chunks=${CHUNKS:-100000}
editions=${EDITIONS:-60}
corpus=${CORPUS:-../shared/corpus}
tmp="$(go env GOTMPDIR)"
tmp="${tmp:-${TMPDIR:-/tmp}}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/grimoire" ./cmd/grimoire

# query runs `grimoire query` under hyperfine, else once under time.
query() {
	local config=$1 q=$2
	if command -v hyperfine >/dev/null; then
		hyperfine --warmup 2 --runs 15 -N \
			-n "query --mode fts" "$work/grimoire --config $config query '$q' --mode fts" \
			-n "query (hybrid)" "$work/grimoire --config $config query '$q'"
	else
		for mode in fts hybrid; do
			/usr/bin/time -f "query --mode $mode: %e s, %M KB" "$work/grimoire" --config "$config" query "$q" --mode $mode >/dev/null
		done
	fi
}

echo "=== synthetic, $chunks chunks"
echo "--- in process, vectors loaded (the index is built on the first run)"
out=$(GRIMOIRE_BENCH_CHUNKS=$chunks go test ./retrieve/ -run '^$' -bench 'Search$|LoadVectors' -benchtime 20x -timeout 60m)
grep -E '^Benchmark' <<<"$out"
db=$(grep -m1 -oE 'index /.*g\.db' <<<"$out" | cut -d' ' -f2)
printf 'library = ["%s"]\ndb_path = "%s"\n' "$work" "$db" > "$work/grimoire.toml"

echo "--- grimoire query, start to answer"
q="w1 w2k w3z w1b9 w7x"
query "$work/grimoire.toml" "$q"

echo "--- grimoire hook claude-code, start to answer (Claude Code's UserPromptSubmit JSON on stdin)"
# Its whole time, with a budget it never reaches, and how many runs printed
# passages with the default budget of 250 ms (counted from the start of the
# command, which the process's own start precedes).
for prompt in "$q" "Add a retry with exponential backoff to the HTTP client and write a test for it"; do
	printf '{"session_id":"bench","transcript_path":"%s/t.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"%s"}' \
		"$work" "$work" "$prompt" >"$work/prompt.json"
	ms=()
	for _ in $(seq 15); do
		s=$(date +%s%N)
		"$work/grimoire" --config "$work/grimoire.toml" hook claude-code --budget 10s <"$work/prompt.json" >"$work/hook.out"
		ms+=($((($(date +%s%N) - s) / 1000000)))
	done
	printed=$([ -s "$work/hook.out" ] && echo "prints passages" || echo "prints nothing")
	within=0
	for _ in $(seq 15); do
		"$work/grimoire" --config "$work/grimoire.toml" hook claude-code <"$work/prompt.json" | grep -q additionalContext && within=$((within + 1))
	done
	sorted=$(printf '%s\n' "${ms[@]}" | sort -n)
	echo "hook, \"$prompt\": median $(sed -n 8p <<<"$sorted") ms, p90 $(sed -n 14p <<<"$sorted") ms; $printed; within the default budget in $within of 15 runs"
done

echo "--- MCP over stdio"
# The vectors load in the background: about 1.4 s per 100,000 chunks.
python3 bench/mcp_latency.py "$work/grimoire" "$work/grimoire.toml" 60 $((5 + chunks / 50000))
raw=$((chunks * 512 * 4 / 1000000))
echo "(raw float vectors of $chunks chunks × 512 dimensions: $raw MB)"

book="$corpus/books/text/2600-0.txt"
if [ "$editions" -eq 0 ] || [ ! -f "$book" ]; then
	echo "=== no editions library (EDITIONS=0, or no $book)"
	exit 0
fi
echo "=== $editions editions of War and Peace"
lib="$tmp/grimoire-bench-editions-$editions"
mkdir -p "$lib/books"
for ((i = 1; i <= editions; i++)); do
	f="$lib/books/war-and-peace-$i.txt"
	[ -f "$f" ] || { printf 'Edition %d of War and Peace, as printed by house %d.\n' "$i" "$i"; cat "$book"; } >"$f"
done
printf 'library = ["%s"]\ndb_path = "%s"\n' "$lib/books" "$lib/g.db" > "$work/editions.toml"
# The first run builds the index (about 2 minutes); later ones find nothing
# to do, and upgrade an index of an older schema.
"$work/grimoire" --config "$work/editions.toml" sync >/dev/null

echo "--- in process, vectors loaded"
GRIMOIRE_BENCH_DB="$lib/g.db" GRIMOIRE_BENCH_QUERIES="$PWD/bench/editions-queries.txt" \
	go test ./retrieve/ -run '^$' -bench 'SearchLibrary' -benchtime 48x | grep -E '^Benchmark'

echo "--- grimoire query, start to answer"
query "$work/editions.toml" "Pierre at the battle of Borodino"

echo "--- MCP over stdio"
python3 bench/mcp_latency.py "$work/grimoire" "$work/editions.toml" 60 10 bench/editions-queries.txt
