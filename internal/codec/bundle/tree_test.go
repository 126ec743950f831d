package bundle

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// Random stacks over few locations, in several profiles: stacks that
// extend an earlier stack's leaf (its node then gains a child long after
// it was added), that branch off one another, that repeat, and the empty
// stack. Every profile reads back as it was added, and the tree holds one
// node for each distinct stack prefix.
func TestPrefixTreeRandom(t *testing.T) {
	for seed := int64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		nloc := 1 + rng.Intn(4)
		var ps []*model.Profile
		prefixes := map[string]bool{}
		for range 1 + rng.Intn(3) {
			b := synth.Locations(nloc)
			var stacks [][]int32 // root first
			for range rng.Intn(30) {
				var s []int32
				if len(stacks) > 0 && rng.Intn(2) == 0 {
					s = slices.Clone(stacks[rng.Intn(len(stacks))])
					s = s[:rng.Intn(len(s)+1)]
				}
				for range rng.Intn(8) {
					s = append(s, int32(rng.Intn(nloc)))
				}
				stacks = append(stacks, s)
				for i := 1; i <= len(s); i++ {
					prefixes[fmt.Sprint(s[:i])] = true
				}
				leaf := slices.Clone(s)
				slices.Reverse(leaf)
				b.P.Samples = append(b.P.Samples, model.NewSample(b.Stack(leaf), []int64{int64(1 + rng.Intn(5))}))
			}
			ps = append(ps, b.P)
		}
		data, err := bundleOf(ps...)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		r, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for i, p := range ps {
			q, err := r.Profile(i)
			if err != nil {
				t.Fatalf("seed %d: profile %d: %v", seed, i, err)
			}
			if d := diffProfiles(p, q); d != "" {
				t.Fatalf("seed %d: profile %d: %s", seed, i, d)
			}
		}
		tb, err := r.tables()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := tb.nodes.len()-1, len(prefixes); got != want {
			t.Fatalf("seed %d: %d stack nodes, want one per distinct prefix, %d", seed, got, want)
		}
	}
}

// The tree's own bookkeeping: a node added right after its parent is
// implicit, any other is indexed, and each is found again.
func TestPrefixTreeImplicit(t *testing.T) {
	tr := newPrefixTree()
	a := tr.child(0, 7)  // 1, implicit child of 0
	b := tr.child(a, 8)  // 2, implicit child of 1
	c := tr.child(a, 9)  // 3, a second child of 1: indexed
	d := tr.child(b, 8)  // 4, child of 2 added after 3: indexed
	e := tr.child(d, 10) // 5, implicit child of 4
	if got := []uint32{a, b, c, d, e}; !slices.Equal(got, []uint32{1, 2, 3, 4, 5}) {
		t.Fatalf("nodes %v, want 1..5", got)
	}
	for _, n := range []uint32{1, 2, 5} {
		if tr.explicit.has(n) {
			t.Errorf("node %d is marked explicit", n)
		}
	}
	for _, n := range []uint32{0, 3, 4} {
		if !tr.explicit.has(n) {
			t.Errorf("node %d is not marked explicit", n)
		}
	}
	if len(tr.index) != 2 {
		t.Errorf("index holds %d nodes, want 2", len(tr.index))
	}
	if tr.child(0, 7) != a || tr.child(a, 8) != b || tr.child(a, 9) != c || tr.child(b, 8) != d || tr.child(d, 10) != e || tr.len() != 6 {
		t.Fatal("a node added again was not found")
	}
	// Children by their locations' new indices: 9 before 8.
	locNew := make([]uint32, 11)
	locNew[7], locNew[8], locNew[9], locNew[10] = 3, 2, 1, 0
	o := tr.order(locNew)
	if got := o.children(a); !slices.Equal(got, []uint32{c, b}) {
		t.Errorf("children of node 1: %v, want [3 2]", got)
	}
	if got := o.children(b); !slices.Equal(got, []uint32{d}) {
		t.Errorf("children of node 2: %v, want [4]", got)
	}
	if got := o.children(e); len(got) != 0 {
		t.Errorf("children of leaf 5: %v", got)
	}
}
