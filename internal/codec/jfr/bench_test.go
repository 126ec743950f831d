package jfr

import (
	"sort"
	"testing"

	jfrpprof "github.com/grafana/jfr-parser/pprof"
)

// BenchmarkDecode reads each recording into the model, and, for the
// same bytes in the same run, jfr-parser's own conversion to pprof
// (github.com/grafana/jfr-parser/pprof, which drops thread labels, frame
// types, timestamps and the sampling period): pprofx should be at most as
// slow. The figures: go test -run '^$' -bench . -benchmem ./internal/codec/jfr
func BenchmarkDecode(b *testing.B) {
	files := fixtures(b)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		data := files[name]
		b.Run("pprofx/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, _, err := DecodeBytes(data, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("jfr-parser/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := jfrpprof.ParseJFR(data, &jfrpprof.ParseInput{SampleRate: 100}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
