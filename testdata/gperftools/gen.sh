#!/bin/sh
# gen.sh: rebuild the real gperftools CPU profiles in this directory.
# Run from this directory, as root on Debian 12 (bookworm), after:
#   apt-get install -y libgoogle-perftools-dev g++                       # x86_64
#   dpkg --add-architecture i386 && apt-get update
#   apt-get install -y libgoogle-perftools-dev:i386 g++-multilib         # 32-bit
#   dpkg --add-architecture s390x && apt-get update
#   apt-get install -y g++-s390x-linux-gnu libgoogle-perftools-dev:s390x qemu-user-static
# gperftools is 2.10-1 on all three. The binaries are built in a directory
# whose name has a space, so the maps text of every file names one.
# Sample counts vary from run to run; the files are committed, not regenerated in CI.
set -eux
B="/tmp/pprofx gperftools"
OUT=$(pwd)
rm -rf "$B"
mkdir -p "$B"
FLAGS="-O1 -g -fno-omit-frame-pointer"

# 64-bit little-endian (x86_64), dynamic libprofiler.so.
g++ $FLAGS -o "$B/burn" burn.cc -lprofiler -lpthread
CPUPROFILE_FREQUENCY=100  "$B/burn" "$OUT/le64-100hz.prof"       2000 1 stop    250
CPUPROFILE_FREQUENCY=1000 "$B/burn" "$OUT/le64-1000hz-4t.prof"   1000 4 stop    200
CPUPROFILE_FREQUENCY=100  "$B/burn" "$OUT/le64-notrailer.prof"   1000 1 noexit  250
CPUPROFILE_FREQUENCY=100  "$B/burn" "$OUT/le64-hot.prof"         2000 1 hot     50
cp "$B/burn" "$B/burn-deleted"
CPUPROFILE_FREQUENCY=100  "$B/burn-deleted" "$OUT/le64-deleted.prof" 500 1 deleted 0

# 32-bit little-endian (i386), dynamic libprofiler.so.
g++ -m32 $FLAGS -o "$B/burn32" burn.cc -lprofiler -lpthread
CPUPROFILE_FREQUENCY=100  "$B/burn32" "$OUT/le32-100hz.prof"     2000 2 stop    250

# 64-bit big-endian (s390x) under qemu user-mode emulation. Linked
# dynamically it aborts under qemu ("*** stack smashing detected ***"), so
# it is static, with all of libprofiler.a.
s390x-linux-gnu-g++ $FLAGS -static -o "$B/burn-s390x" burn.cc \
  -Wl,--whole-archive -lprofiler -Wl,--no-whole-archive -lpthread
CPUPROFILE_FREQUENCY=100  qemu-s390x-static -L / "$B/burn-s390x" "$OUT/be64-100hz.prof" 2000 1 stop 250

# 32-bit big-endian: no 32-bit big-endian target here; derived from the
# i386 file by byte-swapping every 4-byte slot of the binary part (see swapslots.go).
go run swapslots.go le32-100hz.prof be32-100hz.prof
