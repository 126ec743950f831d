// Package memcheck measures what a piece of code allocates, for the tests
// and fuzz targets that bound a decoder's memory by its input.
//
// The counters it reads are the process's: while fuzzing, the engine's own
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

// Allocated is the bytes the process has allocated so far, exactly.
//
// runtime/metrics' /gc/heap/allocs:bytes is not: the runtime counts a
// small object when the span cached for its size class is handed back,
// at a refill or a collection, so a collection while f runs counts what
// every P allocated before it began (over a megabyte with many Ps), and
// what f leaves in cached spans is not counted at all.
// runtime.ReadMemStats hands every cached span back first; it stops the
// world for that, some microseconds a call.
func Allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// Of returns the bytes f allocated while it ran (and whatever else the
// process allocated meanwhile).
func Of(f func()) uint64 {
	before := Allocated()
	f()
	return Allocated() - before
}

// Over runs f and reports whether it allocated more than bound. The
// first run is counted by the runtime's cheap, lazy counter, which keeps
// fuzzing fast; a run it finds over the bound is measured again, exactly,
// up to twice (f must be repeatable: it decodes the same bytes again), and
// the smallest exact figure is returned, so that neither the counter's
// lag nor allocations of other goroutines during one run are blamed on f.
func Over(bound uint64, f func()) (uint64, bool) {
	before := lazyAllocated()
	f()
	if alloc := lazyAllocated() - before; alloc <= bound {
		return alloc, false
	}
	least := ^uint64(0)
	for range 2 {
		alloc := Of(f)
		if alloc <= bound {
			return alloc, false
		}
		least = min(least, alloc)
	}
	return least, true
}

// lazyAllocated is the runtime's /gc/heap/allocs:bytes, read without
// stopping the world; see Allocated for what it misses.
func lazyAllocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
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
