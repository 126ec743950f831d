package jfr

import (
	"path"
	"sort"
	"testing"

	jfrpprof "github.com/grafana/jfr-parser/pprof"
)

// BenchmarkDecode reads each recording into the model, and, for the
// same bytes in the same run, jfr-parser's own conversion to pprof
// (github.com/grafana/jfr-parser/pprof, which drops thread labels, frame
// types, timestamps and the sampling period): pprofx should be at most as
// slow. The sub-benchmarks are named rec=RECORDING/impl=IMPLEMENTATION,
// jfr-parser first, so that benchstat puts the two side by side:
//
//	go test -run '^$' -bench Decode -benchmem -count 5 -benchtime 20x ./internal/codec/jfr > bench.txt
//	benchstat -col /impl bench.txt
func BenchmarkDecode(b *testing.B) {
	files := fixtures(b)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		data := files[name]
		rec := "rec=" + path.Base(name)
		b.Run(rec+"/impl=jfr-parser", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := jfrpprof.ParseJFR(data, &jfrpprof.ParseInput{SampleRate: 100}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(rec+"/impl=pprofx", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, _, err := DecodeBytes(data, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
