package callstacks

import (
	"bytes"
	"cmp"
	"runtime"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// Aggregating holds each frame of the named stacks once: their room is
// made at once, stacks are found by a hash of their names (no key holds
// them again), and the set lists them sorted without a sorted copy. On
// many distinct stacks over many locations it allocates 1.65 times the
// frames' 4 bytes each, the namer's spans of every location's names
// included (2.2 while a location of one name took a span of 8 bytes and
// an entry of all names, 3.5 while the namer grew its names by append,
// 5.2 with a slice of names for each location and a map of the names);
// grown by append, keyed by strings and copied in sorted order, it took
// 11.5.
func TestAggregateHoldsFramesOnce(t *testing.T) {
	var buf bytes.Buffer
	if err := synth.Shapes()[2].P.Write(&buf); err != nil {
		t.Fatal(err)
	}
	p, err := pprof.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	frames := p.Stacks.NumFrames()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	set := Aggregate(p, []int{0}, Options{})
	runtime.ReadMemStats(&after)
	got := float64(after.TotalAlloc-before.TotalAlloc) / float64(4*frames)
	t.Logf("%d stacks, %d frames: %.2f times the frames' bytes", set.Len(), frames, got)
	if got > 2 {
		t.Errorf("aggregating %d frames allocated %.2f times their 4 bytes each, want 2 at most", frames, got)
	}
}

// The namer makes its room for the names of a million functions at
// once: each location's name is one entry of the names' references (4
// bytes) and of their index (8), beside its span (4, the name itself
// when it is the location's only one) and a mark that a stack reaches it
// (1). Grown by append, the names and their index were copied again and
// again, 5.7 times the profile's functions' 24 bytes each in all; made at
// once, and the names strings (16 bytes), 2.2; references, 1.7; with a
// span of 8 bytes and every name in an array of them, 1.4.
func TestNamerRoomMadeOnce(t *testing.T) {
	const n = 1 << 20
	p := synth.OwnLocations(n, 1<<10)
	alloc := memcheck.Of(func() { Aggregate(p, []int{0}, Options{}) })
	got := float64(alloc) / float64(24*n)
	t.Logf("%d functions at their own locations: %.2f times the functions' 24 bytes each", n, got)
	if got > 1.5 {
		t.Errorf("aggregating the stacks of %d functions allocated %.2f times their 24 bytes each, want 1.5 at most", n, got)
	}
}

// A name that is a function's name is a reference to the model's string
// (4 bytes), not a string header (16), while the stacks are aggregated
// and in the set made of them. The set of the stacks of a million
// functions, each at its own location, keeps at most 10 bytes a function
// (its names' references and its stacks' frames, 4 bytes each), with a
// renaming and a function namer as the folded writer has (which name
// every function by one of its own strings); 20 while the names were
// strings.
func TestNamesHeldAsReferences(t *testing.T) {
	const n = 1 << 20
	p := synth.OwnLocations(n, 1<<10)
	opts := Options{
		Rename:   func(s string) string { return strings.ReplaceAll(s, ";", ":") },
		FuncName: func(name, system string) string { return cmp.Or(name, system) },
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	set := Aggregate(p, []int{0}, opts)
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(set)
	runtime.KeepAlive(p)
	t.Logf("%d functions at their own locations: the set keeps %.1f bytes a function", n, float64(kept)/n)
	if kept > 10*n {
		t.Errorf("the set of the stacks of %d functions keeps %.1f bytes a function, want 10 at most", n, float64(kept)/n)
	}
}
