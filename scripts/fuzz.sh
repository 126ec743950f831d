#!/usr/bin/env bash
# Runs every fuzz target of the given packages (default: all of them),
# one after another, each for FUZZTIME (default 30s; a duration or a count
# such as 5000000x). The targets are found by `go test -list`, so a new
# one is run as soon as it exists.
#
#   scripts/fuzz.sh                                 # what make fuzz runs
#   FUZZTIME=10m scripts/fuzz.sh ./internal/codec/jfr
#
# New inputs are minimized for at most 2 s each: a target whose inputs are
# large (OTLP messages, ELF binaries, JFR recordings) otherwise spends its
# time shrinking each new input rather than finding more. Set TMPDIR to a
# tmpfs (make fuzz does) to keep the engine's shared input file in memory.
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
fuzztime=${FUZZTIME:-30s}
[ $# -gt 0 ] || set -- ./...
list=$("$go" test -list '^Fuzz' "$@")
targets=()
names=()
while read -r word pkg _; do
	case $word in
	Fuzz*) names+=("$word") ;;
	ok)
		for n in "${names[@]}"; do targets+=("$pkg $n"); done
		names=()
		;;
	esac
done <<< "$list"
[ ${#targets[@]} -gt 0 ] || { echo "scripts/fuzz.sh: no fuzz targets in $*" >&2; exit 1; }
for t in "${targets[@]}"; do
	read -r pkg name <<< "$t"
	echo "== $name $pkg ($fuzztime)"
	"$go" test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s "$pkg"
done
