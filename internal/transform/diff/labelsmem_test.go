package diff

import (
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// What the check before a comparison counts (mergeMem) covers what the
// comparison holds when every sample has a label set of its own, as a
// perf script's samples have (5 labels, their time among them).
func TestMergeMemCountsLabelSets(t *testing.T) {
	mk := func(n int) *model.Profile {
		b := synth.Locations(10)
		for k := range n {
			ls := b.LabelSet([]model.Label{{Key: b.String("pid"), Num: 1}, {Key: b.String("tid"), Num: 1}, {Key: b.String("comm"), Str: b.String("a")},
				{Key: b.String("time"), Num: int64(k)}, {Key: b.String("cpu"), Num: 1, NumUnit: b.String("cpu")}})
			b.P.Samples = append(b.P.Samples, model.Sample{Stack: b.Stack([]int32{1}), Values: []int64{1}, LabelSet: ls, Link: model.NoLink})
		}
		return b.P
	}
	base, newp := mk(100_000), mk(100_000)
	count := mergeMem(base, newp)
	peak := memcheck.Peak(func() {
		if _, err := Diff(base, newp, Options{}, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("held %.1f MiB at most, counted %.1f", float64(peak)/(1<<20), float64(count)/(1<<20))
	if int64(peak) > count {
		t.Errorf("comparing held %d bytes, more than the %d counted", peak, count)
	}
}
