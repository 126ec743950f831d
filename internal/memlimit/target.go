package memlimit

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The target is the bound of the inputs a run has read so far (Bound of
// their sizes added): what the run is meant to hold at most. Kept to it as
// the Go runtime's soft memory limit, the garbage collector works harder
// as the heap nears the bound, instead of letting it reach twice what is
// live (its default pacing): that alone took a run whose live data fits
// the bound to twice it.
//
// A run whose live data outgrows the target (a merge of deep stacks, whose
// prefix tree takes more than 4 bytes a byte of input) would then have
// the collector run without pause, up to the half of the CPU the runtime
// lets it take. So after each collection that finds more live than the
// target holds, the limit is kept a quarter above what was live (the
// floor): past the target, the heap grows by a quarter of what is live
// between collections, not by all of it. Live data that fits the target
// does not raise it: a quarter above 90 % of the target would let a run
// that fits its bound pass it.
var target struct {
	sync.Mutex
	on      bool  // Track was called
	bytes   int64 // the target; 0 until an input is reserved
	floor   int64 // what was live at the last two collections, and a quarter
	live    int64 // what was live at the last collection
	set     int64 // the soft limit this file last set (0: none)
	pages   int64 // the program pages taken off it then
	ceiling int64 // the soft limit in force before it first did
	noFloor bool  // the floor is off (BenchmarkPastTheBound compares)
}

// Track makes Reserve keep the Go runtime's soft memory limit
// to the target, for the rest of the process: the command line calls it
// once. Without it (tests, a library user), they do nothing. GOMEMLIMIT,
// the user's own soft limit, turns it off.
func Track() {
	target.Lock()
	defer target.Unlock()
	if target.on || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	target.on = true
	watchGC()
}

// gcSentinel is an object the collector finds unreachable at each cycle:
// its finalizer runs once a cycle ends (a pointer and 24 bytes, so that it
// is not one of the tiny objects the allocator packs together).
type gcSentinel struct {
	_ *int
	_ [24]byte
}

// watchGC calls afterGC after the next collection, and so on.
func watchGC() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		afterGC()
		watchGC()
	})
}

// afterGC raises the floor to what the last two collections left live
// (the smaller), and a quarter. What a collection counts as live includes
// what was allocated while it marked: a large buffer allocated then, and
// dropped at once, counts in full. A run whose live data truly outgrew
// the target shows it at two collections in a row, which come quickly
// when the heap is held at the target; one inflated count, taken alone,
// would raise the limit for the rest of the run.
func afterGC() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	sawLive(int64(s[0].Value.Uint64()))
}

// sawLive raises the floor, as afterGC says, after a collection that
// left live bytes live, and takes off the soft limit the program's pages
// that became resident since it was set.
func sawLive(live int64) {
	target.Lock()
	defer target.Unlock()
	last := target.live
	target.live = live
	if target.set == 0 {
		return
	}
	if programPages() > target.pages {
		// More of the program was run since: its pages count too.
		applyLocked()
	}
	if target.noFloor {
		return
	}
	live = min(live, last)
	f := live + live/4 + floorSlack
	if heap := heapGoalLocked(); live+floorSlack <= heap {
		// Live data that fits the target keeps the limit there: the
		// collector runs more often as it nears it, and the run stays
		// within its bound.
		f = min(f, heap)
	}
	if f > target.floor {
		target.floor = f
		applyLocked()
	}
}

// programPages is what the process holds resident that the Go runtime
// does not count: the pages of the program mapped from its file (RssFile;
// about 11 MiB once a command has run, 0 where it is not known).
var programPages = func() int64 { return procStatus("RssFile:") }

// floorSlack is what the runtime holds besides the heap's objects
// (stacks, its own structures), counted by the soft limit.
const floorSlack = 16 << 20

// allocSlack is kept below the target by the soft limit: what a run
// allocates past the limit before the collector, which runs beside it,
// catches up. Without it, runs whose live data fits the bound passed it
// by up to 6 MiB in one run of four (the 1M-entry bundle's `unpack`,
// `convert` to pprof, OTLP and speedscope: 147 to 150 MiB against 144);
// with it, by 1 at most, in the same time.
const allocSlack = 4 << 20

// Reserve counts an input of n decompressed bytes, about to be decoded,
// into the target: Fixed for the first, PerByte × n for each.
func Reserve(n int64) {
	target.Lock()
	defer target.Unlock()
	if !target.on || n < 0 {
		return
	}
	t := target.bytes
	if t == 0 {
		t = Fixed
	}
	if n > (math.MaxInt64-t)/PerByte {
		t = math.MaxInt64
	} else {
		t += PerByte * n
	}
	raiseLocked(t)
}

// raiseLocked raises the target to t and sets the soft limit.
func raiseLocked(t int64) {
	if t <= target.bytes {
		return
	}
	target.bytes = t
	applyLocked()
}

// heapGoalLocked is what the soft limit keeps the runtime's memory to for
// the target: the target less the program's pages and allocSlack (none
// for a target too large to count).
func heapGoalLocked() int64 {
	if target.bytes == math.MaxInt64 {
		return math.MaxInt64
	}
	return target.bytes - target.pages - allocSlack
}

// applyLocked sets the soft limit to the target, or the floor when it is
// higher, never above the limit in force before (Apply's, under a memory
// limit) nor over one lowered since by another (a gperftools stream's).
// The target bounds the whole process; the soft limit counts the memory
// of the Go runtime only, so the program's own pages, resident from its
// file (programPages), are taken off it.
func applyLocked() {
	cur := debug.SetMemoryLimit(-1)
	switch {
	case target.set == 0:
		target.ceiling = cur
	case cur != target.set:
		target.ceiling = min(target.ceiling, cur)
	}
	target.pages = programPages()
	want := min(max(heapGoalLocked(), target.floor), target.ceiling)
	if want != cur {
		debug.SetMemoryLimit(want)
	}
	target.set = want
}
