package callstacks

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestInvertAndSortByRemap(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 300; n++ {
		p := make([]int32, n)
		for i, v := range rnd.Perm(n) {
			p[i] = int32(v)
		}
		orig := slices.Clone(p)
		invert(p)
		for i, v := range orig {
			if p[v] != int32(i) {
				t.Fatalf("n=%d: inverse of %v is %v", n, orig, p)
			}
		}
		names := make([]int32, n)
		for i := range names {
			names[i] = int32(i)
		}
		sortByRemap(names, p) // name i goes to p[i] = the place of i in orig
		for k, old := range orig {
			if names[k] != old {
				t.Fatalf("n=%d: names %v, want the order %v", n, names, orig)
			}
		}
	}
}
