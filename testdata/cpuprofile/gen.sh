#!/bin/sh
# Records the V8 CPU profiles of testdata/cpuprofile with Node's own profiler.
# Run from testdata/cpuprofile. Each run gives different (real) samples.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Default sampling interval (1000 µs).
node --cpu-prof --cpu-prof-dir="$dir" --cpu-prof-name=node-work.cpuprofile work.js
# A 250 µs interval.
node --cpu-prof --cpu-prof-interval 250 --cpu-prof-dir="$dir" --cpu-prof-name=node-work-250us.cpuprofile work.js
cp "$dir"/node-work.cpuprofile "$dir"/node-work-250us.cpuprofile .
