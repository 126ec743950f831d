#!/usr/bin/env bash
# Runs pprofx on every crafted input of internal/testutil/hostile as a whole
# process under an address-space limit (ulimit -v, in a subshell, as a
# memory-limited container or CI job would) and prints, per row, the exit
# status, how many lines it wrote on stderr, its peak RSS (/usr/bin/time -v)
# and the memory bound (64 MiB + 4 x the decompressed input; 64 MiB for an
# input refused after its first bytes).
#
# A row passes when pprofx exits 0 or 1 with at most 3 lines on stderr, no
# Go runtime failure ("fatal error", "panic:", "goroutine ") and, when it
# ends with 0, a peak RSS within the bound. Whether a refusal is the
# expected one is scripts/hostile-rss.sh's business (it runs without the
# limit).
#
#   scripts/bench/hostile-limits.sh            # the issue's sizes, under 3 GiB (LIMIT_KB=3145728)
#   scripts/bench/hostile-limits.sh -small     # the tests' sizes
#   LIMIT_KB=1048576 scripts/bench/hostile-limits.sh
#   ONLY='bundle-entries*' scripts/bench/hostile-limits.sh   # the rows of the files matching a pattern
#
# The files are made once into $HOSTILE_DIR (a few minutes at full scale).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/bench/hostile-setup.sh
source scripts/bench/hostile-setup.sh "${1:-}"
echo "address-space limit: ulimit -v $limit_kb ($(mib $((limit_kb * 1024))) MiB)"
printf '| %-58s | %4s | %6s | %10s | %10s | %s |\n' "row" "exit" "stderr" "peak RSS" "bound" "verdict"
printf '|%s|------|--------|------------|------------|---------|\n' "$(printf -- '-%.0s' {1..60})"
fail=0
while IFS=$'\t' read -r name raw _want _msg early desc args _limited; do
	in="$dir/$name"
	rm -rf "$dir/out"; mkdir -p "$dir/out"
	# shellcheck disable=SC2086
	set -- ${args//IN/$in}
	argv=("${@//OUT/$dir/out/o}")
	stdin=/dev/null
	if [ "${argv[-1]:0:1}" = "<" ]; then # "<FILE": standard input
		stdin=${argv[-1]:1}
		unset 'argv[-1]'
	fi
	set +e
	(ulimit -v "$limit_kb"; exec /usr/bin/time -v -o "$dir/time.txt" "$dir/pprofx" "${argv[@]}") < "$stdin" > /dev/null 2> "$dir/stderr.txt"
	code=$?
	set -e
	rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/time.txt" 2>/dev/null || echo 0)
	rss=$(( ${rss_kb:-0} * 1024 ))
	bound=$(( 64 * 1048576 + 4 * raw ))
	if [ "$early" = early ]; then bound=$(( 64 * 1048576 )); fi
	lines=$(grep -c . "$dir/stderr.txt" || true)
	why=""
	case "$code" in 0|1) ;; *) why="exit $code;" ;; esac
	[ "$lines" -le 3 ] || why="$why $lines lines;"
	if grep -qE '^(fatal error|panic:|goroutine [0-9]+ )' "$dir/stderr.txt"; then why="$why runtime failure;"; fi
	if [ "$code" = 0 ] && [ "$rss" -gt "$bound" ]; then why="$why peak RSS over the bound;"; fi
	verdict=ok
	if [ -n "$why" ]; then
		verdict="NO ($why) $(head -c 160 "$dir/stderr.txt" | tr '\n' ' ')"
		fail=1
	fi
	printf '| %-58s | %4s | %6s | %10s | %10s | %s |\n' "$desc: ${argv[0]}" "$code" "$lines" "$(mib "$rss") MiB" "$(mib "$bound") MiB" "$verdict"
done < "$dir/manifest.tsv"
exit $fail
