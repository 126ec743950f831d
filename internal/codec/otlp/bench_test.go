package otlp

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gp "github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/model"

	"github.com/pprofx/pprofx/internal/codec/pprof"
)

// syntheticPprof builds a deterministic pprof profile with n samples (n <=
// 5*paths, each a distinct stack and label) over
// nfuncs functions, stacks of depth minDepth..maxDepth drawn from a set of
// call paths that share callers (as real profiles do), and a few labels.
func syntheticPprof(n, nfuncs, minDepth, maxDepth, paths int) *gp.Profile {
	r := rand.New(rand.NewSource(1))
	m := &gp.Mapping{ID: 1, Start: 0x400000, Limit: 0x4000000, File: "/usr/bin/app", BuildID: "0123456789abcdef", HasFunctions: true, HasFilenames: true, HasLineNumbers: true}
	p := &gp.Profile{
		SampleType: []*gp.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &gp.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10000000,
		TimeNanos: 1763700000000000000, DurationNanos: 60e9, Mapping: []*gp.Mapping{m},
	}
	for i := 0; i < nfuncs; i++ {
		pkg := fmt.Sprintf("github.com/example/svc/pkg%d", i%37)
		p.Function = append(p.Function, &gp.Function{ID: uint64(i + 1), Name: fmt.Sprintf("%s.Func%d", pkg, i),
			SystemName: fmt.Sprintf("%s.Func%d", pkg, i), Filename: fmt.Sprintf("/src/%s/file%d.go", pkg, i%11), StartLine: int64(10 + i%400)})
	}
	locs := map[[2]int]*gp.Location{}
	location := func(f, line int) *gp.Location {
		k := [2]int{f, line}
		if l, ok := locs[k]; ok {
			return l
		}
		l := &gp.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: uint64(0x400000 + 64*len(p.Location)),
			Line: []gp.Line{{Function: p.Function[f], Line: int64(line)}}}
		locs[k] = l
		p.Location = append(p.Location, l)
		return l
	}
	// Call paths: each extends a random earlier one (shared callers).
	var all [][]*gp.Location
	for i := 0; i < paths; i++ {
		var path []*gp.Location
		if i > 0 && r.Intn(4) != 0 {
			base := all[r.Intn(len(all))]
			path = append(path, base[:r.Intn(len(base))+1]...)
		}
		depth := minDepth + r.Intn(maxDepth-minDepth+1)
		for len(path) < depth {
			path = append(path, location(r.Intn(nfuncs), 1+r.Intn(30)))
		}
		all = append(all, path[:depth])
	}
	// Each sample is a distinct (stack, label) pair, as in a pprof file
	// written by a profiler that aggregates.
	workers := []string{"ingest", "query", "compact", "gc", "flush"}
	for i := 0; i < n; i++ {
		path := all[i%len(all)]
		worker := workers[(i/len(all))%len(workers)]
		stack := make([]*gp.Location, len(path))
		for j := range path { // leaf first
			stack[j] = path[len(path)-1-j]
		}
		v := int64(1 + r.Intn(3))
		p.Sample = append(p.Sample, &gp.Sample{Location: stack, Value: []int64{v, v * 10000000},
			Label: map[string][]string{"worker": {worker}}})
	}
	return p
}

type benchInput struct {
	name string
	gen  func() []byte // the gzipped pprof file
	data []byte
}

// load makes the input's file (generated ones only when a benchmark of them
// runs: under callgrind, generating them costs minutes).
func (in *benchInput) load() []byte {
	if in.data == nil {
		in.data = in.gen()
	}
	return in.data
}

// benchInputs are the real pprof fixtures and two generated profiles.
func benchInputs(b *testing.B) []*benchInput {
	var in []*benchInput
	for _, name := range pprofFixtures(b) {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		in = append(in, &benchInput{name: strings.TrimSuffix(filepath.Base(name), ".pb.gz"), data: data})
	}
	for _, g := range []struct {
		name string
		p    func() *gp.Profile
	}{
		{"synthetic-20k", func() *gp.Profile { return syntheticPprof(20000, 3000, 8, 40, 4000) }},
		{"deep-stacks", func() *gp.Profile { return syntheticPprof(5000, 800, 100, 180, 1000) }},
	} {
		in = append(in, &benchInput{name: g.name, gen: func() []byte {
			var buf bytes.Buffer
			if err := g.p().Write(&buf); err != nil {
				b.Fatal(err)
			}
			return buf.Bytes()
		}})
	}
	return in
}

func gzipSize(data []byte) int {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	return buf.Len()
}

func gunzip(b testing.TB, data []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// BenchmarkSize reports, per input, gzipped v1development size over
// gzipped pprof size: both gzipped here with compress/gzip's default level
// ("otlp.gz/pprof.gz"), and as the files are ("-asis": pprofx's .otlp.gz
// over the input file).
func BenchmarkSize(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			data := in.load()
			m, err := pprof.Decode(data)
			if err != nil {
				b.Fatal(err)
			}
			var out []byte
			for i := 0; i < b.N; i++ {
				var buf bytes.Buffer
				if err := Encode(&buf, []*model.Profile{m}, EncodeOptions{}); err != nil {
					b.Fatal(err)
				}
				out = buf.Bytes()
			}
			raw := gunzip(b, data)
			oz, pz := gzipSize(out), gzipSize(raw)
			b.ReportMetric(float64(oz)/float64(pz), "otlp.gz/pprof.gz")
			// As the files are: pprofx's .otlp.gz against the pprof file as
			// its producer gzipped it (Go's runtime uses gzip.BestSpeed).
			var gz bytes.Buffer
			if err := Encode(&gz, []*model.Profile{m}, EncodeOptions{Gzip: true}); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(gz.Len())/float64(len(data)), "otlp.gz/pprof.gz-asis")
			b.ReportMetric(float64(oz), "otlp.gz-bytes")
			b.ReportMetric(float64(pz), "pprof.gz-bytes")
		})
	}
}

// BenchmarkParseData is google/pprof's ParseData of the (gzipped) pprof
// file: the yardstick for both conversions below.
func BenchmarkParseData(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			data := in.load()
			b.ReportAllocs()
			b.ResetTimer()
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := gp.ParseData(data); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkConvert is pprof -> v1development: pprof.Decode of the gzipped
// file then Encode (binary, not gzipped, as a collector is sent it).
func BenchmarkConvert(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			data := in.load()
			b.ReportAllocs()
			var buf bytes.Buffer
			b.ResetTimer()
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				m, err := pprof.Decode(data)
				if err != nil {
					b.Fatal(err)
				}
				buf.Reset()
				if err := Encode(&buf, []*model.Profile{m}, EncodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkBack is v1development -> pprof: Decode of the (uncompressed)
// binary message then pprof.Encode, raw (a gzipped output would add
// compression, which ParseData does not pay for).
func BenchmarkBack(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			data := in.load()
			m, err := pprof.Decode(data)
			if err != nil {
				b.Fatal(err)
			}
			var src bytes.Buffer
			if err := Encode(&src, []*model.Profile{m}, EncodeOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var buf bytes.Buffer
			b.ResetTimer()
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				ps, err := Decode(src.Bytes(), DecodeOptions{})
				if err != nil {
					b.Fatal(err)
				}
				buf.Reset()
				if err := pprof.Encode(&buf, ps[0], pprof.EncodeOptions{Raw: true}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}
