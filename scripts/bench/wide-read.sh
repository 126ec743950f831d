#!/usr/bin/env bash
# Peak RSS and wall time of reading the wide profile (internal/testutil/synth
# TestWriteWide: 200k samples, 600k locations) back from each encoding that
# holds it whole, converting it to pprof, as a whole process under
# /usr/bin/time -v, RUNS times each (default 3), beside the memory bound of
# that read (64 MiB + 4 x the file's decompressed size).
#
#   scripts/bench/wide-read.sh
#
# Peak RSS does not depend on the machine's load; wall times do.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
PPROFX_WRITE_WIDE=$dir/wide.pb.gz go test -count=1 -run '^TestWriteWide$' ./internal/testutil/synth > /dev/null
CGO_ENABLED=0 go build -tags grpcnotrace -o "$dir/pprofx" ./cmd/pprofx # as make build builds it
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
printf '| %-18s | %9s | %9s | %-30s | %-20s | %s |\n' "read from" "size" "bound" "peak RSS" "wall" "within"
printf '|%s|%s|%s|%s|%s|%s|\n' "--------------------" "-----------" "-----------" "--------------------------------" "----------------------" "--------"
for to in otlp otlp-json pprofextended pprofextended-json; do
	in=$dir/wide.$to
	PPROFX_NO_FSYNC=1 "$dir/pprofx" convert "$dir/wide.pb.gz" --to "$to" -o "$in"
	size=$(stat -c %s "$in")
	bound=$((64 * 1048576 + 4 * size))
	rsss="" walls="" within=yes
	for _ in $(seq "$runs"); do
		PPROFX_NO_FSYNC=1 /usr/bin/time -v -o "$dir/time.txt" "$dir/pprofx" convert "$in" -o "$dir/out.pb.gz" 2> /dev/null
		rss=$(($(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/time.txt") * 1024))
		rsss="$rsss $(mib "$rss")"
		walls="$walls $(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$dir/time.txt")"
		[ "$rss" -le "$bound" ] || within=NO
	done
	printf '| %-18s | %5s MiB | %5s MiB | %-30s | %-20s | %s |\n' "$to" "$(mib "$size")" "$(mib "$bound")" "${rsss# }" "${walls# }" "$within"
	rm -f "$in"
done
