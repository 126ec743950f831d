#!/usr/bin/env bash
# Runs the commands of hostile-commands.sh with two or more builds of
# pprofx side by side, on the same crafted inputs, under the same
# address-space limit: per file and command, each build's exit status and
# median peak RSS of RUNS runs (default 3, the builds alternated), the
# bound, and whether every build wrote the same bytes as the first.
#
#   scripts/bench/hostile-compare.sh REV_OR_BINARY...
#   ONLY='perf-samples*' RUNS=5 scripts/bench/hostile-compare.sh HEAD~1 HEAD
#
# An argument that names an executable file is run as it is; any other is
# a git revision, built as make build builds pprofx (from a temporary
# worktree) into $HOSTILE_DIR/bin. ONLY and LIMIT_KB are those of
# hostile-commands.sh; CMDS picks commands among pb.gz otlp otlp.json
# jsonl otlp-framed pprofextended pprofextended-json folded html
# speedscope.json diff merge sum (default: all).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -lt 2 ]; then
	echo "usage: $0 REV_OR_BINARY REV_OR_BINARY..." >&2
	exit 2
fi
# shellcheck source=scripts/bench/hostile-setup.sh
source scripts/bench/hostile-setup.sh ""
runs=${RUNS:-3}
cmds=${CMDS:-pb.gz otlp otlp.json jsonl otlp-framed pprofextended pprofextended-json folded html speedscope.json diff merge sum}
mkdir -p "$dir/bin"
bins=()
names=()
for a in "$@"; do
	if [ -f "$a" ] && [ -x "$a" ]; then
		bins+=("$a")
		names+=("$(basename "$a")")
		continue
	fi
	rev=$(git rev-parse --short "$a^{commit}")
	if [ ! -x "$dir/bin/pprofx-$rev" ]; then
		wt=$(mktemp -d)
		git worktree add -q --detach "$wt" "$rev"
		(cd "$wt" && CGO_ENABLED=0 go build -tags grpcnotrace -o "$dir/bin/pprofx-$rev" ./cmd/pprofx)
		git worktree remove --force "$wt"
	fi
	bins+=("$dir/bin/pprofx-$rev")
	names+=("$rev")
done
export PPROFX_NO_FSYNC=1
# median of the numbers on standard input
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "address-space limit: ulimit -v $limit_kb ($(mib $((limit_kb * 1024))) MiB); median peak RSS of $runs runs"
header="| input | command |"
for n in "${names[@]}"; do header+=" $n |"; done
echo "$header bound | same bytes |"
echo "$header" | sed 's/[^|]/-/g; s/$/---|---|/'
for name in $(cut -f1 "$dir/manifest.tsv" | sort -u); do
	in=$dir/$name
	raw=$(awk -F'\t' -v n="$name" '$1 == n { print $2; exit }' "$dir/manifest.tsv")
	for cmd in $cmds; do
		reads=1
		case $cmd in diff | merge | sum) reads=2 ;; esac
		bound=$((64 * 1048576 + 4 * reads * raw))
		declare -A rss=() code=()
		for ((r = 0; r < runs; r++)); do
			for i in "${!bins[@]}"; do
				out=$dir/out/$i
				rm -rf "$out"
				mkdir -p "$out"
				command_args "$cmd" "$in" "$out"
				set +e
				(
					ulimit -v "$limit_kb"
					exec /usr/bin/time -f %M -o "$dir/time.txt" "${bins[$i]}" "${args[@]}"
				) < /dev/null > /dev/null 2> /dev/null
				code[$i]=$?
				set -e
				rss[$i]="${rss[$i]:-} $(tail -n 1 "$dir/time.txt")"
			done
		done
		same=yes
		for i in "${!bins[@]}"; do
			[ "$i" = 0 ] && continue
			if [ "${code[$i]}" != "${code[0]}" ] || ! diff -rq "$dir/out/0" "$dir/out/$i" > /dev/null; then same=no; fi
		done
		row="| $name | $label |"
		for i in "${!bins[@]}"; do
			kb=$(echo "${rss[$i]}" | tr ' ' '\n' | grep . | median)
			row+=" $(mib "$(awk -v k="$kb" 'BEGIN { printf "%d", k * 1024 }')") MiB (exit ${code[$i]}) |"
		done
		echo "$row $(mib "$bound") MiB | $same |"
		unset rss code
	done
done
