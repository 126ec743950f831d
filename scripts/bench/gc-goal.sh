#!/usr/bin/env bash
# Peak RSS and wall time of the runs whose live data nears or passes the
# memory bound, with the garbage collector's goal kept to the bound (as
# pprofx runs) and without it (GOMEMLIMIT=off, which turns it off and sets
# no limit): merge, unpack and inspect of the large generated profile of
# scripts/bench/wide-convert.sh, merge of a 10M-frame stack (the crafted
# pprof-locids file at the tests' scale), inspect and unpack of the
# 1M-entry bundle, diff and merge --sum of the large profile. Medians of
# RUNS runs (default 5), the two settings interleaved.
#
#   scripts/bench/gc-goal.sh
#   RUNS=3 ONLY='diff*' scripts/bench/gc-goal.sh
#
# Wall times depend on the machine's load: run nothing else meanwhile.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export PPROFX_NO_FSYNC=1
CGO_ENABLED=0 go build -tags grpcnotrace -o "$dir/pprofx" ./cmd/pprofx # as make build builds it
PPROFX_WRITE_WIDE=$dir/wide.pb.gz go test -count=1 -run '^TestWriteWide$' ./internal/testutil/synth > /dev/null
go run ./internal/tools/genhostile -o "$dir" -only 'pprof-locids*' -small > /dev/null
go run ./internal/tools/genhostile -o "$dir" -only 'bundle-entries*' > /dev/null
"$dir/pprofx" merge "$dir/wide.pb.gz" "$dir/wide.pb.gz" -o "$dir/wide2.ppxb"
p="$dir/pprofx"
w="$dir/wide.pb.gz"
rows=(
	"merge-wide|$p merge $w $w -o $dir/out.ppxb"
	"merge-deep|$p merge $dir/pprof-locids.pb.gz $dir/pprof-locids.pb.gz -o $dir/out.ppxb"
	"unpack-wide-bundle|$p unpack --index 0 $dir/wide2.ppxb -o $dir/out.pb.gz"
	"inspect-wide-bundle|$p inspect $dir/wide2.ppxb"
	"inspect-1M-bundle|$p inspect $dir/bundle-entries.ppxb"
	"unpack-1M-bundle|$p unpack --index 0 $dir/bundle-entries.ppxb -o $dir/out.pb.gz"
	"diff-wide|$p diff $w $w -o $dir/out.pb.gz"
	"sum-wide|$p merge --sum $w $w -o $dir/out.pb.gz"
)
printf '| %-20s | %-22s | %-22s |\n' "run" "goal kept: RSS, wall" "GOMEMLIMIT=off"
printf '|%s|%s|%s|\n' "----------------------" "------------------------" "------------------------"
for row in "${rows[@]}"; do
	name=${row%%|*}
	cmd=${row#*|}
	case "$name" in ${ONLY:-*}) ;; *) continue ;; esac
	: > "$dir/kept.txt"
	: > "$dir/off.txt"
	for _ in $(seq "$runs"); do
		# shellcheck disable=SC2086
		/usr/bin/time -a -o "$dir/kept.txt" -f '%e %M' $cmd > /dev/null 2>&1
		# shellcheck disable=SC2086
		GOMEMLIMIT=off /usr/bin/time -a -o "$dir/off.txt" -f '%e %M' $cmd > /dev/null 2>&1
	done
	med() { sort -n -k"$1" "$2" | awk -v k="$1" '{ v[NR] = $k } END { print v[int((NR + 1) / 2)] }'; }
	fmt() { printf '%s MiB, %s s' "$(awk -v k="$(med 2 "$1")" 'BEGIN { printf "%.0f", k / 1024 }')" "$(med 1 "$1")"; }
	printf '| %-20s | %-22s | %-22s |\n' "$name" "$(fmt "$dir/kept.txt")" "$(fmt "$dir/off.txt")"
done
