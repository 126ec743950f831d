#!/usr/bin/env bash
# Converts every crafted input of internal/testutil/hostile to every output
# format a stack view or an exchange format takes (pprof, OTLP, OTLP JSON,
# folded, HTML, speedscope) as a whole process under an address-space
# limit, and prints, per file and format, the exit status, the lines it
# wrote on stderr (warnings included) and its peak RSS.
#
# A row passes when pprofx exits 0 or 1 with at most 3 lines on stderr and
# no Go runtime failure: an input that fits the limit as it is decoded but
# not as it is written is refused, not left to run out of memory.
#
#   scripts/bench/hostile-convert.sh            # the issue's sizes, under 3 GiB (LIMIT_KB=3145728)
#   LIMIT_KB=1750000 ONLY='bundle-entries*' scripts/bench/hostile-convert.sh
#   scripts/bench/hostile-convert.sh -small     # the tests' sizes
#
# The files are made once into $HOSTILE_DIR (a few minutes at full scale);
# the whole run takes about 10 minutes at full scale.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/bench/hostile-setup.sh
source scripts/bench/hostile-setup.sh "${1:-}"
echo "address-space limit: ulimit -v $limit_kb ($(mib $((limit_kb * 1024))) MiB)"
printf '| %-32s | %-15s | %4s | %6s | %10s | %s |\n' "input" "output" "exit" "stderr" "peak RSS" "verdict"
printf '|%s|-----------------|------|--------|------------|---------|\n' "$(printf -- '-%.0s' {1..34})"
fail=0
for name in $(cut -f1 "$dir/manifest.tsv" | sort -u); do
	for ext in pb.gz otlp otlp.json folded html speedscope.json; do
		rm -rf "$dir/out"; mkdir -p "$dir/out"
		set +e
		(
			ulimit -v "$limit_kb"
			exec /usr/bin/time -v -o "$dir/time.txt" "$dir/pprofx" convert "$dir/$name" -o "$dir/out/o.$ext"
		) < /dev/null > /dev/null 2> "$dir/stderr.txt"
		code=$?
		set -e
		rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/time.txt" 2> /dev/null || echo 0)
		lines=$(grep -c . "$dir/stderr.txt" || true)
		verdict=ok
		if [ "$code" != 0 ] && [ "$code" != 1 ]; then verdict="NO (exit $code)"; fi
		if [ "$lines" -gt 3 ]; then verdict="NO ($lines lines)"; fi
		if grep -qE 'fatal error|^panic:|^goroutine ' "$dir/stderr.txt"; then verdict="NO (runtime failure)"; fi
		[ "$verdict" = ok ] || fail=1
		printf '| %-32s | %-15s | %4s | %6s | %10s | %s |\n' "$name" "$ext" "$code" "$lines" "$(mib $((${rss_kb:-0} * 1024))) MiB" "$verdict"
	done
done
exit $fail
