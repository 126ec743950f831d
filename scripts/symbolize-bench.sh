#!/bin/sh
# Issue 13's speed target: symbolizing a gperftools CPU profile with the
# same binaries, whole process, pprofx against google/pprof's command
# (-proto, with binutils: addr2line, nm, objdump on PATH), >= 10x faster.
#
# Each round runs both commands on each profile, alternating which goes
# first, and records wall-clock seconds and CPU seconds (user+sys of the
# process and its children: pprof's addr2line and nm subprocesses count).
# Profiles: the fixtures cprog.prof and cxxprog.prof (a few dozen
# addresses each, in the fixtures and in this machine's libc, libstdc++),
# and "many", about 11,000 distinct addresses in cxxprog.
# It prints, per profile, the medians and the median of the per-round
# ratios, and peak RSS of each. CPU time is the steadier figure on a
# loaded machine; rerun on a quiet one for wall-clock figures.
#
#   scripts/symbolize-bench.sh [ROUNDS]      (default 11)
#
# Needs /usr/bin/time, binutils, and google/pprof's command: PPROF_REF
# (default /tmp/pprof-ref), built as testdata/symbolize/ref/README says.
# Both commands look for binaries in testdata/symbolize/bin first, then at
# the recorded paths (this machine's libc and libstdc++, with their
# /usr/lib/debug files where installed): the same work for both.
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-11}
ref=${PPROF_REF:-/tmp/pprof-ref}
[ -x "$ref" ] || { echo "no google/pprof command at $ref (see testdata/symbolize/ref/README)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/pprofx" ./cmd/pprofx
# binutils only: with llvm-symbolizer on PATH pprof would use that instead.
mkdir "$tmp/tools"
for t in addr2line nm objdump c++filt; do ln -s "$(command -v $t)" "$tmp/tools/$t"; done
bin=testdata/symbolize/bin

# measure NAME CMD...: appends "NAME wall cpu maxrss_kb" to $tmp/runs.
measure() {
	name=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$@" >/dev/null 2>&1
	awk -v n="$name" '{ printf "%s %s %.3f %s\n", n, $1, $2 + $3, $4 }' "$tmp/t" >>"$tmp/runs"
}

# A profile with many distinct addresses, as a long profile of a large
# program has: every other byte of cxxprog's functions (about 11,000),
# written by the fixture maker (testdata/symbolize/mkprof).
go run ./testdata/symbolize/mkprof -bin $bin/cxxprog -path /tmp/pprofx-symfix/cxxprog -step 2 -o "$tmp/many.prof"

for prof in cprog cxxprog many; do
	p=testdata/symbolize/$prof.prof
	[ $prof = many ] && p=$tmp/many.prof
	i=0
	while [ $i -lt "$rounds" ]; do
		a() { measure "$prof pprofx $i" "$tmp/pprofx" symbolize "$p" --symbols-dir "$bin" -o "$tmp/x.pb.gz"; }
		b() { measure "$prof pprof $i" env PATH="$tmp/tools" PPROF_BINARY_PATH="$bin" HOME="$tmp" "$ref" -proto "$p"; }
		if [ $((i % 2)) -eq 0 ]; then a; b; else b; a; fi
		i=$((i + 1))
	done
done

echo "symbolize, whole process: pprofx symbolize vs google/pprof -proto (binutils), $rounds rounds, load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk '{ key = $1 " " $2; r = $3; w[key, r] = $4; c[key, r] = $5; if ($6 > m[key]) m[key] = $6; profs[$1] = 1; rounds[r] = 1 }
	function median(arr, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
		return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2 }
	END { for (p in profs) { n = 0; for (r in rounds) { n++
			pw[n] = w[p " pprofx", r]; rw[n] = w[p " pprof", r]; pc[n] = c[p " pprofx", r]; rc[n] = c[p " pprof", r]
			wr[n] = rw[n] / (pw[n] > 0 ? pw[n] : 0.001); cr[n] = rc[n] / (pc[n] > 0 ? pc[n] : 0.001) }
		printf "  %-8s wall: pprofx %.3fs pprof %.3fs  ratio %.1fx | cpu: pprofx %.3fs pprof %.3fs  ratio %.1fx | peak RSS pprofx %d KB, pprof %d KB\n",
			p, median(pw, n), median(rw, n), median(wr, n), median(pc, n), median(rc, n), median(cr, n), m[p " pprofx"], m[p " pprof"] } }' "$tmp/runs"
