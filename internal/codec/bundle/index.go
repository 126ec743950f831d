package bundle

// index finds an entry of one of the writer's shared tables by its value.
// It is a hash table of entry numbers only, with linear probing, at most
// half full: 8 to 16 bytes an entry. The values stay in the table they
// index, where a Go map keyed by them would hold each value again, with
// its own overhead: a map[function]uint32 of 1M functions holds 80 bytes
// an entry beside the table's 24, the index 8 (BenchmarkIndex).
//
// The caller hashes: find takes the hash of the value looked for and a
// test of whether entry v holds it; add takes the hash of every entry,
// to place them again as the index grows.
type index struct {
	slots []uint32 // entry + 1; 0 is an empty slot
	n     int
}

// find returns the entry whose hash is h and for which eq is true, and
// true; or, when there is none, the slot where add puts it, and false.
func (x *index) find(h uint64, eq func(v uint32) bool) (uint32, int, bool) {
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

// add puts entry v at slot, as find returned it for v's value, and grows
// the index when it is half full, hashing each entry again with hash.
func (x *index) add(slot int, v uint32, hash func(v uint32) uint64) {
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

// place puts v in the first empty slot from h's.
func (x *index) place(h uint64, v uint32) {
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = v + 1
}
