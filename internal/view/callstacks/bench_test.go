package callstacks

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// BenchmarkAggregate names and sums the stacks of the Go CPU fixture,
// the generated shapes writers size their output for, and a profile of
// 200k distinct functions, 1000 to a stack (the 1M-entry bundle's shape,
// smaller), as the folded, speedscope and HTML writers do.
//
//	go test -run '^$' -bench Aggregate ./internal/view/callstacks
func BenchmarkAggregate(b *testing.B) {
	type input struct {
		name string
		p    *model.Profile
	}
	var in []input
	if data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "go", "cpu.pb.gz")); err == nil {
		p, err := pprof.Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		in = append(in, input{"go-cpu", p})
	}
	for _, s := range synth.Shapes() {
		var buf bytes.Buffer
		if err := s.P.Write(&buf); err != nil {
			b.Fatal(err)
		}
		p, err := pprof.Decode(buf.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		in = append(in, input{s.Name, p})
	}
	in = append(in, input{"200k-functions", synth.OwnLocations(200000, 1000)})
	for _, x := range in {
		b.Run(x.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Aggregate(x.p, []int{0}, Options{Rename: func(s string) string { return s }})
			}
		})
	}
}
