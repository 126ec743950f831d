#!/usr/bin/env bash
# How far pprofx's symbolization agrees with google/pprof's (-proto, with
# binutils) on a real library, beyond testdata/symbolize's fixtures.
#
#   scripts/symbolize-agree.sh [ELF [STEP]]
#
# Makes a gperftools profile (testdata/symbolize/mkprof) with an address every
# STEP bytes (default 251) of every function of ELF (default: this machine's
# libc.so.6), the functions taken from ELF's .symtab or, for a stripped ELF,
# from its debug file under /usr/lib/debug/.build-id (libc6-dbg for libc);
# symbolizes it with both commands; and compares the two location by location
# (internal/tools/symcmp), sorting the differences by kind and, where
# llvm-symbolizer is installed, counting for each kind whose files and lines
# it agrees with; with CHECK=1 it fails unless every difference is a file
# llvm-symbolizer agrees with pprofx on (make agree). Nothing here is
# timed. pprof is built as symbolize-bench.sh builds it (PPROF_REF_MOD, else
# PPROF_REF; see testdata/symbolize/ref/README).
set -euo pipefail
cd "$(dirname "$0")/.."
elf=${1:-/lib/x86_64-linux-gnu/libc.so.6}
step=${2:-251}
elf=$(readlink -f "$elf")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. scripts/pprof-ref.sh
pprof_ref_setup "$tmp"

syms=()
if ! readelf -S "$elf" | grep -q ' \.symtab '; then
	id=$(readelf -n "$elf" | awk '/Build ID/ {print $3}')
	dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	[ -f "$dbg" ] || { echo "$elf has no .symtab and no debug file at $dbg" >&2; exit 1; }
	syms=(-syms "$dbg")
fi
base=0x7f1200000000
go run ./testdata/symbolize/mkprof -bin "$elf" "${syms[@]}" -path "$elf" -base $base -step "$step" -o "$tmp/p.prof"
env PATH="$tmp/tools" HOME="$tmp" "$ref" -proto "$tmp/p.prof" >"$tmp/pprof.pb.gz" 2>"$tmp/pprof.err" || { cat "$tmp/pprof.err" >&2; exit 1; }
"$tmp/pprofx" symbolize "$tmp/p.prof" -o "$tmp/pprofx.pb.gz"
echo "$elf, every $step bytes of every function: pprof -proto (binutils) against pprofx symbolize"
llvm=()
if command -v llvm-symbolizer >/dev/null; then
	# A third opinion on the files and lines where the two differ.
	# mkprof loads a PIE or shared library at base, an executable where
	# it is linked.
	load=0
	if readelf -h "$elf" | grep -q 'Type: *DYN'; then
		load=$base
	fi
	llvm=(-llvm "$elf" -base $load)
fi
check=()
if [ -n "${CHECK:-}" ]; then
	check=(-check)
fi
go run ./internal/tools/symcmp -n "${SHOW:-3}" "${llvm[@]}" "${check[@]}" "$tmp/pprof.pb.gz" "$tmp/pprofx.pb.gz"
