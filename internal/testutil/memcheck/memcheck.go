// Package memcheck measures what a piece of code allocates, for the tests
// and fuzz targets that bound a decoder's memory by its input.
//
// The counter it reads is the process's: while fuzzing, the engine's own
// goroutines allocate at the same time and are counted too. That noise
// only ever adds, and a decoder allocates the same on every run of the same
// input, so Over measures again before it reports a bound as broken and
// keeps the smallest figure.
package memcheck

import "runtime/metrics"

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
