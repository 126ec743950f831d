package gperftools

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
)

// rawTable maps the raw PC bytes of a record to its stack index. It is an
// open-addressing table over one arena of keys, so that a lookup touches
// one slot and one key, both without pointers for the GC to scan.
//
// In a 64-bit little-endian file, a key whose PCs all have the same high 32
// bits (all of a stack in one binary mapped below 4 GiB, or in one 4 GiB
// region) is stored compact: those high bits once, then the low 32 bits of
// each PC. It is compared with the record as it is, PC by PC, so identity
// stays exact while a key takes about half the memory and cache lines.
type rawTable struct {
	seed   maphash.Seed
	le64   bool      // keys may be stored compact
	slots  []rawSlot // len is a power of two, at most half full
	chunks [][]byte  // keys back to back, each after its 4-byte length
	n      int
}

// maxChunk bounds the arena's chunks, which start small and double; a
// chunk is never copied to grow. A key longer than maxChunk has a chunk of
// its own, so a key always starts at an offset below maxChunk.
const (
	chunkBits = 20
	maxChunk  = 1 << chunkBits
	// maxChunks bounds the chunks so that a key's reference fits 31 bits:
	// at least 2 GiB of keys.
	maxChunks = 1 << (31 - chunkBits)
	// compactRef marks the reference of a compact key.
	compactRef = 1 << 31
)

type rawSlot struct {
	hash  uint64 // the key's full hash: compared first, and kept for growing
	ref   uint32 // compactRef if compact | chunk<<chunkBits | offset of the key's length prefix
	stack int32  // stack index + 1; 0 marks an empty slot
}

func newRawTable(lay Layout, seed maphash.Seed) *rawTable {
	return &rawTable{seed: seed, le64: lay == Layout{8, false}, slots: make([]rawSlot, 1024)}
}

func (t *rawTable) hash(key []byte) uint64 { return maphash.Bytes(t.seed, key) }

// find returns the stack of key, whose hash is h, or -1. Stacks are
// numbered in the table's order of adding.
func (t *rawTable) find(h uint64, key []byte) int32 {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.stack == 0 {
			return -1
		}
		if s.hash == h {
			k := t.keyAt(s.ref)
			if s.ref&compactRef != 0 && equalCompact(k, key) || s.ref&compactRef == 0 && bytes.Equal(k, key) {
				return s.stack - 1
			}
		}
	}
}

// keyAt returns the key stored at ref, compact or not as ref says.
func (t *rawTable) keyAt(ref uint32) []byte {
	c := t.chunks[ref&^compactRef>>chunkBits]
	off := ref & (maxChunk - 1)
	n := binary.LittleEndian.Uint32(c[off:])
	return c[off+4 : off+4+n]
}

// compactable reports whether the 64-bit little-endian PCs of key all have
// the high 32 bits of the first.
func compactable(key []byte) bool {
	if len(key) < 8 || len(key)%8 != 0 {
		return false
	}
	hi := binary.LittleEndian.Uint64(key) >> 32
	for key = key[8:]; len(key) >= 8; key = key[8:] {
		if binary.LittleEndian.Uint64(key)>>32 != hi {
			return false
		}
	}
	return true
}

// equalCompact reports whether the compact key c holds the 64-bit
// little-endian PCs of raw.
func equalCompact(c, raw []byte) bool {
	if len(raw)%8 != 0 || len(c) != 4+len(raw)/2 {
		return false
	}
	hi := uint64(binary.LittleEndian.Uint32(c)) << 32
	lo := c[4:]
	var diff uint64
	i := 0
	for ; i+16 <= len(raw); i += 16 {
		l := binary.LittleEndian.Uint64(lo[i/2:])
		a := binary.LittleEndian.Uint64(raw[i:])
		b := binary.LittleEndian.Uint64(raw[i+8:])
		diff |= (a ^ (hi | l&0xffffffff)) | (b ^ (hi | l>>32))
	}
	if i < len(raw) {
		diff |= binary.LittleEndian.Uint64(raw[i:]) ^ (hi | uint64(binary.LittleEndian.Uint32(lo[i/2:])))
	}
	return diff == 0
}

// add records key (hash h, not in the table) as the table's next stack,
// numbered t.n, and returns where the key is stored, or false when the
// arena is at its limit of chunks.
func (t *rawTable) add(h uint64, key []byte) (uint32, bool) {
	compact := t.le64 && compactable(key)
	size := len(key)
	if compact {
		size = 4 + len(key)/2
	}
	need := 4 + size
	last := len(t.chunks) - 1
	if last < 0 || cap(t.chunks[last])-len(t.chunks[last]) < need {
		if last+1 >= maxChunks {
			return 0, false
		}
		size := 4096
		if last >= 0 {
			size = min(2*cap(t.chunks[last]), maxChunk)
		}
		t.chunks = append(t.chunks, make([]byte, 0, max(size, need)))
		last++
	}
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	c := t.chunks[last]
	ref := uint32(last)<<chunkBits | uint32(len(c))
	c = binary.LittleEndian.AppendUint32(c, uint32(size))
	if compact {
		ref |= compactRef
		c = append(c, key[4:8]...)
		for i := 0; i < len(key); i += 8 {
			c = append(c, key[i:i+4]...)
		}
	} else {
		c = append(c, key...)
	}
	t.chunks[last] = c
	t.put(rawSlot{hash: h, ref: ref, stack: int32(t.n) + 1})
	t.n++
	return ref, true
}

// touch loads the slots of the keys of these hashes, and the cache lines
// of the keys they hold as long as klen says, so that the cache misses of
// the lookups to come overlap; it returns a value only so the loads are not
// optimised away.
func (t *rawTable) touch(hs []uint64, klen []uint32) (sink uint64) {
	mask := uint64(len(t.slots) - 1)
	for _, h := range hs {
		sink += uint64(t.slots[h&mask].ref)
	}
	for k, h := range hs {
		sl := &t.slots[h&mask]
		if sl.stack == 0 {
			continue
		}
		// Every cache line of the key, for the comparison to come, as
		// long as the record's: a matching key has its length, and
		// reading the stored length first would wait for its line.
		c := t.chunks[sl.ref&^compactRef>>chunkBits]
		off := int(sl.ref & (maxChunk - 1))
		n := int(klen[k])
		if sl.ref&compactRef != 0 {
			n = 4 + n/2
		}
		end := min(off+4+n, len(c))
		for j := off; j < end; j += 64 {
			sink += uint64(c[j])
		}
		sink += uint64(c[end-1])
	}
	return sink
}

func (t *rawTable) put(s rawSlot) {
	mask := uint64(len(t.slots) - 1)
	i := s.hash & mask
	for t.slots[i].stack != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

func (t *rawTable) grow() {
	old := t.slots
	t.slots = make([]rawSlot, 2*len(old))
	for _, s := range old {
		if s.stack != 0 {
			t.put(s)
		}
	}
}

// addrTable numbers addresses in order of first use: open addressing over
// slots of 4 bytes that hold a location index into addrs, so that the table
// of a large profile stays small enough for the caches, and the lookups of
// a stack's addresses can be issued together (see touch) instead of one
// cache miss after another.
type addrTable struct {
	slots []uint32 // location index + 1, 0 when empty; len is a power of two, at most half full
	addrs []uint64 // location index -> address
	shift uint     // 64 - log2(len(slots))
	seed  uint64   // random per table
}

func newAddrTable() *addrTable {
	seed := maphash.Comparable(maphash.MakeSeed(), 0)
	return &addrTable{slots: make([]uint32, 1024), shift: 64 - 10, seed: seed}
}

// pos is the home slot of a, as addrSet.pos places it.
func (t *addrTable) pos(a uint64) uint64 {
	return (a ^ t.seed) * fibonacci >> t.shift
}

// touch loads the slots of these addresses, so that their cache misses
// overlap; it returns a value only so the loads are not optimised away.
func (t *addrTable) touch(addrs []uint64) (sink uint64) {
	for _, a := range addrs {
		sink += uint64(t.slots[t.pos(a)])
	}
	return sink
}

// index returns the location index of a, numbering it next if it is new.
func (t *addrTable) index(a uint64) int32 {
	mask := uint64(len(t.slots) - 1)
	i := t.pos(a)
	for {
		l := t.slots[i]
		if l == 0 {
			break
		}
		if t.addrs[l-1] == a {
			return int32(l - 1)
		}
		i = (i + 1) & mask
	}
	loc := int32(len(t.addrs))
	t.addrs = append(grow(t.addrs, 1), a)
	if 2*len(t.addrs) > len(t.slots) {
		t.slots = make([]uint32, 2*len(t.slots))
		t.shift--
		for j := range t.addrs {
			t.put(uint32(j))
		}
	} else {
		t.slots[i] = uint32(loc) + 1
	}
	return loc
}

func (t *addrTable) put(loc uint32) {
	mask := uint64(len(t.slots) - 1)
	i := t.pos(t.addrs[loc])
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = loc + 1
}

// lookup returns the location index of a, if it has one.
func (t *addrTable) lookup(a uint64) (int32, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := t.pos(a); ; i = (i + 1) & mask {
		l := t.slots[i]
		if l == 0 {
			return 0, false
		}
		if t.addrs[l-1] == a {
			return int32(l - 1), true
		}
	}
}
