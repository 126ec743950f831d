package gperftools

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// The large benchmark file: 64-bit little-endian,
// 1,000,000 records of depth 32 over ~67k distinct PCs (272 MB). Records
// repeat 100,000 distinct stacks (10 records each on average), as a
// long-running process's profile does after hash-table evictions and flushes.
const (
	benchRecords = 1_000_000
	benchDepth   = 32
	benchStacks  = 100_000
	benchPCs     = 67_584
)

var (
	benchOnce sync.Once
	benchDir  string
	benchFile string
	benchErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// largeFile writes the benchmark file once per test binary run and returns its path.
func largeFile(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		if benchDir, benchErr = os.MkdirTemp("", "pprofx-gperftools-bench"); benchErr != nil {
			return
		}
		benchFile = filepath.Join(benchDir, "large.prof")
		benchErr = writeLarge(benchFile)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchFile
}

func writeLarge(path string) error {
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
	// Distinct stacks: 32 PCs each, drawn from benchPCs code addresses.
	// Stack i uses PC (i*32+j) mod benchPCs at depth j for coverage, mixed.
	stacks := make([]uint64, benchStacks*benchDepth)
	for i := range stacks {
		pc := uint64(i) % benchPCs
		if i%3 != 0 {
			pc = next() % benchPCs
		}
		stacks[i] = 0x400000 + 16*pc + 5
	}
	for _, v := range []uint64{0, 3, 0, 10000, 0} {
		slot(v)
	}
	for r := 0; r < benchRecords; r++ {
		s := int(next() % benchStacks)
		if r < benchStacks {
			s = r // every stack at least once
		}
		slot(1 + next()%3)
		slot(benchDepth)
		for _, pc := range stacks[s*benchDepth : (s+1)*benchDepth] {
			slot(pc)
		}
	}
	slot(0)
	slot(1)
	slot(0)
	fmt.Fprintf(w, "00400000-%08x r-xp 00000000 08:01 1234       /usr/bin/bench-server\n", 0x400000+16*benchPCs+4096)
	fmt.Fprintf(w, "7f0000000000-7f0000100000 r-xp 00010000 08:01 99         /usr/lib/x86_64-linux-gnu/libc.so.6\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// peak measures the process's peak resident memory (VmHWM) while fn runs:
// the heap is returned to the OS first and the peak is reset through
// /proc/self/clear_refs (Linux). It returns -1 when that is not possible.
func peak(fn func()) (peakMB, baseMB float64) {
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		fn()
		return -1, -1
	}
	base := procStatusKB("VmRSS")
	fn()
	return float64(procStatusKB("VmHWM")) / 1024, float64(base) / 1024
}

func procStatusKB(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return -1
}

// BenchmarkDecodeLarge runs pprofx's Decode and google/pprof's ParseData
// side by side on the 272 MB file. Each reports ns/op, B/op and
// peak-MB (peak RSS of the whole process during the op, after the heap
// was returned to the OS) and base-MB (RSS before it). Skipped with -short.
func BenchmarkDecodeLarge(b *testing.B) {
	if testing.Short() {
		b.Skip("272 MB file; skipped with -short")
	}
	path := largeFile(b)
	b.Run("pprofx", func(b *testing.B) {
		b.ReportAllocs()
		var pk, base float64
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			pk, base = peak(func() {
				c0 := cpuTime()
				b.StartTimer()
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				p, info, err := Decode(f, Options{})
				f.Close()
				b.StopTimer()
				cpu += cpuTime() - c0
				if err != nil {
					b.Fatal(err)
				}
				if info.Records != benchRecords || len(p.Samples) != benchStacks {
					b.Fatalf("%d records, %d samples", info.Records, len(p.Samples))
				}
			})
		}
		b.ReportMetric(pk, "peak-MB")
		b.ReportMetric(base, "base-MB")
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	})
	b.Run("pprof-ParseData", func(b *testing.B) {
		b.ReportAllocs()
		var pk, base float64
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			pk, base = peak(func() {
				data, err := os.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				c0 := cpuTime()
				b.StartTimer()
				p, err := profile.ParseData(data)
				b.StopTimer()
				cpu += cpuTime() - c0
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Sample) != benchRecords {
					b.Fatalf("%d samples", len(p.Sample))
				}
			})
		}
		b.ReportMetric(pk, "peak-MB")
		b.ReportMetric(base, "base-MB")
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	})
}

// BenchmarkDecodeFixture decodes the real x86_64 fixture, for quick runs.
func BenchmarkDecodeFixture(b *testing.B) {
	data := readFixture(b, "le64-1000hz-4t.prof")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, _, err := Decode(bytes.NewReader(data), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
