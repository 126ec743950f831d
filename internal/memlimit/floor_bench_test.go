package memlimit_test

import (
	"bytes"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/memlimit"
	"github.com/pprofx/pprofx/internal/testutil/hostile"
)

// BenchmarkPastTheBound unpacks profile 0 of the crafted bundle of 1M
// functions and locations, as pprofx unpack --index 0 does: the bound of
// its blocks (20 MiB) is 144 MiB, and what is live while the profile is
// built from them comes near it. With the floor, the soft limit follows what is live, a quarter
// above it; without it, it stays at the bound and the collector runs
// each time the heap grows past it.
//
//	go test -run '^$' -bench PastTheBound -count 5 ./internal/memlimit
func BenchmarkPastTheBound(b *testing.B) {
	data, err := hostile.File("bundle-entries.ppxb", false)
	if err != nil {
		b.Fatal(err)
	}
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
				metrics.Read(s)
				before := s[0].Value.Uint64()
				b.StartTimer()
				r, err := bundle.Open(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					b.Fatal(err)
				}
				p, err := r.ProfileLast(0)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				runtime.KeepAlive(p)
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
