package otlp

import (
	"io"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// The writer's own arrays for a table of many entries are let go as soon
// as its step is done, and a location's attribute indices take 4 bytes
// when it has none: writing a profile of 200k locations, each of one line
// and its own function, holds at most 130 bytes an entry at once beside
// the profile, its output (about 30 bytes an entry) included. Holding
// each step's arrays to the end and a 24-byte slice per location took
// 160.
func TestEncodeTableMemory(t *testing.T) {
	const n = 200_000
	b := synth.Locations(n)
	frames := make([]int32, n)
	for i := range frames {
		frames[i] = int32(i)
	}
	b.P.Samples = []model.Sample{{Stack: b.Stack(frames), Values: []int64{1}, Link: model.NoLink}}
	var err error
	peak := memcheck.Peak(func() { err = Encode(io.Discard, []*model.Profile{b.P}, EncodeOptions{}) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d entries: %d bytes an entry at most", n, peak/n)
	if peak > 130*n {
		t.Errorf("writing held %d bytes an entry at once, want 130 or less", peak/n)
	}
}
