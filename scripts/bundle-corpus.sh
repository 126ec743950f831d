#!/bin/sh
# Generates the bundle benchmark corpus (100 files, about 60-100 s) into
# ./corpus (git-ignored): 50 one-second CPU profiles and 50 heap profiles of
# one Go program running a changing mix of workloads. Usage:
#   scripts/bundle-corpus.sh [DIR]
# Then: go test ./internal/bundle -run Corpus -bench . -benchtime 3x
set -eu
dir=${1:-corpus}
cd "$(dirname "$0")/.."
go run ./internal/bundle/cmd/bundle-corpus -o "$dir"
ls "$dir" | wc -l
