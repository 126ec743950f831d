#!/bin/sh
# The speed of symbolizing a gperftools CPU profile with the
# same binaries, whole process, pprofx against google/pprof's command
# (-proto, with binutils: addr2line, nm, objdump on PATH), >= 10x faster.
#
# Each round runs both commands on each profile, alternating which goes
# first, and records wall-clock seconds, CPU seconds (user+sys of the
# process and its children: pprof's addr2line, nm and objdump count), peak
# RSS and minor page faults (pprof's with its children's). Profiles: every
# fixture profile of testdata/symbolize: cprog.prof and cxxprog.prof
# (recorded by libprofiler; a few dozen addresses each, in the fixtures and
# in this machine's libc and libstdc++), cxxprog-all.prof (3,519 distinct
# addresses, every other byte of cxxprog's functions, as a long profile of
# a large program has), i386.prof and s390x.prof (a 32-bit and a
# big-endian binary). It prints one table: per profile, the medians and
# the median of the per-round ratios. CPU time and peak RSS are the figures
# to quote from a loaded machine; wall-clock ratios are only meaningful
# from a quiet one (the machine load is printed with the table).
#
#   scripts/bench/symbolize-bench.sh [ROUNDS]                 (default 11)
#   scripts/bench/symbolize-bench.sh --instructions           (one run each under valgrind)
#   scripts/bench/symbolize-bench.sh --hyperfine [RUNS]       (wall clock by hyperfine, default 30)
#
# --hyperfine times wall clock to the microsecond (/usr/bin/time's %e has
# 10 ms steps, and pprofx's runs take 20-60 ms): hyperfine runs the two
# commands of a profile in one invocation, 3 warm-up runs each, then RUNS
# runs each, and the table gives the medians and their ratio, then the
# peak RSS of each command (the most of 3 more runs, by /usr/bin/time).
#
# --instructions counts instructions instead (valgrind's cachegrind, all
# processes: pprof and every child it starts), which machine load does
# not change. Both commands are then built with CGO_ENABLED=0 and run with
# GODEBUG=cpu.rdtscp=off,asyncpreemptoff=1 (valgrind 3.19 knows neither
# RDTSCP nor Go's preemption signals). Instructions leave out the kernel's
# work (exec, page faults), which is most of pprof's CPU time.
#
# Needs /usr/bin/time, binutils, and google/pprof's command: PPROF_REF
# (default /tmp/pprof-ref), built as testdata/symbolize/ref/README says;
# for --instructions, PPROF_REF_MOD (default /tmp/pprofref-mod), the
# scratch module it was built in, and valgrind. Both commands look for
# binaries in testdata/symbolize/bin first, then at the recorded paths
# (this machine's libc and libstdc++, with their /usr/lib/debug files
# where installed): the same work for both.
set -eu
cd "$(dirname "$0")/../.."
mode=time
rounds=11
case ${1:-} in
--instructions) mode=instructions ;;
--hyperfine)
	mode=hyperfine
	rounds=${2:-30}
	;;
'') ;;
*) rounds=$1 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. scripts/pprof-ref.sh
# The instruction counts need pprof built here (cachegrind follows its
# children); the timings take PPROF_REF as it is when there is no module.
if [ $mode = instructions ]; then
	pprof_ref_setup "$tmp" module
else
	pprof_ref_setup "$tmp"
fi
bin=testdata/symbolize/bin

profiles="cprog cxxprog cxxprog-all i386 s390x"
prof_path() {
	echo "testdata/symbolize/$1.prof"
}

if [ $mode = instructions ]; then
	# ir NAME CMD...: total instructions of CMD and its children.
	ir() {
		name=$1
		shift
		rm -rf "$tmp/vg"
		mkdir "$tmp/vg"
		env GODEBUG=cpu.rdtscp=off,asyncpreemptoff=1 valgrind --tool=cachegrind --cache-sim=no --trace-children=yes \
			--log-file="$tmp/vg/log.%p" --cachegrind-out-file=/dev/null "$@" >/dev/null 2>&1 || true
		cat "$tmp/vg"/log.* | tr -d , | awk -v n="$name" '/I *refs/ { s += $4; p++ } END { printf "%s %.1f %d\n", n, s / 1e6, p }' >>"$tmp/ir"
	}
	for prof in $profiles; do
		p=$(prof_path $prof)
		ir "$prof pprofx" "$tmp/pprofx" symbolize "$p" --symbols-dir "$bin" -o "$tmp/x.pb.gz"
		ir "$prof pprof" env PATH="$tmp/tools" PPROF_BINARY_PATH="$bin" HOME="$tmp" "$ref" -proto "$p"
	done
	ir "floor pprofx" "$tmp/pprofx" symbolize "$(prof_path cprog)" --symbolize=off -o "$tmp/x.pb.gz"
	echo "symbolize, instructions (cachegrind, whole process and children, user space only)"
	awk '{ v[$1 " " $2] = $3; n[$1 " " $2] = $4 }
		END { for (p in v) if (p ~ / pprofx$/) { q = p; sub(/ pprofx$/, "", q)
			if (q == "floor") { printf "  pprofx symbolize --symbolize=off cprog.prof (start-up, read, write): %.1f M\n", v[p]; continue }
			printf "  %-8s pprofx %7.1f M | pprof %7.1f M in %d processes | ratio %.2fx\n", q, v[p], v[q " pprof"], n[q " pprof"], v[q " pprof"] / v[p] } }' "$tmp/ir" | sort
	exit 0
fi

if [ $mode = hyperfine ]; then
	command -v hyperfine >/dev/null || { echo "hyperfine not installed" >&2; exit 1; }
	echo "symbolize, whole process, wall clock by hyperfine (median of $rounds runs each, 3 warm-up)"
	echo "machine load before $(cut -d' ' -f1-3 /proc/loadavg) (on $(nproc) CPUs)"
	printf '  %-11s | %-10s | %-10s | %-6s | %s\n' profile pprofx pprof ratio "peak RSS pprofx / pprof (most of 3 runs)"
	# rss CMD...: peak RSS in KB, the most of 3 runs (for pprof, that of its
	# largest process: /usr/bin/time's %M is the largest of the tree).
	rss() {
		m=0
		for _ in 1 2 3; do
			/usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>&1 || true
			v=$(tail -1 "$tmp/rss")
			if [ "$v" -gt "$m" ]; then m=$v; fi
		done
		echo "$m"
	}
	for prof in $profiles floor; do
		if [ $prof = floor ]; then
			p=$(prof_path cprog)
			hyperfine -N -w 3 -r "$rounds" --export-json "$tmp/h.json" \
				"$tmp/pprofx symbolize $p --symbolize=off -o $tmp/x.pb.gz" >/dev/null 2>&1
		else
			p=$(prof_path $prof)
			hyperfine -N -w 3 -r "$rounds" --export-json "$tmp/h.json" \
				"$tmp/pprofx symbolize $p --symbols-dir $bin -o $tmp/x.pb.gz" \
				"env PATH=$tmp/tools PPROF_BINARY_PATH=$bin HOME=$tmp $ref -proto $p" >/dev/null 2>&1
		fi
		if [ $prof = floor ]; then
			r1=$(rss "$tmp/pprofx" symbolize "$p" --symbolize=off -o "$tmp/x.pb.gz")
			r2=0
		else
			r1=$(rss "$tmp/pprofx" symbolize "$p" --symbols-dir "$bin" -o "$tmp/x.pb.gz")
			r2=$(rss env PATH="$tmp/tools" PPROF_BINARY_PATH="$bin" HOME="$tmp" "$ref" -proto "$p")
		fi
		python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
m = [x["median"] for x in r]
r1, r2 = int(sys.argv[3]) / 1024, int(sys.argv[4]) / 1024
if len(m) == 1:
    print("  %-11s | %7.1f ms | %10s | %6s | %.1f MB" % ("floor", m[0] * 1e3, "-", "", r1))
else:
    print("  %-11s | %7.1f ms | %7.1f ms | %5.1fx | %.1f / %.1f MB" % (sys.argv[2], m[0] * 1e3, m[1] * 1e3, m[1] / m[0], r1, r2))
' "$tmp/h.json" $prof "$r1" "$r2"
	done
	echo "machine load after $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi

# measure NAME CMD...: appends "NAME wall cpu maxrss_kb minor_faults" to $tmp/runs.
measure() {
	name=$1
	shift
	/usr/bin/time -f "%e %U %S %M %R" -o "$tmp/t" "$@" >/dev/null 2>&1
	awk -v n="$name" '{ printf "%s %s %.3f %s %s\n", n, $1, $2 + $3, $4, $5 }' "$tmp/t" >>"$tmp/runs"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for prof in $profiles; do
	p=$(prof_path $prof)
	i=0
	while [ $i -lt "$rounds" ]; do
		a() { measure "$prof pprofx $i" "$tmp/pprofx" symbolize "$p" --symbols-dir "$bin" -o "$tmp/x.pb.gz"; }
		b() { measure "$prof pprof $i" env PATH="$tmp/tools" PPROF_BINARY_PATH="$bin" HOME="$tmp" "$ref" -proto "$p"; }
		if [ $((i % 2)) -eq 0 ]; then a; b; else b; a; fi
		i=$((i + 1))
	done
done
# The process floor: start-up, reading and writing, no symbolization.
i=0
while [ $i -lt "$rounds" ]; do
	measure "floor pprofx $i" "$tmp/pprofx" symbolize "$(prof_path cprog)" --symbolize=off -o "$tmp/x.pb.gz"
	i=$((i + 1))
done

echo "symbolize, whole process: pprofx symbolize vs google/pprof -proto (binutils), medians of $rounds rounds"
echo "machine load before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg) (on $(nproc) CPUs): wall figures mean little above 1"
awk 'function median(arr, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
		return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2 }
	{ key = $1 " " $2; r = $3; w[key, r] = $4; c[key, r] = $5; f[key, r] = $7; if ($6 > m[key]) m[key] = $6; profs[$1] = 1; rounds[r] = 1 }
	END {
		printf "  %-8s | %-27s | %-27s | %-13s | %-23s | %s\n", "profile", "wall pprofx / pprof", "CPU pprofx / pprof", "CPU ratio", "peak RSS pprofx / pprof", "page faults pprofx / pprof"
		n = 0; for (r in rounds) { n++; fw[n] = w["floor pprofx", r]; fc[n] = c["floor pprofx", r]; ff[n] = f["floor pprofx", r] }
		for (p in profs) { if (p == "floor") continue; n = 0; for (r in rounds) { n++
			pw[n] = w[p " pprofx", r]; rw[n] = w[p " pprof", r]; pc[n] = c[p " pprofx", r]; rc[n] = c[p " pprof", r]
			wr[n] = rw[n] / (pw[n] > 0 ? pw[n] : 0.001); cr[n] = rc[n] / (pc[n] > 0 ? pc[n] : 0.001)
			pf[n] = f[p " pprofx", r]; rf[n] = f[p " pprof", r] }
		printf "  %-8s | %6.3f s / %6.3f s (%4.1fx) | %6.3f s / %6.3f s        | %5.1fx        | %6.1f MB / %6.1f MB    | %6d / %6d\n",
			p, median(pw, n), median(rw, n), median(wr, n), median(pc, n), median(rc, n), median(cr, n), m[p " pprofx"] / 1024, m[p " pprof"] / 1024, median(pf, n), median(rf, n) }
		printf "  floor: pprofx symbolize --symbolize=off cprog.prof: %.3f s wall, %.3f s CPU, %.1f MB, %d page faults\n", median(fw, n), median(fc, n), m["floor pprofx"] / 1024, median(ff, n)
	}' "$tmp/runs"
