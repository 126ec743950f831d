#!/bin/sh
# Measures bundles against their targets on the corpus made by
# scripts/bench/bundle-corpus.sh (testdata/corpus, 100 files, committed; or
# $CORPUS; ./corpus/1000 for the
# memory comparison, made with
#   go run ./internal/codec/bundle/cmd/bundle-corpus -o corpus/1000 -n 500).
# Prints: sizes (bundle, google/pprof's lossy profile.Merge, tar of the raw
# protos + zstd -19, all against the summed .pb.gz inputs), merge time
# against google/pprof's ParseData of the same files, unpack one vs all,
# and peak RSS of merging 1,000 vs 100 profiles.
set -eu
cd "$(dirname "$0")/../.."
corpus=${CORPUS:-testdata/corpus}
ls $corpus/cpu-*.pb.gz >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== sizes"
go test ./internal/codec/bundle -run 'TestCorpusSizes$' -v -count 1 | grep 'size_test' | sed 's/^ *size_test.go:[0-9]*: /  /'
if command -v zstd >/dev/null; then
	for kind in cpu heap; do
		sum=$(cat $corpus/$kind-*.pb.gz | wc -c)
		mkdir "$tmp/$kind"
		for f in $corpus/$kind-*.pb.gz; do
			gzip -dc "$f" >"$tmp/$kind/$(basename "$f" .gz)"
		done
		z=$(cd "$tmp/$kind" && ls | sort | tar -cf - -T - | zstd -19 -q -c | wc -c)
		echo "  $kind: tar of raw protos + zstd -19: $z bytes = $(awk "BEGIN{printf \"%.1f\", 100*$z/$sum}")%"
	done
else
	echo "  (zstd CLI not installed: apt-get install zstd)"
fi

echo "== time (best of 5; Merge = pprof.Decode + bundle of the 100 files in one goroutine;"
echo "   MergeCommand = the merge command, reading files, decoding one ahead; ParseData = google/pprof reading them)"
{
	go test ./internal/codec/bundle -run '^$' -bench 'ParseData|Merge$|Decode$|UnpackOne|UnpackAll' -benchtime 20x -count 5
	go test ./internal/cli -run '^$' -bench 'MergeCommand' -benchtime 20x -count 5
} | awk '/^Benchmark/ {n=$1; sub(/-[0-9]+$/, "", n); if (!(n in best) || $3 < best[n]) best[n]=$3}
	END {for (n in best) printf "  %-28s %12d ns/op\n", n, best[n];
	     p = best["BenchmarkParseData"];
	     printf "  merge / ParseData = %.2f (in one goroutine), %.2f (command)\n", best["BenchmarkMerge"]/p, best["BenchmarkMergeCommand"]/p;
	     printf "  decode alone / ParseData = %.2f\n", best["BenchmarkDecode"]/p;
	     printf "  unpack one / all = 1/%.0f (to the model), 1/%.0f (writing pprof)\n", best["BenchmarkUnpackAll"]/best["BenchmarkUnpackOne"], best["BenchmarkUnpackAllPprof"]/best["BenchmarkUnpackOnePprof"]}' | sort

echo "== peak memory"
go test ./internal/codec/bundle -run '^$' -bench 'MergePeakRSS' -benchtime 3x | grep '^Benchmark' | sed 's/^/  /'
