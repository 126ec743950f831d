#!/usr/bin/env bash
# Peak RSS and wall time of converting a large generated profile of many
# distinct stacks (200k samples, 600k locations, 67 MiB decompressed;
# internal/testutil/synth TestWriteWide) to every output format that
# holds it whole, as a whole process under /usr/bin/time -v, beside the
# memory bound (64 MiB + 4 x the decompressed input).
#
#   scripts/bench/wide-convert.sh
#
# Peak RSS does not depend on the machine's load; wall times do.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
in=$dir/wide.pb.gz
PPROFX_WRITE_WIDE=$in go test -count=1 -run '^TestWriteWide$' ./internal/testutil/synth > /dev/null
CGO_ENABLED=0 go build -tags grpcnotrace -o "$dir/pprofx" ./cmd/pprofx # as make build builds it
raw=$(gzip -dc "$in" | wc -c)
bound=$((64 * 1048576 + 4 * raw))
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
echo "input: $(stat -c %s "$in") bytes, $(mib "$raw") MiB decompressed; bound $(mib $bound) MiB"
printf '| %-22s | %10s | %7s | %s |\n' "convert to" "peak RSS" "wall" "within"
printf '|%s|%s|%s|%s|\n' "------------------------" "------------" "---------" "--------"
for to in pprof otlp otlp-json otlp-jsonl otlp-framed pprofextended pprofextended-json folded speedscope html; do
	/usr/bin/time -v -o "$dir/time.txt" "$dir/pprofx" convert "$in" --to "$to" -o "$dir/out" 2> /dev/null
	rss=$(($(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/time.txt") * 1024))
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$dir/time.txt")
	within=yes
	[ "$rss" -le "$bound" ] || within=NO
	printf '| %-22s | %6s MiB | %7s | %s |\n' "$to" "$(mib "$rss")" "$wall" "$within"
done
