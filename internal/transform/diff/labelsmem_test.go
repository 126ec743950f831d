package diff

import (
	"runtime"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// What the check before a comparison counts (mergeMem) covers what the
// comparison holds beside its inputs when every sample has a label set of
// its own, as a perf script's samples have (5 labels, their time among
// them). A label set is held as pprof's key of it: with its inputs let go
// as they are merged, as the command line lets them go, the comparison
// holds 2.2 times what one input takes (7.5 times while each set was held
// as pprof's library groups labels, and indexed by a copy of its key).
func TestMergeMemCountsLabelSets(t *testing.T) {
	mk := func(n int) *model.Profile {
		b := synth.Locations(10)
		for k := range n {
			ls := b.LabelSet([]model.Label{{Key: b.String("pid"), Num: 1}, {Key: b.String("tid"), Num: 1}, {Key: b.String("comm"), Str: b.String("a")},
				{Key: b.String("time"), Num: int64(k)}, {Key: b.String("cpu"), Num: 1, NumUnit: b.String("cpu")}})
			s := model.NewSample(b.Stack([]int32{1}), []int64{1})
			s.LabelSet = ls
			b.P.Samples = append(b.P.Samples, s)
		}
		return b.P
	}
	for _, held := range []bool{true, false} {
		base, newp := mk(100_000), mk(100_000)
		count, one := mergeMem(base, newp), base.MemSize()
		var peak uint64
		if held {
			peak = memcheck.Peak(func() {
				if _, err := Diff(base, newp, Options{}, nil); err != nil {
					t.Fatal(err)
				}
			})
			runtime.KeepAlive(base)
			runtime.KeepAlive(newp)
		} else {
			in := []*model.Profile{base, newp}
			base, newp = nil, nil
			peak = memcheck.Peak(func() {
				a, b := in[0], in[1]
				in = nil
				if _, err := Diff(a, b, Options{}, nil); err != nil {
					t.Fatal(err)
				}
			})
		}
		t.Logf("inputs held %v: %.1f MiB held at most beside them, counted %.1f; an input takes %.1f", held, float64(peak)/(1<<20), float64(count)/(1<<20), float64(one)/(1<<20))
		if int64(peak) > count {
			t.Errorf("inputs held %v: comparing held %d bytes, more than the %d counted", held, peak, count)
		}
		if !held && int64(peak) > 3*one {
			t.Errorf("inputs let go: comparing held %d bytes, more than 3 times an input's %d", peak, one)
		}
	}
}
