#!/usr/bin/env bash
# Search quality on the sets every search change is judged on, side by
# side: SciFact dev, NFCorpus dev and CISI (nDCG@10, recall@10, recall@100,
# MRR and the false no-match rate, per mode, beside the plain BM25
# baseline); the book questions (answer@1/@5/@10, chapter@5, MRR and the
# no-match rate, per kind and mode), asked alone, as a client model asked
# them (qa/books-SPLIT-phrasings.jsonl) and given to the prompt hook (mode
# hook); ordinary prompts given to the prompt hook (the share it stays
# silent on, and how long the hook takes); bench/definitions.jsonl,
# questions asking what something is, about the same books; and the
# calibration sets of bench/calibration, which the no-match verdict and the
# hook's gates were tuned on beside the dev sets.
#
#   bench/eval.sh                            # print the tables
#   OUT=bench/results/NAME bench/eval.sh     # and keep each query's outcome
#   go run ./cmd/grimoire eval compare bench/results/main bench/results/NAME
#
# SETS="scifact books" (of scifact nfcorpus cisi books definitions hook
# calibration) runs fewer sets, MODES=hybrid,fts fewer modes;
# SPLIT=train runs the BEIR train queries (a check that nothing was fitted
# to dev; the book questions and definitions have no train half and are
# left out).
#
# The libraries and their indexes stay in CACHE between runs, keyed by the
# sources that decide what an index holds: after a change to retrieval
# only, a run goes straight to the questions; after one to parsing,
# chunking or the index, they are built again (about 20 s). FRESH=1 builds
# them again anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=$(cd "${CORPUS:-../shared/corpus}" && pwd)
split=${SPLIT:-dev}
modes=${MODES:-hybrid,fts,vector,bm25}
sets=${SETS:-scifact nfcorpus cisi books definitions hook calibration}
out=${OUT:-}
# The corpus holds scanned and encrypted PDFs that fail on purpose; eval
# counts them, and the log need not list them again.
export GRIMOIRE_LOG_LEVEL=${GRIMOIRE_LOG_LEVEL:-error}

sha() { if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi; }

# Everything but the search side and the front ends: parsers, chunking,
# the index, the embedder, the configuration that sizes chunks.
key=$(
	{
		find . -name '*.go' ! -name '*_test.go' \
			! -path './retrieve/*' ! -path './mcp/*' ! -path './eval/*' ! -path './cmd/*' ! -path './bench/*' -print
		printf '%s\n' ./cmd/grimoire/config.go ./cmd/grimoire/wiring.go ./cmd/grimoire/sync.go ./go.mod ./go.sum ./grimoire.toml
	} | LC_ALL=C sort | while read -r f; do [ -f "$f" ] && { echo "$f"; cat "$f"; }; done | sha | cut -c1-12
)
root=${CACHE:-${TMPDIR:-/tmp}/grimoire-eval-$(id -u)}
repo=$(pwd -P | sha | cut -c1-8)
cache="$root/$repo-$key"
mkdir -p "$root"
# Indexes of other sources of this repository are stale: drop them.
find "$root" -mindepth 1 -maxdepth 1 -name "$repo-*" ! -name "$repo-$key" -exec rm -rf {} +
if [ -n "${FRESH:-}" ]; then rm -rf "$cache"; fi
mkdir -p "$cache"

bin="$root/grimoire-$repo"
go build -o "$bin" ./cmd/grimoire

if [ -n "$out" ]; then
	mkdir -p "$out"
	{
		echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench' ':!*.md' || echo ' (with uncommitted changes)'), split $split, modes $modes"
		echo
	} > "$out/summary.txt"
fi

run() { # name, modes, eval arguments...
	local name=$1 m=$2
	shift 2
	if [ -n "$out" ]; then
		"$bin" eval "$@" --modes "$m" --per-query "$out/$name-$split.jsonl" | tee -a "$out/summary.txt"
		echo | tee -a "$out/summary.txt"
	else
		"$bin" eval "$@" --modes "$m"
		echo
	fi
}

# bm25 is a baseline of one row per document: BEIR only.
bookmodes=$(echo "$modes" | tr ',' '\n' | grep -vx bm25 | paste -sd, - || true)
for set in $sets; do
	case $set in
	scifact | nfcorpus)
		run "$set" "$modes" --beir "$corpus/ir/$set" --split "$split" --workdir "$cache/$set-$split"
		;;
	books)
		qa="$corpus/qa/books-$split.jsonl"
		asked="$corpus/qa/books-$split-phrasings.jsonl"
		if [ ! -f "$qa" ] || [ -z "$bookmodes" ]; then
			echo "books: no $qa or no mode for it; left out" >&2
			continue
		fi
		also=()
		if [ -f "$asked" ]; then also=(--phrasings "$asked"); fi
		# The questions' library is the corpus's books folder (bad/ stays
		# out); its index lives in the cache, never in the corpus.
		run books "$bookmodes,hook" --books "$qa" "${also[@]}" --library "$corpus/books" --workdir "$cache/books"
		;;
	cisi)
		# Judged on its one split; the train split leaves it out.
		if [ "$split" != dev ]; then continue; fi
		run cisi "$modes" --beir "$corpus/ir/cisi" --split test --workdir "$cache/cisi"
		;;
	hook)
		prompts="$corpus/qa/hook-prompts-$split.jsonl"
		if [ ! -f "$prompts" ]; then
			echo "hook: no $prompts; left out" >&2
			continue
		fi
		run hook hook --prompts "$prompts" --library "$corpus/books" --workdir "$cache/books"
		# How long a prompt waits on the hook: the real command, as Claude
		# Code runs it, on each prompt, through a configuration of its own;
		# a budget far above any search's keeps the machine's load out of
		# what it says.
		cfg="$cache/hook.toml"
		printf 'library = ["%s"]\ndb_path = "%s"\n' "$corpus/books" "$cache/books/grimoire.db" >"$cfg"
		python3 - "$bin" "$cfg" "$prompts" <<'PY' | if [ -n "$out" ]; then tee -a "$out/summary.txt"; else cat; fi
import json, statistics, subprocess, sys, time
bin, cfg, prompts = sys.argv[1:]
took = []
for line in open(prompts):
    p = json.loads(line)
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": p["prompt"]})
    start = time.perf_counter()
    subprocess.run([bin, "--config", cfg, "hook", "claude-code", "--budget", "60s"], input=event, capture_output=True, text=True)
    took.append(1000 * (time.perf_counter() - start))
print(f"hook: {len(took)} prompts, median {statistics.median(took):.0f} ms, slowest {max(took):.0f} ms (the whole process)")
PY
		;;
	calibration)
		# Written to tune the no-match verdict and the hook's gates on more
		# than the dev questions; reported apart from them. They have no
		# train half.
		if [ "$split" != dev ] || [ -z "$bookmodes" ]; then continue; fi
		cal=bench/calibration
		run calibration "$bookmodes,hook" --books "$cal/books-calibration.jsonl" --phrasings "$cal/books-calibration-phrasings.jsonl" \
			--library "$corpus/books" --workdir "$cache/books"
		run calibration-hook hook --prompts "$cal/hook-prompts-calibration.jsonl" --library "$corpus/books" --workdir "$cache/books"
		;;
	definitions)
		# Questions that ask what something is, about the same books
		# (bench/definitions.jsonl); they have no train half.
		if [ "$split" != dev ] || [ -z "$bookmodes" ]; then
			echo "definitions: no $split half or no mode for it; left out" >&2
			continue
		fi
		run definitions "$bookmodes" --books bench/definitions.jsonl --library "$corpus/books" --workdir "$cache/books"
		;;
	*)
		echo "unknown set $set (scifact, nfcorpus, cisi, books, definitions, hook, calibration)" >&2
		exit 2
		;;
	esac
done
