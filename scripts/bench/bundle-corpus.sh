#!/bin/sh
# Generates a bundle benchmark corpus (100 files, about 60-100 s) into
# ./corpus (git-ignored) or DIR: 50 one-second CPU profiles and 50 heap
# profiles of one Go program running a changing mix of workloads. The one
# the tests and docs/performance.md use is committed as testdata/corpus
# (scripts/bench/bundle-corpus.sh testdata/corpus replaces it; then docs/performance.md
# figures must be measured again). Usage:
#   scripts/bench/bundle-corpus.sh [DIR]
# Then: go test ./internal/codec/bundle -run Corpus -bench . -benchtime 3x
set -eu
dir=${1:-corpus}
cd "$(dirname "$0")/../.."
go run ./internal/codec/bundle/cmd/bundle-corpus -o "$dir"
ls "$dir" | wc -l
