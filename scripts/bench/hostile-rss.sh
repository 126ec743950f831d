#!/usr/bin/env bash
# Runs pprofx on each crafted input (internal/testutil/hostile) as a
# whole process under /usr/bin/time -v and prints, per case, the input's
# file and decompressed sizes, the bound (64 MiB + 4 x decompressed), the
# peak RSS, the wall time, the exit status and whether the answer is the
# expected one. A case refused early (after its first bytes) is held to
# 64 MiB whatever its size.
#
#   scripts/bench/hostile-rss.sh            # the issue's sizes (needs ~3 GB of /tmp, a few minutes)
#   scripts/bench/hostile-rss.sh -small     # the tests' sizes
#   ONLY='bundle-entries*' scripts/bench/hostile-rss.sh   # the rows of the files matching a pattern
#
# Peak RSS does not depend on the machine's load; wall times do.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/bench/hostile-setup.sh
source scripts/bench/hostile-setup.sh "${1:-}"
printf '| %-40s | %10s | %12s | %10s | %10s | %7s | %4s | %s |\n' "case" "file" "decompressed" "bound" "peak RSS" "wall" "exit" "answer"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..42})" "------------" "--------------" "------------" "------------" "---------" "------" "--------"
fail=0
while IFS=$'\t' read -r name raw want msg early desc args _limited; do
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
	/usr/bin/time -v -o "$dir/time.txt" "$dir/pprofx" "${argv[@]}" < "$stdin" > /dev/null 2> "$dir/stderr.txt"
	code=$?
	set -e
	rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/time.txt")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$dir/time.txt")
	bound=$(( 64 * 1048576 + 4 * raw ))
	if [ "$early" = early ]; then bound=$(( 64 * 1048576 )); fi
	rss=$(( rss_kb * 1024 ))
	ok=yes
	why=""
	case "|$want|" in *"|$code|"*) ;; *) why="exit $code, want $want;" ;; esac
	if [ "$msg" != "-" ] && ! grep -qF -- "$msg" "$dir/stderr.txt"; then why="$why message;"; fi
	[ "$rss" -le "$bound" ] || why="$why peak RSS over the bound;"
	if [ "$code" != 0 ] && [ "$(grep -c . "$dir/stderr.txt")" != 1 ]; then why="$why not one line;"; fi
	if [ -n "$why" ]; then
		ok="NO ($why): $(head -c 200 "$dir/stderr.txt")"
		fail=1
	fi
	size=$(stat -c %s "$in")
	printf '| %-40s | %10s | %12s | %10s | %10s | %7s | %4s | %s |\n' "$desc" "$(mib "$size") MiB" "$(mib "$raw") MiB" "$(mib "$bound") MiB" "$(mib "$rss") MiB" "$wall" "$code" "$ok"
done < "$dir/manifest.tsv"
exit $fail
