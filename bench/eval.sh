#!/usr/bin/env bash
# Search quality on the SciFact dev queries: nDCG@10, recall and MRR of the
# hybrid default, full text and vectors.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${CORPUS:-../shared/corpus}
go run ./cmd/grimoire eval --beir "$corpus/ir/scifact" --split dev
