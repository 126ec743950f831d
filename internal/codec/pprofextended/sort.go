package pprofextended

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/pprofx/pprofx/internal/model"
)

// seq is a stack to sort, i in the model's table, of n frames.
type seq struct {
	i, n int32
}

// seqs are stacks to sort by their written location indices (lmap of
// their frames), root first, read in place: a stack may hold millions of
// frames, too many to copy.
type seqs struct {
	st   *model.Stacks
	lmap []int32
}

// at returns element d of x's sequence, root first, or -1 past its end.
func (q seqs) at(x *seq, d int) int32 {
	if d < int(x.n) {
		return q.lmap[q.st.Frame(int(x.i), int(x.n)-1-d)]
	}
	return -1
}

// compare compares x and y from element d on.
func (q seqs) compare(x, y seq, d int) int {
	for ; d < int(min(x.n, y.n)); d++ {
		if c := cmp.Compare(q.at(&x, d), q.at(&y, d)); c != 0 {
			return c
		}
	}
	return cmp.Compare(x.n, y.n)
}

// sort sorts a lexicographically by sequence, a sequence before its
// extensions; the order of equal sequences is not specified (but is the
// same run after run: nothing is random).
//
// It is Bentley and Sedgewick's multikey quicksort: a partition looks at
// one element of each sequence, so a prefix shared by a group (the callers
// every stack has) is walked once for the group, not once per comparison
// as a comparison sort does: on a Go CPU profile this halved the time of
// the stack layout. Partitions that do
// not move on to the next element have a budget of about 2·log2(n) levels
// per group; past it the group is sorted by comparisons, so no input makes
// this quadratic. Elements must not be negative.
func (q seqs) sort(a []seq) {
	q.sortFrom(a, 0, 2*bits.Len(uint(len(a))))
}

func (q seqs) sortFrom(a []seq, d, budget int) {
	for len(a) > 1 {
		if len(a) <= 8 || budget == 0 {
			slices.SortFunc(a, func(x, y seq) int { return q.compare(x, y, d) })
			return
		}
		budget--
		p := median3(q.at(&a[0], d), q.at(&a[len(a)/2], d), q.at(&a[len(a)-1], d))
		lt, i, gt := 0, 0, len(a)
		for i < gt {
			switch c := q.at(&a[i], d); {
			case c < p:
				a[lt], a[i] = a[i], a[lt]
				lt++
				i++
			case c > p:
				gt--
				a[i], a[gt] = a[gt], a[i]
			default:
				i++
			}
		}
		q.sortFrom(a[:lt], d, budget)
		q.sortFrom(a[gt:], d, budget)
		if p < 0 {
			return // the middle group's sequences all ended here: equal
		}
		// The middle group moves on to the next element, which is
		// progress: it gets a fresh budget.
		a, d = a[lt:gt], d+1
		budget = 2 * bits.Len(uint(len(a)))
	}
}

func median3(x, y, z int32) int32 {
	if x > y {
		x, y = y, x
	}
	if y > z {
		y = z
	}
	return max(x, y)
}
