#!/usr/bin/env bash
# Regenerates the symbolization fixtures (see testdata/README.md):
#   bin/       binaries built from src/ with -g -O2 (x86_64 PIE and non-PIE,
#              a shared library, i386, s390x), and stripped variants
#   *.prof     gperftools CPU profiles: x86_64 ones recorded with libprofiler,
#              i386 and s390x ones written by mkprof/ from the binaries' symbols
#   ref/       what google/pprof's own command (-proto, binutils on PATH)
#              makes of each profile: the reference the tests compare to
# Usage: testdata/symbolize/gen.sh [STEP...]  steps: x86 i386 s390x record ref relpath asm cxxnest
# (default: all). Needs gcc, g++, libgoogle-perftools-dev, binutils;
# i386: g++-multilib; s390x: gcc-s390x-linux-gnu (the two conflict in Debian:
# install one at a time). ref needs /tmp/pprof-ref (google/pprof built from
# the module version go.mod pins: see ref/README).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# The profiles record this directory as the binaries' path; it is removed
# afterwards, so that the tests must find the binaries by --symbols-dir.
run=/tmp/pprofx-symfix
steps=${*:-x86 i386 s390x record ref relpath asm cxxnest}
cflags="-g -O2 -fdebug-prefix-map=$here/src=/src/pprofx-fixtures"
mkdir -p "$here/bin" "$here/stripped" "$here/compressed" "$here/debugroot" "$here/ref"

has() { [[ " $steps " == *" $1 "* ]]; }

if has x86; then
	rm -rf "$run" && mkdir -p "$run" && cd "$here/src"
	gcc $cflags -fPIC -shared -Wl,--build-id=sha1 -o "$run/libwork.so" work.c
	# PIE (Debian's default), linked to libwork.so found beside it.
	gcc $cflags -fpie -pie -Wl,--build-id=sha1 -o "$run/cprog" cprog.c -L"$run" -lwork -Wl,-rpath,'$ORIGIN'
	# non-PIE C++.
	g++ $cflags -fno-pie -no-pie -Wl,--build-id=sha1 -o "$run/cxxprog" cxxprog.cc -L"$run" -lwork -Wl,-rpath,'$ORIGIN'
	cp "$run/libwork.so" "$run/cprog" "$run/cxxprog" "$here/bin/"
	# Variants without DWARF: cxxprog with only .symtab (strip --strip-debug),
	# cprog with its DWARF in a separate file found by .gnu_debuglink, and
	# libwork.so with its DWARF under debugroot/.build-id/xx/rest.debug.
	strip --strip-debug -o "$here/stripped/cxxprog" "$run/cxxprog"
	objcopy --only-keep-debug "$run/cprog" "$here/stripped/cprog.debug"
	objcopy --strip-debug --add-gnu-debuglink="$here/stripped/cprog.debug" "$run/cprog" "$here/stripped/cprog"
	id=$(readelf -n "$run/libwork.so" | awk '/Build ID/ {print $3}')
	rm -rf "$here/debugroot/.build-id" && mkdir -p "$here/debugroot/.build-id/${id:0:2}"
	objcopy --only-keep-debug "$run/libwork.so" "$here/debugroot/.build-id/${id:0:2}/${id:2}.debug"
	strip --strip-debug -o "$here/stripped/libwork.so" "$run/libwork.so"
	# Compressed DWARF: SHF_COMPRESSED zlib (cprog) and zstd (libwork.so),
	# and GNU .zdebug_* sections (cxxprog).
	mkdir -p "$here/compressed"
	objcopy --compress-debug-sections=zlib "$run/cprog" "$here/compressed/cprog"
	objcopy --compress-debug-sections=zstd "$run/libwork.so" "$here/compressed/libwork.so"
	objcopy --compress-debug-sections=zlib-gnu "$run/cxxprog" "$here/compressed/cxxprog"
fi

if has i386; then
	cd "$here/src"
	gcc -m32 $cflags -fno-pie -no-pie -Wl,--build-id=sha1 -o "$here/bin/cprog-i386" cprog.c work.c
	# A 32-bit little-endian profile made from the binary's own symbols
	# (mkprof says how), mapped as the kernel would map it.
	cd "$repo" && go run ./testdata/symbolize/mkprof -bin testdata/symbolize/bin/cprog-i386 -path $run/cprog-i386 -o testdata/symbolize/i386.prof
fi

if has s390x; then
	cd "$here/src"
	s390x-linux-gnu-gcc $cflags -fpie -pie -Wl,--build-id=sha1 -o "$here/bin/cprog-s390x" cprog.c work.c
	# A 64-bit big-endian profile, the PIE loaded where qemu-s390x puts one.
	cd "$repo" && go run ./testdata/symbolize/mkprof -bin testdata/symbolize/bin/cprog-s390x -path $run/cprog-s390x -base 0x2aa00000000 -o testdata/symbolize/s390x.prof
fi

if has record; then
	cd "$run"
	lib=$(ls /usr/lib/x86_64-linux-gnu/libprofiler.so.0)
	CPUPROFILE="$here/cprog.prof" CPUPROFILE_FREQUENCY=1000 LD_PRELOAD=$lib ./cprog 150 >/dev/null
	CPUPROFILE="$here/cxxprog.prof" CPUPROFILE_FREQUENCY=1000 LD_PRELOAD=$lib ./cxxprog 120 >/dev/null
	rm -rf "$run"
	# Every other byte of cxxprog's functions: thousands of addresses,
	# most of them inside inlined code.
	cd "$repo" && go run ./testdata/symbolize/mkprof -bin testdata/symbolize/bin/cxxprog -path $run/cxxprog -step 2 -o testdata/symbolize/cxxprog-all.prof
fi

if has ref; then
	# google/pprof's command with binutils only (addr2line, nm, objdump,
	# c++filt) on PATH: with llvm-symbolizer on PATH pprof would use that.
	tools=$(mktemp -d)
	for t in addr2line nm objdump c++filt; do ln -s "$(command -v $t)" "$tools/$t"; done
	cd "$here"
	for p in cprog cxxprog cxxprog-all i386 s390x; do
		PATH=$tools HOME=/nonexistent PPROF_BINARY_PATH=$here/bin /tmp/pprof-ref -proto "$p.prof" >"ref/$p.pb.gz"
	done
	# Without DWARF in the binaries: .symtab only (cxxprog), and
	# DWARF only in a debug file (cprog, libwork.so), which pprof does
	# not look for: its reference shows what it makes of the stripped file.
	PATH=$tools HOME=/nonexistent PPROF_BINARY_PATH=$here/stripped /tmp/pprof-ref -proto cxxprog.prof >ref/cxxprog-symtab.pb.gz
	rm -rf "$tools"
fi

if has relpath; then
	# Built as Debian builds its packages: in a build tree mapped to "."
	# (-ffile-prefix-map), the object compiled from a subdirectory, so that
	# DW_AT_comp_dir is relative ("./app", as libc's "./csu") and so is a
	# line table directory ("../lib", as libc's "../sysdeps/..."). DWARF 5
	# (GCC 12's default) and DWARF 4. The profiles are mkprof's (every
	# other byte of every function), their references pprof's.
	b=/tmp/pprofx-relfix
	rm -rf "$b" && mkdir -p "$b" && cp -r "$here/src/relpath/." "$b/"
	cd "$b/app"
	gcc -g -O2 -ffile-prefix-map="$b"=. -fpie -pie -Wl,--build-id=sha1 -o "$here/bin/relprog" relprog.c
	gcc -gdwarf-4 -O2 -ffile-prefix-map="$b"=. -fpie -pie -Wl,--build-id=sha1 -o "$here/bin/relprog-dwarf4" relprog.c
	rm -rf "$b"
	tools=$(mktemp -d)
	for t in addr2line nm objdump c++filt; do ln -s "$(command -v $t)" "$tools/$t"; done
	for p in relprog relprog-dwarf4; do
		(cd "$repo" && go run ./testdata/symbolize/mkprof -bin testdata/symbolize/bin/$p -path $b/app/$p -base 0x55d0c0000000 -step 2 -o testdata/symbolize/$p.prof)
		(cd "$here" && PATH=$tools HOME=/nonexistent PPROF_BINARY_PATH=$here/bin /tmp/pprof-ref -proto "$p.prof" >"ref/$p.pb.gz")
	done
	rm -rf "$tools"
fi

if has asm; then
	# Assembly: a typed function (gas gives it a DW_TAG_subprogram) and a
	# bare local label (line table rows only, in .symtab only). bin/asmprog
	# as built; stripped/asmprog with no .symtab at all (strip --strip-all)
	# and its symbols and DWARF in stripped/asmprog.debug, found by
	# .gnu_debuglink, which addr2line follows too. The profile samples every
	# byte of both (mkprof -labels). -rdynamic puts asm_typed and main, not
	# asm_plain, in .dynsym, as a shared library exports some of its symbols.
	cd "$here/src/asm"
	gcc -g -O2 -fdebug-prefix-map="$here/src"=/src/pprofx-fixtures -fpie -pie -rdynamic -Wl,--build-id=sha1 -o "$here/bin/asmprog" asmprog.c asmfn.S
	cd "$here/stripped"
	objcopy --only-keep-debug "$here/bin/asmprog" asmprog.debug
	objcopy --strip-all --add-gnu-debuglink=asmprog.debug "$here/bin/asmprog" asmprog
	cd "$repo" && go run ./testdata/symbolize/mkprof -bin testdata/symbolize/bin/asmprog -path /tmp/pprofx-asmfix/asmprog -base 0x55d0c0000000 -step 1 -labels -o testdata/symbolize/asmprog.prof
	tools=$(mktemp -d)
	for t in addr2line nm objdump c++filt; do ln -s "$(command -v $t)" "$tools/$t"; done
	cd "$here"
	PATH=$tools HOME=/nonexistent PPROF_BINARY_PATH=$here/bin /tmp/pprof-ref -proto asmprog.prof >ref/asmprog.pb.gz
	PATH=$tools HOME=/nonexistent PPROF_BINARY_PATH=$here/stripped /tmp/pprof-ref -proto asmprog.prof >ref/asmprog-stripped.pb.gz
	rm -rf "$tools"
fi

if has cxxnest; then
	# C++ whose function tree has code inside a class: a lambda's operator()
	# nested in its enclosing function's entry. The profile samples every
	# byte of every function (mkprof), the reference is pprof's.
	cd "$here/src/cxxnest"
	g++ $cflags -fpie -pie -Wl,--build-id=sha1 -o "$here/bin/cxxnest" cxxnest.cc
	cd "$repo" && go run ./testdata/symbolize/mkprof -bin testdata/symbolize/bin/cxxnest -path /tmp/pprofx-cxxnest/cxxnest -base 0x55d0c0000000 -step 1 -o testdata/symbolize/cxxnest.prof
	tools=$(mktemp -d)
	for t in addr2line nm objdump c++filt; do ln -s "$(command -v $t)" "$tools/$t"; done
	cd "$here"
	PATH=$tools HOME=/nonexistent PPROF_BINARY_PATH=$here/bin /tmp/pprof-ref -proto cxxnest.prof >ref/cxxnest.pb.gz
	rm -rf "$tools"
fi
