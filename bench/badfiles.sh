#!/usr/bin/env bash
# Peak memory and time of one sync over every bad file: the corpus's bad
# folder, plus decompression bombs written by internal/bomb/writebombs
# (PDFs whose content, forms, fonts or object streams inflate to 600 MB
# from under 1 MB, files just under grimoire's limits, EPUB zip and entity
# bombs). Prints what status says of each file, then the peak resident
# memory and wall time of the sync. GRIMOIRE= measures another binary
# (an older build, say) on the same files.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${CORPUS:-../shared/corpus}
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
lib=$work/lib
mkdir -p "$lib"
if [ -d "$corpus/bad" ]; then
	cp -r "$corpus/bad" "$lib/corpus-bad"
else
	echo "no $corpus/bad; only the generated bombs" >&2
fi
go run ./internal/bomb/writebombs "$lib/bombs"
files=$(find "$lib" -type f | wc -l)
bytes=$(du -sb "$lib" | cut -f1)
echo "library: $files files, $((bytes / 1048576)) MB on disk"

/usr/bin/time -v -o "$work/time" "$bin" --library "$lib" sync >"$work/sync.out" 2>"$work/sync.err" || {
	echo "sync failed:" >&2
	tail -20 "$work/sync.err" >&2
	exit 1
}
"$bin" --library "$lib" status --json >"$work/status.json"
python3 - "$work/status.json" "$lib" <<'EOF'
import json, os, sys
status, lib = json.load(open(sys.argv[1])), sys.argv[2]
failed = {os.path.relpath(f["path"], lib): f["error"] for f in status.get("failures") or []}
for root, _, names in sorted(os.walk(lib)):
    for name in sorted(names):
        rel = os.path.relpath(os.path.join(root, name), lib)
        if rel.startswith(".grimoire"):
            continue
        print(f"{rel:40} {failed.get(rel, 'read')}")
EOF
peak=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time")
echo "sync: peak RSS $((peak / 1024)) MB, wall $wall"
