#!/bin/sh
# Measures the pprofextended dialect: pprof -> OTLP conversion time against
# google/pprof's ParseData of the same file, and gzipped OTLP size against
# gzipped pprof size, on every fixture and the generated profiles.
#
# On a shared or noisy machine single benchmark runs swing by +-30 %, so
# the time comparison runs BenchmarkParseData and BenchmarkConvert back to
# back ROUNDS times (default 15) and reports, per input, the median of the
# per-round ratios (Convert / ParseData), with their min and max.
#
#   scripts/bench/pprofextended-bench.sh [ROUNDS] [INPUT-REGEXP]
set -eu
cd "$(dirname "$0")/../.."
rounds=${1:-15}
inputs=${2:-.*}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/otlp.test" ./internal/codec/pprofextended

echo "== size: gzipped OTLP / gzipped pprof (target <= 0.89 typical Go, <= 0.82 deep stacks)"
(cd internal/codec/pprofextended && "$tmp/otlp.test" -test.run '^$' -test.bench "Size/($inputs)\$" -test.benchtime 1x) |
	awk '/^BenchmarkSize/ { for (i = 2; i <= NF; i++) if ($i == "otlp.gz/pprof.gz") r = $(i-1); else if ($i == "locidx/frames") l = $(i-1)
		sub(/^BenchmarkSize\//, "", $1); sub(/-[0-9]+$/, "", $1); printf "  %-14s %s   (len(location_indices)/frames %s)\n", $1, r, l }'

echo "== time: pprof -> OTLP (pprof.Decode + otlp.Encode) / ParseData, $rounds paired rounds"
i=0
while [ $i -lt "$rounds" ]; do
	(cd internal/codec/pprofextended && "$tmp/otlp.test" -test.run '^$' -test.bench "(ParseData|Convert)/($inputs)\$" -test.benchtime 0.2s) |
		awk -v r=$i '/^Benchmark(ParseData|Convert)\// { print r, $1, $3 }' >>"$tmp/runs"
	i=$((i + 1))
done
awk '{ split($2, a, "/"); kind = a[1]; sub(/^Benchmark/, "", kind); inp = a[2]; sub(/-[0-9]+$/, "", inp)
	t[$1 " " inp " " kind] = $3; seen[inp] = 1; if (!(inp in order)) { order[inp] = n++ } }
	END { for (inp in seen) for (r = 0; r < 1000; r++) { p = t[r " " inp " ParseData"]; c = t[r " " inp " Convert"]
		if (p != "" && c != "") print order[inp], inp, c / p, p, c } }' "$tmp/runs" | sort -k1,1n -k3,3g >"$tmp/ratios"
awk '{ k = $2; v[k, ++n[k]] = $3; p[k, n[k]] = $4; c[k, n[k]] = $5; if (!(k in ord)) { ord[k] = $1; names[$1] = k } }
	END { for (o = 0; o in names; o++) { k = names[o]; m = n[k]; mid = int((m + 1) / 2)
		printf "  %-14s median %.2f  (min %.2f, max %.2f, %d rounds)\n", k, v[k, mid], v[k, 1], v[k, m], m } }' "$tmp/ratios"
