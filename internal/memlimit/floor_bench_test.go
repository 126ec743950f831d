package memlimit_test

import (
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/memlimit"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// BenchmarkPastTheBound merges a stack of 10M frames with itself into a
// bundle, as pprofx merge does with the crafted 10M-id pprof file: the
// bound of its two inputs (9.5 MiB each) is 140 MiB, and the prefix tree
// alone takes more. With the floor, the soft limit follows what is live,
// a quarter above it; without it, it stays at the bound and the collector
// runs each time the heap grows past it.
//
//	go test -run '^$' -bench PastTheBound -count 5 ./internal/memlimit
func BenchmarkPastTheBound(b *testing.B) {
	const n = 10_000_000
	sb := synth.Locations(1)
	p := sb.P
	p.Samples = []model.Sample{{Stack: sb.Stack(make([]int32, n)), Values: []int64{1}, Link: model.NoLink}}
	b.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	memlimit.Track()
	for _, c := range []struct {
		name    string
		noFloor bool
	}{{"floor", false}, {"no-floor", true}} {
		b.Run(c.name, func(b *testing.B) {
			s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
			var cycles uint64
			for range b.N {
				b.StopTimer()
				memlimit.ResetTarget(c.noFloor)
				runtime.GC()
				memlimit.Reserve(n + 32)
				memlimit.Reserve(n + 32)
				metrics.Read(s)
				before := s[0].Value.Uint64()
				b.StartTimer()
				w := bundle.NewWriter(io.Discard, bundle.WriterOptions{})
				for range 2 {
					if err := w.Add(bundle.Entry{Name: "deep"}, p); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				metrics.Read(s)
				cycles += s[0].Value.Uint64() - before
				b.StartTimer()
			}
			b.ReportMetric(float64(cycles)/float64(b.N), "gc/op")
		})
	}
	memlimit.ResetTarget(false)
	debug.SetMemoryLimit(math.MaxInt64)
}
