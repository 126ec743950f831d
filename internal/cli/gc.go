package cli

import (
	"os"
	"runtime"
	"runtime/debug"
)

// firstGCPercent is the GOGC of the first garbage collection cycle: its
// heap goal is 4 MiB x firstGCPercent/100 = 24 MiB, where Go's default
// (GOGC=100) starts collecting at 4 MiB. Most runs of pprofx on a small
// profile (symbolizing one, converting one) peak under that goal and never
// collect. A collection this early reclaims little, yet costs more than its
// marking: its sweep touches fresh pages of the runtime's span lists, some
// 150 page faults, which on a virtual machine cost 15-20 µs each. From the
// first collection on, GOGC is 100 again, so a large input is held to the
// memory bound as before (64 MiB + 4 x the decompressed input leaves room
// for 24 MiB more at the start).
const firstGCPercent = 600

// startGC sets the first cycle's GOGC, unless the user set GOGC.
func startGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	prev := debug.SetGCPercent(firstGCPercent)
	// The sentinel is unreachable at once: the first collection frees it
	// and its cleanup puts GOGC back.
	s := &gcSentinel{}
	runtime.AddCleanup(s, func(prev int) { debug.SetGCPercent(prev) }, prev)
}

// gcSentinel has a pointer, so that it is not a tiny allocation (tiny
// allocations share blocks, and their cleanups may run late or never).
type gcSentinel struct {
	_ *byte
	_ [16]byte
}
