#!/usr/bin/env bash
# perf script text -> folded stacks: pprofx against FlameGraph's
# stackcollapse-perf.pl on one large recording, in one hyperfine run
# (interleaved warm-up, then each command RUNS times).
#
#   scripts/bench/perf-folded.sh STACKCOLLAPSE_PERF_PL [PERF_SCRIPT_TEXT] [RUNS]
#
# STACKCOLLAPSE_PERF_PL is the path of stackcollapse-perf.pl (from
# github.com/brendangregg/FlameGraph; CDDL, so pprofx neither ships nor
# fetches it). Without PERF_SCRIPT_TEXT, the script records one with
# Debian's perf: testdata/perf/src/burnt.c, 3 threads, 4 s at 3999 Hz with
# frame-pointer call graphs (about 45,000 samples, 10 MB of text, when the
# machine gives the three threads their CPUs).
#
# Before timing, the two outputs are compared the way
# internal/codec/perfscript's TestStackcollapsePerf compares them (the
# script's root frame, the command, is pprofx's thread_comm label).
# Needs perl, hyperfine, and perf when no text is given.
set -euo pipefail
cd "$(dirname "$0")/../.."
script=${1:?usage: $0 STACKCOLLAPSE_PERF_PL [PERF_SCRIPT_TEXT] [RUNS]}
input=${2:-}
RUNS=${3:-10}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -tags grpcnotrace -o "$dir/pprofx" ./cmd/pprofx # as make build builds it
if [ -z "$input" ]; then
	gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$dir/burnt" testdata/perf/src/burnt.c
	perf record -q -F 3999 -g -o "$dir/perf.data" "$dir/burnt" 4 >/dev/null
	perf script -i "$dir/perf.data" >"$dir/perf.txt" 2>/dev/null
	input=$dir/perf.txt
fi
echo "input: $input, $(stat -c %s "$input") bytes, $(grep -c $'^[^\t#]' "$input") sample lines"

# The same stacks first (the script is given a blank line at the end, as
# the test gives it, so that it keeps the last sample).
{ cat "$input"; echo; } | perl "$script" | awk '{v=$NF; sub(/ [0-9]+$/, ""); sub(/^[^;]*;?/, ""); s[$0]+=v} END {for (k in s) printf "%s %.0f\n", k, s[k]}' | LC_ALL=C sort >"$dir/ref"
"$dir/pprofx" convert "$input" -o - --to folded 2>/dev/null | LC_ALL=C sort >"$dir/ours"
if ! cmp -s "$dir/ref" "$dir/ours"; then
	echo "the outputs differ:" >&2
	diff "$dir/ref" "$dir/ours" | head -20 >&2
	exit 1
fi
echo "same stacks and values: $(wc -l <"$dir/ours") distinct stacks"

hyperfine --warmup 1 --runs "$RUNS" --export-markdown "$dir/table.md" \
	-n stackcollapse-perf.pl "perl '$script' '$input' > /dev/null" \
	-n pprofx "'$dir/pprofx' convert '$input' -o - --to folded > /dev/null"
cat "$dir/table.md"
