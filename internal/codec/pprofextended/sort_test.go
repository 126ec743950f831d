package pprofextended

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
)

// seqTable holds root-first sequences as a model's stacks (leaf first),
// written as they are (lmap the identity).
type seqTable struct {
	q    seqs
	seqs [][]int32
}

func newSeqTable(ss [][]int32, alpha int32) *seqTable {
	t := &seqTable{seqs: ss}
	st := &model.Stacks{}
	for _, s := range ss {
		leafFirst := slices.Clone(s)
		slices.Reverse(leafFirst)
		st.Add(leafFirst)
	}
	t.q = seqs{st, make([]int32, alpha)}
	for i := range t.q.lmap {
		t.q.lmap[i] = int32(i)
	}
	return t
}

func (t *seqTable) all() []seq {
	a := make([]seq, len(t.seqs))
	for i, s := range t.seqs {
		a[i] = seq{int32(i), int32(len(s))}
	}
	return a
}

// TestSortSeqs checks the multikey quicksort against a comparison sort on
// random sequences of a few shapes: short alphabets (many equal elements),
// shared prefixes of every length, sequences that are prefixes of others,
// duplicates, and sizes around the cut-over to comparisons.
func TestSortSeqs(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 7, 8, 9, 13, 100, 1000} {
		for _, alpha := range []int32{1, 2, 3, 50, 100000} {
			var prefix []int32
			for i := 0; i < r.Intn(40); i++ {
				prefix = append(prefix, r.Int31n(alpha))
			}
			ss := make([][]int32, n)
			for i := range ss {
				s := slices.Clone(prefix[:r.Intn(len(prefix)+1)])
				for k := r.Intn(12); k > 0; k-- {
					s = append(s, r.Int31n(alpha))
				}
				if i > 0 && r.Intn(5) == 0 {
					s = slices.Clone(ss[r.Intn(i)]) // a duplicate
				}
				ss[i] = s
			}
			tb := newSeqTable(ss, alpha)
			a := tb.all()
			want := slices.Clone(ss)
			slices.SortStableFunc(want, slices.Compare)
			tb.q.sort(a)
			for i := range a {
				if !slices.Equal(ss[a[i].i], want[i]) {
					t.Fatalf("n=%d alpha=%d: position %d is %v, want %v", n, alpha, i, ss[a[i].i], want[i])
				}
			}
			seen := make([]bool, n)
			for _, x := range a {
				if seen[x.i] {
					t.Fatalf("n=%d alpha=%d: %d twice", n, alpha, x.i)
				}
				seen[x.i] = true
			}
		}
	}
}

// TestSortSeqsBudget sorts an input whose partitions never move on to the
// next element (all first elements distinct, already sorted and reversed)
// and one where every sequence is the same long run: both must finish and
// be sorted.
func TestSortSeqsBudget(t *testing.T) {
	const n = 1 << 14
	for _, mk := range []func(i int) []int32{
		func(i int) []int32 { return []int32{int32(i)} },
		func(i int) []int32 { return []int32{int32(n - i)} },
		func(i int) []int32 { return []int32{int32(i % 2), int32(i)} },
		func(i int) []int32 { return make([]int32, 64) },
	} {
		ss := make([][]int32, n)
		for i := range ss {
			ss[i] = mk(i)
		}
		tb := newSeqTable(ss, n+1)
		a := tb.all()
		tb.q.sort(a)
		if !slices.IsSortedFunc(a, func(x, y seq) int { return slices.Compare(ss[x.i], ss[y.i]) }) {
			t.Fatal("not sorted")
		}
	}
}

// TestRadixSortLocKeys checks the location radix sort against a
// comparison sort by (mapping, address, index), and that it declines keys
// it cannot pack.
func TestRadixSortLocKeys(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	less := func(x, y locKey) int {
		if x.mapping != y.mapping {
			return int(x.mapping) - int(y.mapping)
		}
		if x.address != y.address {
			if x.address < y.address {
				return -1
			}
			return 1
		}
		return int(x.i) - int(y.i)
	}
	var tmp []locKey
	for _, n := range []int{0, 1, 2, 300, 5000} {
		for _, span := range []uint64{1, 16, 1 << 20, 1 << 47} {
			keys := make([]locKey, n)
			for i := range keys {
				keys[i] = locKey{0x400000 + uint64(r.Int63n(int64(span))), int32(r.Intn(4)) - 1, int32(i)}
			}
			want := slices.Clone(keys)
			slices.SortFunc(want, less)
			if !radixSortLocKeys(keys, &tmp) {
				t.Fatalf("n=%d span=%d: declined", n, span)
			}
			if !slices.Equal(keys, want) {
				t.Fatalf("n=%d span=%d: wrong order", n, span)
			}
		}
	}
	if radixSortLocKeys([]locKey{{1 << 63, 0, 0}, {1, 0, 1}}, &tmp) {
		t.Fatal("an address past 2^48 was packed")
	}
}
