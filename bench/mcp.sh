#!/usr/bin/env bash
# MCP server start-up, latency and memory on a synthetic index of CHUNKS
# chunks (default 100,000; built once by the Go benchmark, which takes a few
# minutes). Needs python3.
set -euo pipefail
cd "$(dirname "$0")/.."
chunks=${CHUNKS:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/grimoire" ./cmd/grimoire
GRIMOIRE_BENCH_CHUNKS=$chunks go test ./retrieve/ -run '^$' -bench LoadVectors -benchtime 1x >/dev/null
db="$(go env GOTMPDIR)"
db="${db:-${TMPDIR:-/tmp}}/grimoire-bench-$chunks/g.db"
printf 'library = ["%s"]\ndb_path = "%s"\n' "$work" "$db" > "$work/grimoire.toml"
python3 bench/mcp_latency.py "$work/grimoire" "$work/grimoire.toml" 60
