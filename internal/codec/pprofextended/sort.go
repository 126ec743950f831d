package pprofextended

import (
	"math/bits"
	"slices"
)

// seq is a sequence to sort (a stack's written location indices, root
// first) with the index it stands for.
type seq struct {
	s []int32
	i int32
}

// sortSeqs sorts a lexicographically by s, a sequence before its
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
func sortSeqs(a []seq) {
	sortSeqsFrom(a, 0, 2*bits.Len(uint(len(a))))
}

func at(x *seq, d int) int32 {
	if d < len(x.s) {
		return x.s[d]
	}
	return -1
}

func sortSeqsFrom(a []seq, d, budget int) {
	for len(a) > 1 {
		if len(a) <= 8 || budget == 0 {
			slices.SortFunc(a, func(x, y seq) int { return slices.Compare(x.s[d:], y.s[d:]) })
			return
		}
		budget--
		p := median3(at(&a[0], d), at(&a[len(a)/2], d), at(&a[len(a)-1], d))
		lt, i, gt := 0, 0, len(a)
		for i < gt {
			switch c := at(&a[i], d); {
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
		sortSeqsFrom(a[:lt], d, budget)
		sortSeqsFrom(a[gt:], d, budget)
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
