package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// withTarget runs f with a fresh target and the soft memory limit given,
// and puts both back after.
func withTarget(t *testing.T, limit int64, f func()) {
	t.Helper()
	t.Setenv("GOMEMLIMIT", "")
	old := debug.SetMemoryLimit(limit)
	defer debug.SetMemoryLimit(old)
	target.Lock()
	on, bytes, floor, live, set, ceiling, pg := target.on, target.bytes, target.floor, target.live, target.set, target.ceiling, target.pages
	target.on, target.bytes, target.floor, target.live, target.set, target.ceiling, target.pages = false, 0, 0, 0, 0, 0, 0
	pages := programPages
	programPages = func() int64 { return 0 }
	target.Unlock()
	defer func() {
		target.Lock()
		target.on, target.bytes, target.floor, target.live, target.set, target.ceiling, target.pages = on, bytes, floor, live, set, ceiling, pg
		programPages = pages
		target.Unlock()
	}()
	f()
}

func TestTarget(t *testing.T) {
	const mib = 1 << 20
	soft := func() int64 { return debug.SetMemoryLimit(-1) }

	withTarget(t, math.MaxInt64, func() {
		Reserve(100 * mib)
		if got := soft(); got != math.MaxInt64 {
			t.Errorf("without Track: soft limit %d, want none", got)
		}
		Track()
		Reserve(100 * mib)
		if got, want := soft(), int64(Fixed+PerByte*100*mib-allocSlack); got != want {
			t.Errorf("one input of 100 MiB: soft limit %d, want %d", got, want)
		}
		Reserve(10 * mib)
		if got, want := soft(), int64(Fixed+PerByte*110*mib-allocSlack); got != want {
			t.Errorf("and one of 10 MiB: soft limit %d, want %d", got, want)
		}
		Reserve(math.MaxInt64 / 2)
		if got := soft(); got != math.MaxInt64 {
			t.Errorf("an input too large to count: soft limit %d, want none", got)
		}
	})

	// A lower limit in force before (Apply's) stays the ceiling.
	withTarget(t, 200*mib, func() {
		Track()
		Reserve(10 * mib)
		if got, want := soft(), int64(Fixed+PerByte*10*mib-allocSlack); got != want {
			t.Errorf("under a 200 MiB limit, 10 MiB: soft limit %d, want %d", got, want)
		}
		Reserve(100 * mib)
		if got := soft(); got != 200*mib {
			t.Errorf("under a 200 MiB limit, 110 MiB: soft limit %d, want the 200 MiB", got)
		}
	})

	// One lowered since by another (a gperftools stream) is kept too.
	withTarget(t, math.MaxInt64, func() {
		Track()
		Reserve(100 * mib)
		debug.SetMemoryLimit(96 * mib)
		Reserve(100 * mib)
		if got := soft(); got != 96*mib {
			t.Errorf("after another set 96 MiB: soft limit %d, want it kept", got)
		}
	})

	// Live data past the target moves the limit to a quarter above it.
	withTarget(t, math.MaxInt64, func() {
		Track()
		Reserve(1 * mib)
		live := make([]byte, 256*mib)
		for i := range live {
			live[i] = 1
		}
		want := int64(len(live)) + int64(len(live))/4
		deadline := time.Now().Add(10 * time.Second)
		for soft() < want && time.Now().Before(deadline) {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		if got := soft(); got < want || got > want+64*mib {
			t.Errorf("with 256 MiB live: soft limit %d, want %d to 64 MiB more", got, want)
		}
		runtime.KeepAlive(live)
	})

	// GOMEMLIMIT, the user's, turns it off.
	withTarget(t, math.MaxInt64, func() {
		t.Setenv("GOMEMLIMIT", "1GiB")
		Track()
		Reserve(100 * mib)
		if got := soft(); got != math.MaxInt64 {
			t.Errorf("with GOMEMLIMIT: soft limit %d, want it untouched", got)
		}
	})
}

// The target bounds the process; the soft limit, which counts the Go
// runtime's memory only, is the target less the program's resident pages
// (and allocSlack).
func TestTargetLessProgramPages(t *testing.T) {
	const mib = 1 << 20
	withTarget(t, math.MaxInt64, func() {
		programPages = func() int64 { return 11 * mib }
		Track()
		Reserve(100 * mib)
		if got, want := debug.SetMemoryLimit(-1), int64(Fixed+PerByte*100*mib-11*mib-allocSlack); got != want {
			t.Errorf("soft limit %d, want %d (the target less 11 MiB of program pages)", got, want)
		}
	})
}

// Program pages that become resident after the soft limit was set are
// taken off it at the next collection.
func TestTargetFollowsProgramPages(t *testing.T) {
	const mib = 1 << 20
	withTarget(t, math.MaxInt64, func() {
		pages := int64(9 * mib)
		programPages = func() int64 { return pages }
		target.Lock()
		target.on = true
		target.Unlock()
		Reserve(100 * mib)
		base := int64(Fixed + PerByte*100*mib - allocSlack)
		if got := debug.SetMemoryLimit(-1); got != base-9*mib {
			t.Fatalf("soft limit %d, want %d", got, base-9*mib)
		}
		// Two collections raise the floor to 10 MiB and a quarter (below
		// the target); a third that finds less live leaves it.
		sawLive(10 * mib)
		sawLive(10 * mib)
		pages = 12 * mib
		sawLive(1 * mib)
		if got := debug.SetMemoryLimit(-1); got != base-12*mib {
			t.Errorf("after the program's pages grew to 12 MiB: soft limit %d, want %d", got, base-12*mib)
		}
	})
}

// The floor follows the smaller of the last two collections' live bytes:
// one count far above the next does not raise the soft limit.
func TestFloorFromTwoCollections(t *testing.T) {
	const mib = 1 << 20
	withFloorTarget(t, func(soft func() int64, want int64) {
		if got := soft(); got != want {
			t.Fatalf("soft limit %d, want the target %d", got, want)
		}
		sawLive(900 * mib) // one count past the target
		if got := soft(); got != want {
			t.Errorf("after one count of 900 MiB: soft limit %d, want the target %d", got, want)
		}
		sawLive(300 * mib)
		sawLive(600 * mib)
		if got := soft(); got != want {
			t.Errorf("after 300 and 600 MiB: soft limit %d, want the target %d", got, want)
		}
		sawLive(800 * mib) // two in a row past it: 600 MiB and a quarter
		if got, want := soft(), int64(600*mib+150*mib+floorSlack); got != want {
			t.Errorf("after 600 and 800 MiB: soft limit %d, want %d", got, want)
		}
	})
}

// Live data that fits the target, with the runtime's own structures,
// does not raise the soft limit past the target, however near it is: a
// quarter above it would let a run that fits its bound pass it.
func TestFloorNotPastTargetForLiveThatFits(t *testing.T) {
	const mib = 1 << 20
	withFloorTarget(t, func(soft func() int64, want int64) {
		sawLive(440 * mib)
		sawLive(440 * mib) // 440 MiB and a quarter would be 566
		if got := soft(); got != want {
			t.Errorf("after two counts of 440 MiB: soft limit %d, want the target %d", got, want)
		}
		sawLive(460 * mib)
		if got := soft(); got != want {
			t.Errorf("after 440 and 460 MiB: soft limit %d, want the target %d", got, want)
		}
		sawLive(460 * mib) // twice 460 MiB, and the runtime's 16, do not fit 460
		if got, want := soft(), int64(460*mib+115*mib+floorSlack); got != want {
			t.Errorf("after 460 and 460 MiB: soft limit %d, want %d", got, want)
		}
	})
}

// withFloorTarget runs f with the target of one input of 100 MiB (64 +
// 400 MiB) tracked, want the soft limit it sets (460 MiB: less
// allocSlack), and soft reading the soft limit.
func withFloorTarget(t *testing.T, f func(soft func() int64, want int64)) {
	const mib = 1 << 20
	// No collection meanwhile: after an earlier test's Track, each would
	// count its own live bytes in (afterGC, run once its finalizer has).
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	withTarget(t, math.MaxInt64, func() {
		target.Lock()
		target.on = true
		target.Unlock()
		Reserve(100 * mib)
		f(func() int64 { return debug.SetMemoryLimit(-1) }, int64(Fixed+PerByte*100*mib-allocSlack))
	})
}
