package otlp

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/testutil/synth"

	gp "github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/model"

	"github.com/pprofx/pprofx/internal/codec/pprof"
)

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
		{"synthetic-20k", func() *gp.Profile { return synth.Pprof(20000, 3000, 8, 40, 4000) }},
		{"deep-stacks", func() *gp.Profile { return synth.Pprof(5000, 800, 100, 180, 1000) }},
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
