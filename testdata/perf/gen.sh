#!/bin/sh
# Builds src/burnt.c and records it with Debian's perf (linux-perf), then
# writes the perf script texts committed beside this script. Run from
# testdata/perf. Sample counts differ from run to run.
set -eu
out=$(pwd)
work=${TMPDIR:-/tmp}/pprofx-perf
mkdir -p "$work"
gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$work/burnt" src/burnt.c
cd "$work"
# Frame-pointer call graphs, CPU sampled on a software clock (no hardware
# counters in a VM), 499 Hz; --sample-cpu records the CPU of each sample.
perf record -q -F 499 -g --sample-cpu -o fp.data ./burnt 0.5 >/dev/null
perf script -i fp.data >"$out/fp.txt"
perf script -i fp.data --header >"$out/fp-header.txt"
perf script -i fp.data -F comm,pid,tid,cpu,time,event,ip,sym,dso,trace >"$out/fp-fields.txt" 2>/dev/null
perf script -i fp.data -F comm,tid,period,event,ip,sym,dso >"$out/fp-notime.txt"
perf script -i fp.data -F comm,pid,tid,time,event,ip,sym,dso,srcline >"$out/fp-srcline.txt"
perf script -i fp.data --ns -F comm,pid,tid,cpu,time,period,event,ip,sym,symoff,dso >"$out/fp-ns.txt"
# DWARF call graphs: inlined frames appear as "(inlined)" lines.
perf record -q -F 499 --call-graph dwarf,16384 -o dwarf.data ./burnt 0.4 >/dev/null
perf script -i dwarf.data >"$out/dwarf.txt"
# Two events in one recording, each sampled at 499 Hz.
perf record -q -e cpu-clock,task-clock -F 499 -g -o multi.data ./burnt 0.2 >/dev/null
perf script -i multi.data >"$out/multi.txt"
# A tracepoint: trace fields after the event name, no period.
perf record -q -e sched:sched_switch -g -o sched.data ./burnt 0.1 >/dev/null
perf script -i sched.data >"$out/sched.txt"
# The monotonic clock, with --header: perf writes the reference time that
# ties its clock to the time of day.
perf record -q -k CLOCK_MONOTONIC -F 499 -g -o mono.data ./burnt 0.1 >/dev/null
perf script -i mono.data --header >"$out/mono-header.txt"
# No call graph: one frame on the sample's own line.
perf record -q -F 499 -o flat.data ./burnt 0.1 >/dev/null
perf script -i flat.data >"$out/flat.txt"
ls -l "$out"/*.txt
