#!/usr/bin/env bash
# Large heap texts made from the committed fixtures, converted to pprof as
# whole processes: peak RSS beside the bound (64 MiB + 4 × the input).
#
#   scripts/bench/legacy-heap.sh [MB] [RUNS] [BINARY...]
#
# The gperftools heap fixture's records and the Go heap debug=1 fixture's
# records (each with its frame comments) are repeated in order until the
# text has MB megabytes (default 40), and the memory map or MemStats
# section that ends the fixture follows. With MAPS=1, a heap text of 500k
# records and a memory map of 60k lines (19 MB; about 70 s a run, most of
# it google/pprof matching each location with every mapping) is added.
# Each BINARY (default: pprofx as make build builds it) converts each text
# RUNS times (default 3); their outputs are compared with cmp.
set -euo pipefail
cd "$(dirname "$0")/../.."
mb=${1:-40}
runs=${2:-3}
shift $(($# < 2 ? $# : 2))
dir=${LEGACY_DIR:-/tmp/pprofx-legacy}
mkdir -p "$dir"
bins=("$@")
if [ ${#bins[@]} = 0 ]; then
	CGO_ENABLED=0 go build -tags grpcnotrace -o "$dir/pprofx" ./cmd/pprofx
	bins=("$dir/pprofx")
fi
# repeat FIXTURE OUT: the records between the header line and the first
# line of the section that ends the text, repeated until mb megabytes.
repeat() {
	awk -v limit=$((mb * 1000000)) '
		NR == 1 { head = $0; next }
		tail != "" || /MAPPED_LIBRARIES:|--- Memory map: ---|^# runtime.MemStats/ { tail = tail $0 "\n"; next }
		/^[ \t]*$/ { next }
		{ body = body $0 "\n" }
		END {
			printf "%s\n", head
			for (n = 0; n < limit; n += length(body)) printf "%s", body
			printf "\n%s", tail
		}' "$1" > "$2"
}
repeat testdata/legacy/cppbench.heap "$dir/gperftools.heap"
repeat testdata/legacy/go-heap.txt "$dir/go.heap"
texts=(gperftools.heap go.heap)
if [ "${MAPS:-}" = 1 ]; then
	awk 'BEGIN {
		print "heap profile: 1: 1 [1: 1] @ heap/1048576"
		for (i = 0; i < 500000; i++) printf "1: 1 [1: 1] @ 0x%x 0x%x\n", 4194304 + i * 16, 4194320 + i
		print "MAPPED_LIBRARIES:"
		for (i = 0; i < 60000; i++) printf "%08x-%08x r-xp 00000000 00:00 0 /lib/lib%d.so\n", 268435456 + i * 65536, 268435456 + i * 65536 + 32768, i
	}' > "$dir/maps.heap"
	texts+=(maps.heap)
fi
export PPROFX_NO_FSYNC=1
printf '| %-16s | %-12s | %10s | %10s | %8s |\n' text binary "peak RSS" bound time
for text in "${texts[@]}"; do
	size=$(stat -c %s "$dir/$text")
	bound=$((64 * 1048576 + 4 * size))
	for ((r = 0; r < runs; r++)); do
		for b in "${bins[@]}"; do
			/usr/bin/time -f '%M %e' -o "$dir/time.txt" "$b" convert "$dir/$text" -o "$dir/out-$(basename "$b").pb.gz" 2> /dev/null
			read -r kb s < "$dir/time.txt"
			printf '| %-16s | %-12s | %6.1f MiB | %6.1f MiB | %6s s |\n' "$text" "$(basename "$b")" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$(awk -v b="$bound" 'BEGIN { print b / 1048576 }')" "$s"
		done
	done
	first=""
	for b in "${bins[@]}"; do
		out="$dir/out-$(basename "$b").pb.gz"
		if [ -n "$first" ] && ! cmp -s "$first" "$out"; then echo "$text: $(basename "$b")'s output differs"; fi
		first=${first:-$out}
	done
done
