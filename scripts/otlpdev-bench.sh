#!/bin/sh
# Measures issue 11's targets for OTLP profiles v1development:
#   size:  gzipped v1development output <= gzipped pprof input, every fixture;
#   speed: pprof -> v1development (pprof.Decode + otlpdev.Encode) and
#          v1development -> pprof (otlpdev.Decode + pprof.Encode, raw) each
#          <= 1x google/pprof ParseData of the same (gzipped) pprof file.
#
# Speed is measured two ways:
#   - instruction counts under callgrind (default; deterministic, so valid
#     on a loaded machine): the difference between a run of LO and of HI
#     iterations of each benchmark, divided by HI-LO, with GOGC=off so that
#     the collector's timing does not leak in (allocation cost is counted,
#     collection is not). Needs valgrind; GODEBUG=cpu.rdtscp=off because
#     valgrind 3.19 does not know RDTSCP.
#   - wall clock (WALL=1): ROUNDS paired rounds of ParseData/Convert/Back,
#     the median of the per-round ratios. Only meaningful on a quiet machine.
#
#   scripts/otlpdev-bench.sh [INPUT-REGEXP]        size + callgrind
#   WALL=1 ROUNDS=15 scripts/otlpdev-bench.sh      size + wall clock
set -eu
cd "$(dirname "$0")/.."
inputs=${1:-.*}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/otlpdev.test" ./internal/otlpdev
t="$tmp/otlpdev.test"

echo "== size: gzipped v1development / gzipped pprof (target <= 1 on every real fixture)"
echo "   both gzipped at compress/gzip's default level; 'as is': pprofx's .otlp.gz over the input file"
(cd internal/otlpdev && "$t" -test.run '^$' -test.bench "Size/($inputs)\$" -test.benchtime 1x) |
	awk '/^BenchmarkSize/ { for (i = 2; i <= NF; i++) { if ($i == "otlp.gz/pprof.gz") r = $(i-1); if ($i == "otlp.gz/pprof.gz-asis") a = $(i-1);
		if ($i == "otlp.gz-bytes") o = $(i-1); if ($i == "pprof.gz-bytes") p = $(i-1) }
		sub(/^BenchmarkSize\//, "", $1); sub(/-[0-9]+$/, "", $1); printf "  %-14s %.3f  (as is %.3f; %d / %d bytes)\n", $1, r, a, o, p }'

names=$(cd internal/otlpdev && "$t" -test.run '^$' -test.bench "Size/($inputs)\$" -test.benchtime 1x |
	awk '/^BenchmarkSize/ { sub(/^BenchmarkSize\//, "", $1); sub(/-[0-9]+$/, "", $1); print $1 }')

if [ "${WALL:-0}" = 1 ]; then
	rounds=${ROUNDS:-15}
	echo "== wall clock: Convert and Back / ParseData, median of $rounds paired rounds (machine load matters)"
	i=0
	while [ $i -lt "$rounds" ]; do
		(cd internal/otlpdev && "$t" -test.run '^$' -test.bench "(ParseData|Convert|Back)/($inputs)\$" -test.benchtime 0.2s) |
			awk -v r=$i '/^Benchmark(ParseData|Convert|Back)\// { print r, $1, $3 }' >>"$tmp/runs"
		i=$((i + 1))
	done
	awk '{ split($2, a, "/"); k = a[1]; sub(/^Benchmark/, "", k); inp = a[2]; sub(/-[0-9]+$/, "", inp); t[$1, inp, k] = $3; seen[inp] = 1 }
		END { for (inp in seen) for (r = 0; r < 1000; r++) { p = t[r, inp, "ParseData"]; if (p == "") continue
			print inp, "convert", t[r, inp, "Convert"] / p; print inp, "back", t[r, inp, "Back"] / p } }' "$tmp/runs" |
		sort -k1,1 -k2,2 -k3,3g | awk '{ k = $1 " " $2; v[k, ++n[k]] = $3 }
		END { for (k in n) { m = n[k]; printf "  %-22s median %.2f  (min %.2f, max %.2f)\n", k, v[k, int((m + 1) / 2)], v[k, 1], v[k, m] } }' | sort
	exit 0
fi

command -v valgrind >/dev/null || { echo "valgrind not installed: WALL=1 $0 for wall-clock figures"; exit 1; }
echo "== instructions per operation under callgrind (GOGC=off), ratio to ParseData (target <= 1)"
count() { # benchmark-regexp iterations -> instructions of the whole run
	(cd internal/otlpdev && GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 \
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$t" -test.run '^$' -test.bench "$1" -test.benchtime "$2"x 2>&1 >/dev/null |
		sed -n 's/.*Collected : //p')
}
for in in $names; do
	lo=10 hi=40
	case $in in synthetic-* | deep-*) lo=1 hi=3 ;; esac
	printf "  %-14s" "$in"
	for b in ParseData Convert Back; do
		a=$(count "^Benchmark$b/$in\$" $lo)
		z=$(count "^Benchmark$b/$in\$" $hi)
		eval "i_$b=$(( (z - a) / (hi - lo) ))"
	done
	awk -v p="$i_ParseData" -v c="$i_Convert" -v b="$i_Back" 'BEGIN {
		printf " ParseData %9.0f  pprof->otlp %9.0f (%.2fx)  otlp->pprof %9.0f (%.2fx)\n", p, c, c / p, b, b / p }'
done
