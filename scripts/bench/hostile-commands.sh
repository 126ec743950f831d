#!/usr/bin/env bash
# Runs the commands that read an input and write another on every crafted
# input of internal/testutil/hostile, as a whole process under an
# address-space limit: convert to pprof, OTLP (binary, JSON, JSON lines,
# the collector's framed file), the older pprofextended dialect (binary,
# JSON), folded, HTML and speedscope, and diff, merge and merge --sum of
# the file with itself. Prints, per file
# and command, the exit status, the lines written on stderr (warnings
# included), the peak RSS and the memory bound (64 MiB + 4 x the
# decompressed input, which diff and merge read twice).
#
# A row passes when pprofx exits 0 or 1 with at most 3 lines on stderr and
# no Go runtime failure (an input that fits the limit as it is decoded but
# not as it is written, compared or bundled is refused, not left to run
# out of memory) and, when it ends with 0, a peak RSS within the bound.
#
#   scripts/bench/hostile-commands.sh            # the issue's sizes, under 3 GiB (LIMIT_KB=3145728)
#   LIMIT_KB=1750000 ONLY='bundle-entries*' scripts/bench/hostile-commands.sh
#   scripts/bench/hostile-commands.sh -small     # the tests' sizes
#
# The files are made once into $HOSTILE_DIR (a few minutes at full scale);
# the whole run takes about 15 minutes at full scale.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/bench/hostile-setup.sh
source scripts/bench/hostile-setup.sh "${1:-}"
echo "address-space limit: ulimit -v $limit_kb ($(mib $((limit_kb * 1024))) MiB)"
printf '| %-32s | %-26s | %4s | %6s | %10s | %10s | %s |\n' "input" "command" "exit" "stderr" "peak RSS" "bound" "verdict"
printf '|%s|----------------------------|------|--------|------------|------------|---------|\n' "$(printf -- '-%.0s' {1..34})"
fail=0
for name in $(cut -f1 "$dir/manifest.tsv" | sort -u); do
	in=$dir/$name
	raw=$(awk -F'\t' -v n="$name" '$1 == n { print $2; exit }' "$dir/manifest.tsv")
	for cmd in pb.gz otlp otlp.json jsonl otlp-framed pprofextended pprofextended-json folded html speedscope.json diff merge sum; do
		rm -rf "$dir/out"; mkdir -p "$dir/out"
		command_args "$cmd" "$in" "$dir/out"
		set +e
		(
			ulimit -v "$limit_kb"
			exec /usr/bin/time -v -o "$dir/time.txt" "$dir/pprofx" "${args[@]}"
		) < /dev/null > /dev/null 2> "$dir/stderr.txt"
		code=$?
		set -e
		rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/time.txt" 2> /dev/null || echo 0)
		reads=1
		case $cmd in diff | merge | sum) reads=2 ;; esac
		bound=$((64 * 1048576 + 4 * reads * raw))
		lines=$(grep -c . "$dir/stderr.txt" || true)
		verdict=ok
		if [ "$code" = 0 ] && [ $((${rss_kb:-0} * 1024)) -gt "$bound" ]; then verdict="NO (peak RSS over the bound)"; fi
		if [ "$code" != 0 ] && [ "$code" != 1 ]; then verdict="NO (exit $code)"; fi
		if [ "$lines" -gt 3 ]; then verdict="NO ($lines lines)"; fi
		if grep -qE 'fatal error|^panic:|^goroutine ' "$dir/stderr.txt"; then verdict="NO (runtime failure)"; fi
		[ "$verdict" = ok ] || fail=1
		printf '| %-32s | %-26s | %4s | %6s | %10s | %10s | %s |\n' "$name" "$label" "$code" "$lines" "$(mib $((${rss_kb:-0} * 1024))) MiB" "$(mib "$bound") MiB" "$verdict"
	done
done
exit $fail
