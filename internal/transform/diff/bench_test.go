package diff_test

import (
	"bytes"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/fixture"
	"github.com/pprofx/pprofx/internal/testutil/synth"
	"github.com/pprofx/pprofx/internal/transform/diff"
)

// BenchmarkDiff compares two CPU profiles of the corpus (Go's
// runtime/pprof), a generated profile of 20,000 locations with itself,
// and 20,000 samples each with a label set of its own (a worker and a
// numeric label, as a perf script's time) with itself.
//
//	go test -run '^$' -bench Diff -count 8 ./internal/transform/diff
func BenchmarkDiff(b *testing.B) {
	read := func(name string) *model.Profile { return fixture.DecodePprof(b, name) }
	var buf bytes.Buffer
	if err := synth.Pprof(20000, 2000, 60, 120, 20000).WriteUncompressed(&buf); err != nil {
		b.Fatal(err)
	}
	wide, err := pprof.DecodeRaw(buf.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		base, new *model.Profile
	}{
		{"corpus-cpu", read("../../../testdata/corpus/cpu-00.pb.gz"), read("../../../testdata/corpus/cpu-01.pb.gz")},
		{"synth-20k", wide, wide},
		{"labeled-20k", synth.LabeledStacks(20_000, true), synth.LabeledStacks(20_000, true)},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := diff.Diff(c.base, c.new, diff.Options{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
