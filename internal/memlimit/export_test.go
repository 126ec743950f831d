package memlimit

import (
	"math"
	"runtime/debug"
)

// ResetTarget forgets the target and sets no soft limit; noFloor turns the
// floor off (BenchmarkPastTheBound compares).
func ResetTarget(noFloor bool) {
	target.Lock()
	defer target.Unlock()
	target.bytes, target.floor, target.live, target.set, target.ceiling, target.pages, target.noFloor = 0, 0, 0, 0, 0, 0, noFloor
	debug.SetMemoryLimit(math.MaxInt64)
}
