package bundle

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// A chain of 5,000 stack nodes, with a sample ending at every one, is 10
// KB of bundle and 12.5M frames in the profile: the frames of its
// distinct stacks count against what the section may expand to, so the
// limit a fuzzer gives a 10 KB file (1.6 MiB) refuses it, and the default
// reads it.
func TestDeepChainCounted(t *testing.T) {
	const n = 5000
	b := synth.Locations(n)
	p := b.P
	fr := make([]int32, 0, n)
	for i := range n {
		fr = append([]int32{int32(i)}, fr...)
		p.Samples = append(p.Samples, model.NewSample(b.Stack(fr), []int64{1}))
	}
	data, err := bundleOf(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit  int64
		refuse bool
	}{{fuzzLimit(len(data)), true}, {DefaultLimit, false}} {
		r, err := OpenLimit(bytes.NewReader(data), int64(len(data)), c.limit)
		if err != nil {
			t.Fatal(err)
		}
		q, err := r.Profile(0)
		if c.refuse {
			if err == nil || !strings.Contains(err.Error(), "stack frames") || !strings.Contains(err.Error(), "--max-input-size") {
				t.Errorf("%d-byte bundle, limit %d: %v, want a refusal", len(data), c.limit, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("limit %d: %v", c.limit, err)
		}
		if got := q.Stacks.NumFrames(); got != n*(n+1)/2 {
			t.Errorf("%d frames, want %d", got, n*(n+1)/2)
		}
	}
}
