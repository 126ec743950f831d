#!/usr/bin/env bash
# What durable outputs cost: `pprofx unpack --all` of the 100-file corpus
# (testdata/corpus merged into one bundle), with the fsyncs (the default)
# and without (PPROFX_NO_FSYNC=1), RUNS times each, alternating; prints the
# median and the fastest wall time of each and the difference.
#
#   scripts/bench/fsync-unpack.sh              # RUNS=11, in a folder under /var/tmp
#   RUNS=1 DIR=/some/disk scripts/bench/fsync-unpack.sh
#
# The folder must be on the disk to be measured: on tmpfs fsync costs
# nothing. Times depend on the disk and on the machine's load; run it on a
# quiet machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-11}
dir=${DIR:-/var/tmp/pprofx-fsync-bench}
mkdir -p "$dir"
CGO_ENABLED=0 go build -tags grpcnotrace -o "$dir/pprofx" ./cmd/pprofx
"$dir/pprofx" merge testdata/corpus/*.pb.gz -o "$dir/corpus.ppxb"
echo "file system of $dir: $(df -PT "$dir" | awk 'NR == 2 { print $2 " (" $1 ")" }')"
ms() { # wall time of one unpack --all, in ms
	rm -rf "$dir/out"
	local t0 t1
	t0=$(date +%s%N)
	env "$@" "$dir/pprofx" unpack "$dir/corpus.ppxb" --all -o "$dir/out"
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000000 ))
}
synced=() unsynced=()
for _ in $(seq "$runs"); do
	synced+=("$(ms PPROFX_NO_FSYNC=)")
	unsynced+=("$(ms PPROFX_NO_FSYNC=1)")
done
stats() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { printf "median %d ms, fastest %d ms", a[int((NR + 1) / 2)], a[1] }'; }
n=$(ls "$dir/out" | wc -l)
echo "unpack --all, $n files, $runs runs each"
echo "  with fsync (default):      $(stats "${synced[@]}")"
echo "  without (PPROFX_NO_FSYNC=1): $(stats "${unsynced[@]}")"
rm -rf "$dir/out"
