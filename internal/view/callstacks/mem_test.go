package callstacks

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// Aggregating holds each frame of the named stacks once: their room is
// made at once, stacks are found by a hash of their names (no key holds
// them again), and the set lists them sorted without a sorted copy. On
// many distinct stacks over many locations it allocates 3.5 times the
// frames' 4 bytes each, the namer's spans of every location's names
// included (5.2 with a slice of names for each location and a map of the
// names); grown by append, keyed by strings and copied in sorted order,
// it took 11.5.
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
	if got > 5 {
		t.Errorf("aggregating %d frames allocated %.2f times their 4 bytes each, want 5 at most", frames, got)
	}
}
