#!/bin/sh
# Measures OTLP profiles v1development against its targets:
#   size:  gzipped v1development output <= gzipped pprof input, every fixture;
#   speed: pprof -> v1development (pprof.Decode + otlp.Encode) and
#          v1development -> pprof (otlp.Decode + pprof.Encode, raw) each
#          <= 1x google/pprof ParseData of the same (gzipped) pprof file.
#
# Speed is measured two ways:
#   - instruction counts under callgrind (default; deterministic, so valid
#     on a loaded machine): the difference between a run of LO and of HI
#     iterations of each benchmark, divided by HI-LO, twice: with GOGC=off
#     (allocation is counted, collection is not) and with GOGC=100 (the
#     collector's work counted too, as a real run pays it; its pacing makes
#     this count move by a few percent). Needs valgrind;
#     GODEBUG=cpu.rdtscp=off because valgrind 3.19 does not know RDTSCP.
#   - wall clock and CPU time (WALL=1): ROUNDS rounds; in each, every
#     input's ParseData, Convert and Back run one after the other (so the
#     three see the same load), and the per-round ratios to ParseData are
#     taken; the median, min and max over the rounds are printed, for wall
#     time and for the process's CPU time per operation (user + system,
#     the collector's threads included: it moves less with load than wall
#     time). Once per GOGC value in GOGCS (default "100 off": the default
#     collector, and none). Only meaningful on a quiet machine.
#
#   scripts/bench/otlp-bench.sh [INPUT-REGEXP]        size + callgrind
#   WALL=1 ROUNDS=15 scripts/bench/otlp-bench.sh      size + wall clock and CPU time
#   (also BENCHTIME, default 0.2s per benchmark and round; GOGCS)
set -eu
cd "$(dirname "$0")/../.."
inputs=${1:-.*}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/otlp.test" ./internal/codec/otlp
t="$tmp/otlp.test"

echo "== size: gzipped v1development / gzipped pprof (target <= 1 on every real fixture)"
echo "   both gzipped at compress/gzip's default level; 'as is': pprofx's .otlp.gz over the input file"
(cd internal/codec/otlp && "$t" -test.run '^$' -test.bench "Size/($inputs)\$" -test.benchtime 1x) |
	awk '/^BenchmarkSize/ { for (i = 2; i <= NF; i++) { if ($i == "otlp.gz/pprof.gz") r = $(i-1); if ($i == "otlp.gz/pprof.gz-asis") a = $(i-1);
		if ($i == "otlp.gz-bytes") o = $(i-1); if ($i == "pprof.gz-bytes") p = $(i-1) }
		sub(/^BenchmarkSize\//, "", $1); sub(/-[0-9]+$/, "", $1); printf "  %-14s %.3f  (as is %.3f; %d / %d bytes)\n", $1, r, a, o, p }'

names=$(cd internal/codec/otlp && "$t" -test.run '^$' -test.bench "Size/($inputs)\$" -test.benchtime 1x |
	awk '/^BenchmarkSize/ { sub(/^BenchmarkSize\//, "", $1); sub(/-[0-9]+$/, "", $1); print $1 }')

if [ "${WALL:-0}" = 1 ]; then
	rounds=${ROUNDS:-15}
	benchtime=${BENCHTIME:-0.2s}
	for gogc in ${GOGCS:-100 off}; do
		echo "== Convert and Back / ParseData, GOGC=$gogc: median (min, max) of $rounds rounds, wall clock and CPU time (machine load matters)"
		: >"$tmp/runs"
		i=0
		while [ $i -lt "$rounds" ]; do
			for in in $names; do
				(cd internal/codec/otlp && GOGC=$gogc "$t" -test.run '^$' -test.bench "^Benchmark(ParseData|Convert|Back)/$in\$" -test.benchtime "$benchtime") |
					awk -v r=$i '/^Benchmark(ParseData|Convert|Back)\// { c = 0; for (j = 4; j <= NF; j++) if ($j == "cpu-ns/op") c = $(j-1); print r, $1, $3, c }' >>"$tmp/runs"
			done
			i=$((i + 1))
		done
		awk '{ split($2, a, "/"); k = a[1]; sub(/^Benchmark/, "", k); inp = a[2]; sub(/-[0-9]+$/, "", inp); t[$1, inp, k] = $3; c[$1, inp, k] = $4; seen[inp] = 1 }
			END { for (inp in seen) for (r = 0; r < 1000; r++) { p = t[r, inp, "ParseData"]; if (p == "") continue
				print inp, "convert", "wall", t[r, inp, "Convert"] / p; print inp, "back", "wall", t[r, inp, "Back"] / p
				q = c[r, inp, "ParseData"]; if (q > 0) { print inp, "convert", "cpu", c[r, inp, "Convert"] / q; print inp, "back", "cpu", c[r, inp, "Back"] / q } } }' "$tmp/runs" |
			sort -k1,1 -k2,2 -k3,3 -k4,4g | awk '{ k = $1 " " $2 " " $3; v[k, ++n[k]] = $4 }
			END { for (k in n) { m = n[k]; split(k, f, " "); printf "  %-22s %-7s %-4s median %.2f  (min %.2f, max %.2f)\n", f[1], f[2], f[3], v[k, int((m + 1) / 2)], v[k, 1], v[k, m] } }' | sort
	done
	exit 0
fi

command -v valgrind >/dev/null || { echo "valgrind not installed: WALL=1 $0 for wall-clock figures"; exit 1; }
echo "== instructions per operation under callgrind, ratio to ParseData (target <= 1): GOGC=off, then GOGC=100 (collection counted)"
count() { # GOGC benchmark-regexp iterations -> instructions of the whole run
	(cd internal/codec/otlp && GOGC=$1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 \
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$t" -test.run '^$' -test.bench "$2" -test.benchtime "$3"x 2>&1 >/dev/null |
		sed -n 's/.*Collected : //p')
}
for in in $names; do
	lo=10 hi=40
	case $in in synthetic-* | deep-*) lo=1 hi=3 ;; esac
	for gogc in off 100; do
		printf "  %-14s %-4s" "$in" "$gogc"
		for b in ParseData Convert Back; do
			a=$(count $gogc "^Benchmark$b/$in\$" $lo)
			z=$(count $gogc "^Benchmark$b/$in\$" $hi)
			eval "i_$b=$(( (z - a) / (hi - lo) ))"
		done
		awk -v p="$i_ParseData" -v c="$i_Convert" -v b="$i_Back" 'BEGIN {
			printf " ParseData %9.0f  pprof->otlp %9.0f (%.2fx)  otlp->pprof %9.0f (%.2fx)\n", p, c, c / p, b, b / p }'
	done
done
