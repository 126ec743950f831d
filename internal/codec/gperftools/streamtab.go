package gperftools

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
)

// stackTable maps the hash of a stack's canonical key to the stack: open
// addressing over 8-byte slots holding the hash's high 36 bits (the tag,
// which also places the slot) and the stack index + 1 in the low 28 bits
// (0: empty). A tag match is only a candidate, compared by streamer.equal.
type stackTable struct {
	seed  maphash.Seed
	slots []uint64
	n     int
}

const (
	idBits = 28
	idMask = 1<<idBits - 1
	// maxStacks is the most distinct stacks Stream tells apart (a file
	// of more holds at least 3 GiB of records).
	maxStacks = idMask - 1
)

func (t *stackTable) init() {
	t.seed = maphash.MakeSeed()
	t.slots = make([]uint64, 1024)
}

// hashMask is ANDed to every stack's hash: the tests keep only a few bits,
// so that distinct stacks share tags and must be told apart by comparing
// them.
var hashMask = ^uint64(0)

func (t *stackTable) hash(key []byte) uint64 { return maphash.Bytes(t.seed, key) & hashMask }

// pos is the home slot of a tag: tags are uniform, so a multiply-shift
// spreads them over a table of any size (below 2^28 slots).
func (t *stackTable) pos(tag uint64) uint64 {
	return tag * uint64(len(t.slots)) >> (64 - idBits)
}

// full reports whether one more entry would make the table more than 3/4
// full.
func (t *stackTable) full() bool { return 4*(t.n+1) > 3*len(t.slots) }

// grow moves the entries to a table of size slots (at most 1<<idBits).
func (t *stackTable) grow(size int) {
	old := t.slots
	t.slots = make([]uint64, min(size, 1<<idBits))
	for _, sl := range old {
		if sl != 0 {
			t.put(sl)
		}
	}
}

func (t *stackTable) insert(h uint64, id uint32) {
	// At most 3/4 full; growing by half keeps the step to the next size
	// (both tables are live while it is filled) small. streamer.add
	// grows it first when it can tell how large it will be.
	if t.full() {
		t.grow(len(t.slots) + len(t.slots)/2)
	}
	t.put(h>>idBits<<idBits | uint64(id+1))
	t.n++
}

func (t *stackTable) put(sl uint64) {
	n := uint64(len(t.slots))
	i := t.pos(sl >> idBits)
	for t.slots[i] != 0 {
		if i++; i == n {
			i = 0
		}
	}
	t.slots[i] = sl
}

// keyArena keeps the canonical keys of the first stacks, in chunks, up to a
// budget: stack i < len(refs) has its key at refs[i]. In a 64-bit
// little-endian file a key whose PCs share their high 32 bits is kept
// compact, as rawTable keeps it.
type keyArena struct {
	budget int
	le64   bool
	full   bool
	used   int
	chunks [][]byte
	refs   []uint32 // compactRef if compact | chunk<<chunkBits | offset of the length prefix
}

func (a *keyArena) add(id int, key []byte) {
	if a.full || id != len(a.refs) {
		return
	}
	compact := a.le64 && compactable(key)
	size := len(key)
	if compact {
		size = 4 + len(key)/2
	}
	need := 4 + size
	if a.used+need > a.budget || size > maxChunk/2 {
		a.full = true
		return
	}
	last := len(a.chunks) - 1
	if last < 0 || cap(a.chunks[last])-len(a.chunks[last]) < need {
		if last+1 >= maxChunks {
			a.full = true
			return
		}
		size := 4096
		if last >= 0 {
			size = min(2*cap(a.chunks[last]), maxChunk)
		}
		a.chunks = append(a.chunks, make([]byte, 0, max(size, need)))
		last++
	}
	c := a.chunks[last]
	ref := uint32(last)<<chunkBits | uint32(len(c))
	c = binary.LittleEndian.AppendUint32(c, uint32(size))
	if compact {
		ref |= compactRef
		c = appendCompact(c, key)
	} else {
		c = append(c, key...)
	}
	a.chunks[last] = c
	a.used += need
	a.refs = append(grow(a.refs, 1), ref)
}

// appendCompact appends the compact form of a key whose 64-bit
// little-endian PCs share their high 32 bits (compactable): those bits
// once, then the low 32 bits of each PC.
func appendCompact(dst, key []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 4+len(key)/2)[:n+4+len(key)/2]
	out := dst[n:]
	copy(out, key[4:8])
	out = out[4:]
	for len(key) >= 8 && len(out) >= 4 {
		binary.LittleEndian.PutUint32(out, binary.LittleEndian.Uint32(key))
		key, out = key[8:], out[4:]
	}
	return dst
}

func (a *keyArena) equal(id int, key []byte) bool {
	ref := a.refs[id]
	c := a.chunks[ref&^compactRef>>chunkBits]
	off := ref & (maxChunk - 1)
	n := binary.LittleEndian.Uint32(c[off:])
	k := c[off+4 : off+4+n]
	if ref&compactRef != 0 {
		return equalCompact(k, key)
	}
	return bytes.Equal(k, key)
}

// countList is the summed count of each stack: 4 bytes a stack in pages
// that never move, the rare count past 32 bits in a map.
type countList struct {
	pages [][]uint32
	n     int
	big   map[int]uint64 // counts of at least math.MaxUint32, whose entry holds that
}

const countPage = 1 << 16

func (c *countList) len() int { return c.n }

func (c *countList) get(i int) uint64 {
	v := c.pages[i/countPage][i%countPage]
	if v == math.MaxUint32 {
		return c.big[i]
	}
	return uint64(v)
}

// push appends a count of 0.
func (c *countList) push() {
	if c.n%countPage == 0 {
		size := countPage
		if c.n == 0 {
			size = 256 // a small profile needs no large page
		}
		c.pages = append(c.pages, make([]uint32, 0, size))
	}
	p := &c.pages[len(c.pages)-1]
	*p = append(*p, 0)
	c.n++
}

// add adds v to count i; the caller has checked that the sum fits int64.
func (c *countList) add(i int, v uint64) {
	e := &c.pages[i/countPage][i%countPage]
	sum := c.get(i) + v
	if sum < math.MaxUint32 {
		*e = uint32(sum)
		return
	}
	if c.big == nil {
		c.big = map[int]uint64{}
	}
	*e = math.MaxUint32
	c.big[i] = sum
}
