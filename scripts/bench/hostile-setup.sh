# Sourced, from the repository's root, by the hostile-*.sh scripts: builds
# pprofx as make build does into $dir, writes the crafted files of
# internal/testutil/hostile there (once, a few minutes at full scale;
# genhostile keeps those already there) and the list of cases
# ($dir/manifest.tsv, every time), and defines mib and command_args. $1 is the scale: "" or
# -small. ONLY picks the files whose names match a pattern; LIMIT_KB is the
# address-space limit of the scripts that run under one.
# shellcheck shell=bash
scale=${1:-}
dir=${HOSTILE_DIR:-/tmp/pprofx-hostile${scale}}
limit_kb=${LIMIT_KB:-3145728}
mkdir -p "$dir" "$dir/out"
CGO_ENABLED=0 go build -tags grpcnotrace -o "$dir/pprofx" ./cmd/pprofx
# shellcheck disable=SC2086
go run ./internal/tools/genhostile -o "$dir" -only "${ONLY:-*}" $scale > "$dir/manifest.tsv"
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
# command_args CMD IN OUT sets args to pprofx's arguments for CMD (one of
# pb.gz otlp otlp.json jsonl otlp-framed pprofextended pprofextended-json
# folded html speedscope.json diff merge sum) on the file IN, writing into
# the folder OUT, and label to the command's name in a table.
command_args() {
	local cmd=$1 in=$2 out=$3
	label="convert to $cmd"
	case $cmd in
	diff) args=(diff "$in" "$in" -o "$out/o.pb.gz") label=diff ;;
	otlp-framed | pprofextended*) args=(convert "$in" --to "$cmd" -o "$out/o") ;;
	merge) args=(merge "$in" "$in" -o "$out/o.ppxb") label=merge ;;
	sum) args=(merge --sum "$in" "$in" -o "$out/o.pb.gz") label="merge --sum" ;;
	*) args=(convert "$in" -o "$out/o.$cmd") ;;
	esac
}
