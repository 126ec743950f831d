package callstacks

import (
	"math/rand/v2"
	"slices"
	"strconv"
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
		names := make([]string, n)
		for i := range names {
			names[i] = strconv.Itoa(i)
		}
		sortByRemap(names, p) // name i goes to p[i] = the place of i in orig
		for k, old := range orig {
			if names[k] != strconv.Itoa(int(old)) {
				t.Fatalf("n=%d: names %v, want the order %v", n, names, orig)
			}
		}
	}
}
