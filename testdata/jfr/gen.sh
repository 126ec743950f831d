#!/usr/bin/env bash
# Records the JFR fixtures of testdata/jfr with the installed JDK (java,
# javac, jfr; OpenJDK 17). Run from anywhere; writes into testdata/jfr.
# Sample counts differ from run to run; the files are committed.
set -euo pipefail
cd "$(dirname "$0")"
out=$PWD
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
javac -d "$build" src/*.java
jfc=$out/src/pprofx.jfc
run() { # run NAME SETTINGS CLASS ARGS...
	local name=$1 settings=$2
	shift 2
	java -Xmx256m -XX:+UseSerialGC -cp "$build" \
		"-XX:StartFlightRecording=filename=$out/$name.jfr,settings=$settings" "$@"
}
# Custom settings (pprofx.jfc): execution and native method samples.
run cpu "$jfc" Cpu 1500
# Allocation events: the JDK's sample and both TLAB families.
run alloc "$jfc" Alloc 800
# Monitor and park contention.
run lock "$jfc" Lock 800
# The JDK's own "profile" settings, CPU work (many event types).
run cpu-profile profile Cpu 700
# Three chunks, sampling every 10, 5 and 10 ms.
java -Xmx256m -XX:+UseSerialGC -cp "$build" Chunks "$jfc" "$out/chunks.jfr"
# Two JVMs' recordings concatenated: each chunk has its own constant pools
# under the same ids (the JDK's jfr reads concatenated chunks).
cat cpu.jfr lock.jfr > concat.jfr
# A compressed copy.
gzip -9 -n -c cpu.jfr > cpu.jfr.gz
ls -l "$out"/*.jfr "$out"/*.jfr.gz
