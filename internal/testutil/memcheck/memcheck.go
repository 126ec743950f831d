// Package memcheck measures what a piece of code allocates, for the tests
// and fuzz targets that bound a decoder's memory by its input.
//
// The counter it reads is the process's: while fuzzing, the engine's own
// goroutines allocate at the same time and are counted too. That noise
// only ever adds, and a decoder allocates the same on every run of the same
// input, so Over measures again before it reports a bound as broken and
// keeps the smallest figure.
package memcheck

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Allocated is the bytes the process has allocated so far. Unlike
// runtime.ReadMemStats it does not stop the world, which keeps fuzzing
// fast.
func Allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Of returns the bytes f allocated while it ran (and whatever else the
// process allocated meanwhile).
func Of(f func()) uint64 {
	before := Allocated()
	f()
	return Allocated() - before
}

// Over runs f and reports whether it allocated more than bound. A run over
// the bound is repeated up to twice (f must be repeatable: it decodes the
// same bytes again), and the smallest of the figures is returned, so that
// allocations of other goroutines during one run are not blamed on f.
func Over(bound uint64, f func()) (uint64, bool) {
	least := ^uint64(0)
	for range 3 {
		alloc := Of(f)
		if alloc <= bound {
			return alloc, false
		}
		least = min(least, alloc)
	}
	return least, true
}

// Peak runs f and returns the most heap memory its objects held at once
// beyond what the heap held before, as sampled every 200 µs while the
// garbage collector runs at GOGC=20 (so that garbage is collected soon
// and what is sampled is close to what is live). A short spike between
// two samples can be missed; the large buffers and tables of a decode
// live far longer than that.
func Peak(f func()) uint64 {
	runtime.GC()
	prev := debug.SetGCPercent(20)
	defer debug.SetGCPercent(prev)
	base := heapObjects()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			if h := heapObjects(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	if h := heapObjects(); h > peak.Load() {
		peak.Store(h)
	}
	close(done)
	wg.Wait()
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
