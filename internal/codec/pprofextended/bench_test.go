package pprofextended

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

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
)

type benchInput struct {
	name string
	data []byte // gzipped pprof
}

func benchInputs(b testing.TB) []benchInput {
	var in []benchInput
	for _, name := range pprofFixtures(b) {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		in = append(in, benchInput{strings.TrimSuffix(filepath.Base(name), ".pb.gz"), data})
	}
	for _, g := range []struct {
		name string
		p    *gp.Profile
	}{
		{"synthetic-20k", synth.Pprof(20000, 3000, 8, 40, 4000)},
		{"deep-stacks", synth.Pprof(5000, 800, 100, 180, 1000)},
		// Every sample its own stack: sharing only where a whole stack is
		// the caller part of another.
		{"deep-unique", synth.Pprof(2000, 800, 100, 180, 2000)},
	} {
		var buf bytes.Buffer
		if err := g.p.Write(&buf); err != nil {
			b.Fatal(err)
		}
		in = append(in, benchInput{g.name, buf.Bytes()})
	}
	return in
}

func gzipSize(b testing.TB, data []byte) int {
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

// BenchmarkSize reports, per input, gzipped OTLP size over gzipped pprof
// size (both gzipped here with compress/gzip's default level; "asis" is
// over the file as written by its producer), and len(location_indices)
// over the sum of all sample stack lengths.
func BenchmarkSize(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			m, err := pprof.Decode(in.data)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			var out []byte
			for i := 0; i < b.N; i++ {
				var buf bytes.Buffer
				if err := Encode(&buf, singleton(m), EncodeOptions{}); err != nil {
					b.Fatal(err)
				}
				out = buf.Bytes()
			}
			raw := gunzip(b, in.data)
			oz, pz := gzipSize(b, out), gzipSize(b, raw)
			b.ReportMetric(float64(oz)/float64(pz), "otlp.gz/pprof.gz")
			b.ReportMetric(float64(oz)/float64(len(in.data)), "otlp.gz/pprof.gz-asis")
			b.ReportMetric(float64(len(out))/float64(len(raw)), "otlp/pprof-raw")
			e := newEncoder(EncodeOptions{})
			e.p = m
			e.layoutLocations()
			e.layoutStacks()
			frames := 0
			for _, s := range m.Samples {
				frames += len(m.Stacks.Append(nil, int(s.Stack)))
			}
			b.ReportMetric(float64(e.nli)/float64(max(frames, 1)), "locidx/frames")
		})
	}
}

// BenchmarkParseData is google/pprof's ParseData of the same (gzipped) file:
// the yardstick for the conversion below.
func BenchmarkParseData(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := gp.ParseData(in.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConvert is pprofx's whole pprof -> OTLP conversion of the same
// file: pprof.Decode then Encode (binary, not gzipped).
func BenchmarkConvert(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			var buf bytes.Buffer
			for i := 0; i < b.N; i++ {
				m, err := pprof.Decode(in.data)
				if err != nil {
					b.Fatal(err)
				}
				buf.Reset()
				if err := Encode(&buf, singleton(m), EncodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPprofDecode is the first half of BenchmarkConvert: pprofx's
// pprof reader, from the gzipped file to the model.
func BenchmarkPprofDecode(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := pprof.Decode(in.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncode is the OTLP writer alone, from a decoded model.
func BenchmarkEncode(b *testing.B) {
	for _, in := range benchInputs(b) {
		for _, json := range []bool{false, true} {
			b.Run(in.name+map[bool]string{false: "/binary", true: "/json"}[json], func(b *testing.B) {
				m, err := pprof.Decode(in.data)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				var buf bytes.Buffer
				for i := 0; i < b.N; i++ {
					buf.Reset()
					if err := Encode(&buf, []*model.Profile{m}, EncodeOptions{JSON: json}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDecode is the OTLP reader (binary) alone.
func BenchmarkDecode(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			m, err := pprof.Decode(in.data)
			if err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Encode(&buf, singleton(m), EncodeOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Decode(buf.Bytes(), DecodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
