#!/usr/bin/env bash
# Search quality on SciFact: nDCG@10, recall@10, recall@100 and MRR of the
# hybrid default, full text and vectors, on the dev claims (SPLIT=train for
# the 809 train claims, a check that nothing was fitted to the dev ones).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${CORPUS:-../shared/corpus}
go run ./cmd/grimoire eval --beir "$corpus/ir/scifact" --split "${SPLIT:-dev}"
