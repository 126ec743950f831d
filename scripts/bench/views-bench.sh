#!/usr/bin/env bash
# The speed of writing the HTML flame graph of the 272 MB
# gperftools benchmark file (1M records, 100k distinct stacks of depth 32,
# internal/codec/gperftools/bench_test.go) against `go tool pprof -proto` of the
# same file, in one run, interleaved, median of ROUNDS (default 5).
# Also folded and speedscope output, and peak RSS of each (/usr/bin/time -v).
#
#   scripts/bench/views-bench.sh [ROUNDS]
#
# Wall-clock times swing on a shared machine: the user+system CPU times are
# printed too. pprof runs with -symbolize=none (the file's binaries do not
# exist; it would only look for them).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
large=$dir/large.prof
PPROFX_WRITE_LARGE=$large go test -count=1 -run '^TestWriteLargeFile$' ./internal/codec/gperftools >/dev/null
CGO_ENABLED=0 go build -tags grpcnotrace -o "$dir/pprofx" ./cmd/pprofx # as make build builds it
pprof=$(go tool -n pprof)
echo "input: $(stat -c %s "$large") bytes ($large)"

# run NAME CMD...: one timed run; appends "wall cpu rss" to $dir/NAME.
run() {
	local name=$1; shift
	/usr/bin/time -f '%e %U %S %M' -o "$dir/t" "$@" >/dev/null 2>"$dir/err" || { cat "$dir/err"; exit 1; }
	awk '{printf "%.3f %.3f %d\n", $1, $2+$3, $4}' "$dir/t" >>"$dir/$name"
}
for i in $(seq "$ROUNDS"); do
	run pprof-proto sh -c "'$pprof' -proto -symbolize=none '$large' > '$dir/out.pb.gz'"
	run html "$dir/pprofx" convert "$large" -o "$dir/out.html"
	run folded "$dir/pprofx" convert "$large" -o "$dir/out.folded"
	run speedscope "$dir/pprofx" convert "$large" -o "$dir/out.speedscope.json"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-12s %10s %10s %10s %12s\n' what wall_s cpu_s rss_MiB output_bytes
for name in pprof-proto html folded speedscope; do
	case $name in
	pprof-proto) out=$dir/out.pb.gz ;; html) out=$dir/out.html ;;
	folded) out=$dir/out.folded ;; speedscope) out=$dir/out.speedscope.json ;;
	esac
	printf '%-12s %10s %10s %10.0f %12s\n' "$name" \
		"$(cut -d' ' -f1 "$dir/$name" | median)" "$(cut -d' ' -f2 "$dir/$name" | median)" \
		"$(cut -d' ' -f3 "$dir/$name" | median | awk '{print $1/1024}')" "$(stat -c %s "$out")"
done
echo "(median of $ROUNDS interleaved rounds; $(nproc) cores; machine load: $(cut -d' ' -f1-3 /proc/loadavg))"
