package pprofextended

import (
	"io"
	"runtime"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// A stack is laid out and written from the model's frames in place: one
// sample of 4M frames allocates about its output (a byte a frame), where
// a key and a location index per frame (12 bytes) and two copies of the
// stack (8 bytes) were allocated before.
func TestDeepStackWrittenInPlace(t *testing.T) {
	const frames = 4 << 20
	ps := []*model.Profile{synth.DeepStack(frames)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := Encode(io.Discard, ps, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4*frames {
		t.Errorf("writing one stack of %d frames allocated %d bytes (%.1f a frame), want 4 a frame at most", frames, got, float64(got)/frames)
	}
}
