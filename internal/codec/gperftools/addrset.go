package gperftools

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
)

// addrSet is a set of addresses, for Tally, which counts the distinct
// locations but need not number them: open addressing over 8-byte slots
// that hold the address itself, so that a lookup touches one cache line
// (addrTable's numbering touches two, one after the other). Address 0 has
// a flag of its own, since a slot of 0 is empty.
type addrSet struct {
	slots []uint64 // len is a power of two, at most 3/4 full
	shift uint     // 64 - log2(len(slots))
	seed  uint64
	n     int
	zero  bool
}

func newAddrSet() *addrSet {
	return &addrSet{slots: make([]uint64, 1024), shift: 64 - 10, seed: maphash.Comparable(maphash.MakeSeed(), 0)}
}

// pos is the home slot of a: Fibonacci hashing of the seeded address (a
// multiply by 2^64/φ, the top bits kept). Every bit of the address reaches
// the top bits; addresses a fixed step apart (code of regular layout) land
// evenly spread, one slot each, so their lookups rarely probe past it.
func (t *addrSet) pos(a uint64) uint64 {
	return (a ^ t.seed) * fibonacci >> t.shift
}

// fibonacci is 2^64/φ, odd.
const fibonacci = 0x9e3779b97f4a7c15

// add puts a in the set.
func (t *addrSet) add(a uint64) {
	if a == 0 {
		t.zero = true
		return
	}
	mask := uint64(len(t.slots) - 1)
	i := t.pos(a)
	for {
		v := t.slots[i]
		if v == a {
			return
		}
		if v == 0 {
			break
		}
		i = (i + 1) & mask
	}
	t.slots[i] = a
	if t.n++; 4*t.n > 3*len(t.slots) {
		t.grow()
	}
}

func (t *addrSet) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	t.shift--
	mask := uint64(len(t.slots) - 1)
	for _, a := range old {
		if a == 0 {
			continue
		}
		i := t.pos(a)
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = a
	}
}

// len is the number of addresses in the set.
func (t *addrSet) len() int {
	if t.zero {
		return t.n + 1
	}
	return t.n
}

// sorted returns the addresses in ascending order.
func (t *addrSet) sorted() []uint64 {
	out := make([]uint64, 0, t.len())
	if t.zero {
		out = append(out, 0)
	}
	for _, a := range t.slots {
		if a != 0 {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// offsetList is a list of increasing offsets, kept as the uvarints of
// their differences (a byte or two each for records that follow one
// another), with the place of every offsetEvery-th in an index.
type offsetList struct {
	buf   []byte
	index []offsetMark
	n     int
	last  int64
}

type offsetMark struct {
	pos int   // in buf
	off int64 // the offset there
}

const offsetEvery = 64

// add appends off, which is at least the last one added.
func (l *offsetList) add(off int64) {
	if l.n%offsetEvery == 0 {
		l.index = append(l.index, offsetMark{len(l.buf), off})
	} else {
		l.buf = binary.AppendUvarint(l.buf, uint64(off-l.last))
	}
	l.last = off
	l.n++
}

// get returns offset k.
func (l *offsetList) get(k int) int64 {
	m := l.index[k/offsetEvery]
	off, b := m.off, l.buf[m.pos:]
	for k %= offsetEvery; k > 0; k-- {
		d, n := binary.Uvarint(b)
		off += int64(d)
		b = b[n:]
	}
	return off
}
