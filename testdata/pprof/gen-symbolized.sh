#!/bin/sh
# gen-symbolized.sh: make the symbolized gperftools profiles in this directory.
# Run from this directory on Debian 12 (bookworm) x86_64 with
# libgoogle-perftools-dev (2.10-1), g++, binutils and llvm (llvm-symbolizer,
# which google/pprof's symbolizer prefers) installed.
#
# burn.cc (../gperftools) is built as gen.sh builds it, but in a directory
# whose name has no space (pprof's gperftools reader cuts a maps line's path
# at the first space, and could not find the binary), and profiled for a
# second. pprof then symbolizes that profile twice: against the binary as
# built, and against a stripped copy at the same path. For the stripped
# binary llvm-symbolizer knows nothing of burn's own addresses, and pprof
# gives each of them a line naming a Function whose every field is empty.
# Sample counts vary from run to run; the files are committed.
set -eux
B=/tmp/pprofx-sym
OUT=$(pwd)
PPROF="go run github.com/google/pprof@$(cd ../.. && go list -m -f '{{.Version}}' github.com/google/pprof)"
rm -rf "$B"
mkdir -p "$B"
cp ../gperftools/burn.cc "$B/"
g++ -O1 -g -fno-omit-frame-pointer -o "$B/burn" "$B/burn.cc" -lprofiler -lpthread
CPUPROFILE_FREQUENCY=100 "$B/burn" "$OUT/../gperftools/le64-symsrc.prof" 1000 1 stop 250
$PPROF -proto "$B/burn" ../gperftools/le64-symsrc.prof > gperftools-symbolized.pb.gz
strip "$B/burn"
$PPROF -proto "$B/burn" ../gperftools/le64-symsrc.prof > gperftools-stripped.pb.gz
