// Package hashindex finds the entries of a table by their values: a hash
// table of entry numbers only, with linear probing, at most half full, so
// 8 to 16 bytes an entry. The values stay in the table they index, where
// a Go map keyed by them would hold each value again, with its own
// overhead: a map from 24-byte values to uint32 holds 80 bytes an entry
// beside the table, the index 8 (BenchmarkIndex).
//
// The caller hashes: Find takes the hash of the value looked for and a
// test of whether entry v holds it; Add takes the hash of every entry, to
// place them again as the index grows.
package hashindex

// Index is the index of one table; its zero value is empty.
type Index struct {
	slots []uint32 // entry + 1; 0 is an empty slot
	n     int
}

// Find returns the entry whose hash is h and for which eq is true, and
// true; or, when there is none, the slot where Add puts it, and false.
func (x *Index) Find(h uint64, eq func(v uint32) bool) (uint32, int, bool) {
	if len(x.slots) == 0 {
		return 0, -1, false
	}
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return 0, int(i), false
		}
		if eq(s - 1) {
			return s - 1, int(i), true
		}
	}
}

// Add puts entry v at slot, as Find returned it for v's value, and grows
// the index when it is half full, hashing each entry again with hash.
func (x *Index) Add(slot int, v uint32, hash func(v uint32) uint64) {
	if slot < 0 {
		x.slots = make([]uint32, 16)
		x.place(hash(v), v)
	} else {
		x.slots[slot] = v + 1
	}
	x.n++
	if 2*x.n <= len(x.slots) {
		return
	}
	old := x.slots
	x.slots = make([]uint32, 2*len(old))
	for _, s := range old {
		if s != 0 {
			x.place(hash(s-1), s-1)
		}
	}
}

// Reserve makes room for n entries, before any is added: an index whose
// size is known is made once, not grown by doubling, each entry placed
// again at each step.
func (x *Index) Reserve(n int) {
	if x.n > 0 || n <= 0 {
		return
	}
	size := 16
	for size < 2*n {
		size *= 2
	}
	if size > len(x.slots) {
		x.slots = make([]uint32, size)
	}
}

// Len returns the number of entries indexed.
func (x *Index) Len() int { return x.n }

// Intern returns the entry of *tab equal to v, and true; or, when there is
// none, appends v to *tab and returns its entry, and false. x indexes
// *tab, which grows only through it (or entries left out of the index);
// hash hashes a value.
func Intern[E comparable](x *Index, tab *[]E, hash func(E) uint64, v E) (uint32, bool) {
	i, slot, found := x.Find(hash(v), func(i uint32) bool { return (*tab)[i] == v })
	if !found {
		i = uint32(len(*tab))
		*tab = append(*tab, v)
		x.Add(slot, i, func(i uint32) uint64 { return hash((*tab)[i]) })
	}
	return i, found
}

// place puts v in the first empty slot from h's.
func (x *Index) place(h uint64, v uint32) {
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = v + 1
}
