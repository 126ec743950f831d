package pprof

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"os"
	"testing"

	"github.com/google/pprof/profile"
)

// generated builds a profile with n samples and n functions, as the
// foundation issue's benchmark asks: stacks of depth 8–40 over n
// locations, one function each, two sample types and a label on half the
// samples.
func generated(n int) []byte {
	r := rand.New(rand.NewSource(1))
	m := &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x400000 + uint64(n)*16, File: "/bin/gen", HasFunctions: true}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10000000,
		Mapping: []*profile.Mapping{m},
	}
	for i := 0; i < n; i++ {
		f := &profile.Function{ID: uint64(i + 1), Name: fmt.Sprintf("pkg%d.func%d", i%97, i), Filename: fmt.Sprintf("src/pkg%d/file%d.go", i%97, i%13), StartLine: int64(i % 500)}
		p.Function = append(p.Function, f)
		p.Location = append(p.Location, &profile.Location{ID: uint64(i + 1), Mapping: m, Address: 0x400000 + uint64(i)*16,
			Line: []profile.Line{{Function: f, Line: int64(i%500 + 3)}}})
	}
	for i := 0; i < n; i++ {
		depth := 8 + r.Intn(33)
		s := &profile.Sample{Value: []int64{int64(1 + r.Intn(5)), int64(r.Intn(1e9))}}
		for d := 0; d < depth; d++ {
			s.Location = append(s.Location, p.Location[r.Intn(n)])
		}
		if i%2 == 0 {
			s.Label = map[string][]string{"worker": {fmt.Sprint("w", i%16)}}
		}
		p.Sample = append(p.Sample, s)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func benchInputs(b *testing.B) map[string][]byte {
	largest, size := "", 0
	for _, f := range fixtures(b) {
		if st, err := os.Stat(f); err == nil && int(st.Size()) > size {
			largest, size = f, int(st.Size())
		}
	}
	data, err := os.ReadFile(largest)
	if err != nil {
		b.Fatal(err)
	}
	return map[string][]byte{"fixture=" + largest[len("../../../testdata/"):]: data, "generated=20k": generated(20000)}
}

// BenchmarkPprofRoundTrip measures decode+encode of pprofx against
// google/pprof's ParseData+Write on the same bytes.
func BenchmarkPprofRoundTrip(b *testing.B) {
	for name, data := range benchInputs(b) {
		b.Run(name+"/impl=pprofx", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				p, err := Decode(data)
				if err != nil {
					b.Fatal(err)
				}
				if err := Encode(io.Discard, p, EncodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/impl=google-pprof", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				p, err := profile.ParseData(data)
				if err != nil {
					b.Fatal(err)
				}
				if err := p.Write(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
