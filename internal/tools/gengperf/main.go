// Command gengperf writes large gperftools CPU profiles (64-bit
// little-endian) of the four stack shapes the benchmarks measure, for
// scripts/bench/gperf-bench.sh. The files are big (about 272 MB by default): write
// them to /tmp, never into the repository.
//
//	go run ./internal/tools/gengperf -shape distinct32 -o /tmp/d32.prof
//
// Shapes (PCs drawn from 67,584 code addresses of one mapped binary):
//
//	distinct32   every record a new stack of depth 32 (1,000,000 records)
//	repeat32     records repeat 100,000 distinct stacks of depth 32; the
//	             same bytes as BenchmarkDecodeLarge's file
//	distinct8    every record a new stack of depth 8
//	distinct128  every record a new stack of depth 128
//
// -size sets the approximate file size (records of the shape's depth until
// it is reached); -records sets the record count instead. The output is a
// function of the flags: the same flags give the same bytes.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
)

const (
	numPCs       = 67_584
	repeatStacks = 100_000
)

func main() {
	shape := flag.String("shape", "distinct32", "distinct32, repeat32, distinct8 or distinct128")
	out := flag.String("o", "", "output file (required)")
	size := flag.Int64("size", 272_000_000, "approximate size of the records in bytes")
	records := flag.Int("records", 0, "number of records (overrides -size)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gengperf: -o FILE is required")
		os.Exit(2)
	}
	var depth int
	repeat := false
	switch *shape {
	case "distinct32":
		depth = 32
	case "repeat32":
		depth, repeat = 32, true
	case "distinct8":
		depth = 8
	case "distinct128":
		depth = 128
	default:
		fmt.Fprintf(os.Stderr, "gengperf: unknown shape %q\n", *shape)
		os.Exit(2)
	}
	n := *records
	if n == 0 {
		n = int(*size / int64(8*(2+depth)))
	}
	if err := write(*out, depth, n, repeat); err != nil {
		fmt.Fprintln(os.Stderr, "gengperf:", err)
		os.Exit(1)
	}
}

func write(path string, depth, records int, repeat bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var buf [8]byte
	slot := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		w.Write(buf[:])
	}
	rng := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 { // xorshift64*
		rng ^= rng >> 12
		rng ^= rng << 25
		rng ^= rng >> 27
		return rng * 2685821657736338717
	}
	pcOf := func(i uint64) uint64 { return 0x400000 + 16*i + 5 }
	// repeat32: as internal/codec/gperftools/bench_test.go's writeLarge.
	var stacks []uint64
	if repeat {
		stacks = make([]uint64, repeatStacks*depth)
		for i := range stacks {
			pc := uint64(i) % numPCs
			if i%3 != 0 {
				pc = next() % numPCs
			}
			stacks[i] = pcOf(pc)
		}
	}
	for _, v := range []uint64{0, 3, 0, 10000, 0} {
		slot(v)
	}
	for r := 0; r < records; r++ {
		if repeat {
			s := int(next() % repeatStacks)
			if r < repeatStacks {
				s = r // every stack at least once
			}
			slot(1 + next()%3)
			slot(uint64(depth))
			for _, pc := range stacks[s*depth : (s+1)*depth] {
				slot(pc)
			}
			continue
		}
		slot(1 + next()%3)
		slot(uint64(depth))
		for j := 0; j < depth; j++ {
			slot(pcOf(next() % numPCs))
		}
	}
	slot(0)
	slot(1)
	slot(0)
	fmt.Fprintf(w, "00400000-%08x r-xp 00000000 08:01 1234       /usr/bin/bench-server\n", 0x400000+16*numPCs+4096)
	fmt.Fprintf(w, "7f0000000000-7f0000100000 r-xp 00010000 08:01 99         /usr/lib/x86_64-linux-gnu/libc.so.6\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
