package gperftools

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"math"

	"github.com/pprofx/pprofx/internal/model"
)

// Stream reads a gperftools CPU profile as Decode does, but does not hold
// its stacks in memory: what it keeps grows with the distinct stacks by a
// few bytes each (a table slot and a count), not by their frames.
//
// Each distinct stack's frames (location indices) are written, as they are
// found, to a spill: in memory up to a few MiB, then in a temporary file in
// dir (os.TempDir() when ""), removed by Close. Stacks are told apart
// exactly: the raw PCs of the first stacks, up to KeyBudget bytes, are kept
// to compare records with; a record whose hash matches a later stack is
// compared with that stack's frames read back from the spill.
//
// The Streamed's tables, samples (in order, one per distinct stack) and
// Info are exactly those Decode gives for the same input, and so are its
// errors and warnings.
func Stream(r io.Reader, opts Options, dir string) (*Streamed, error) {
	d := &decoder{rd: newReader(r), opts: opts, info: &Info{}}
	s := &streamer{d: d, spill: &spill{dir: dir}}
	st, err := s.run()
	if err != nil {
		s.spill.close()
		return nil, err
	}
	return st, nil
}

// KeyBudget bounds the bytes of raw PCs Stream keeps to compare records
// with (a variable for the tests).
var KeyBudget = 16 << 20

// Streamed is a decoded profile whose samples are read back one at a time.
type Streamed struct {
	Info *Info
	// Profile holds the tables and profile-level fields; its Samples and
	// Stacks are empty.
	Profile *model.Profile
	periodN int64
	counts  *countList
	spill   *spill
}

// Len returns the number of samples (one per distinct stack).
func (s *Streamed) Len() int { return s.counts.len() }

// Totals returns the sums of the samples' values, per sample type,
// saturating as summary does.
func (s *Streamed) Totals() []int64 {
	var c, ns int64
	for i := range s.counts.len() {
		v := s.counts.get(i)
		c = satAdd(c, int64(v))
		ns = satAdd(ns, int64(v)*s.periodN)
	}
	return []int64{c, ns}
}

func satAdd(a, b int64) int64 {
	if c := a + b; c >= a {
		return c
	}
	return math.MaxInt64
}

// Each calls fn with every sample in order: its stack (location indices,
// leaf first) or, when packed is set, the same as the uvarints of the
// indices + 1 (as profile.proto packs location ids), and its values. The
// slices are reused by the next call.
func (s *Streamed) Each(packed bool, fn func(frames []int32, packed []byte, values []int64) error) error {
	sr := s.spill.reader(0, 256<<10)
	var frames []int32
	var pk []byte
	vals := make([]int64, 2)
	for i := range s.counts.len() {
		c := s.counts.get(i)
		var err error
		if packed {
			pk, err = sr.packed(pk)
		} else {
			frames, err = sr.stack(frames[:0])
		}
		if err != nil {
			return fmt.Errorf("reading back the spilled stacks: %v", err)
		}
		vals[0], vals[1] = int64(c), int64(c)*s.periodN
		if packed {
			err = fn(nil, pk, vals)
		} else {
			err = fn(frames, nil, vals)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Close removes the spill's temporary file, if any.
func (s *Streamed) Close() error { return s.spill.close() }

type streamer struct {
	d      *decoder
	tab    stackTable
	keys   keyArena
	locs   *addrTable
	spill  *spill
	counts countList
	canon  []byte
	pcs    []uint64
	fr     []int32
	sr     *spillReader

	pendKey  []byte // the key of the record lookup missed, for add
	pendHash uint64

	res  resolverQueue
	pre  prefetched
	rpcs []uint64 // the resolver's scratch
	rfr  []int32
}

func (s *streamer) run() (*Streamed, error) {
	d := s.d
	if err := d.header(); err != nil {
		return nil, err
	}
	s.tab.init()
	s.keys.budget = KeyBudget
	s.keys.le64 = d.lay == Layout{8, false}
	s.locs = newAddrTable()
	defer s.res.stop()
	if err := s.records(); err != nil {
		return nil, err
	}
	if err := s.res.sync(s); err != nil {
		return nil, err
	}
	s.res.stop()
	d.info.DataBytes = d.rd.off
	s.tab, s.keys = stackTable{}, keyArena{}
	var maps []mapping
	if d.info.Trailer {
		var err error
		if maps, err = d.mapsText(); err != nil {
			return nil, err
		}
	}
	p := buildTables(d.info, maps, s.locs.addrs, d.periodN)
	d.info.Stacks = s.counts.len()
	if err := s.spill.flushIfFile(); err != nil {
		return nil, err
	}
	return &Streamed{Info: d.info, Profile: p, periodN: d.periodN, counts: &s.counts, spill: s.spill}, nil
}

// records is recordLoop's twin for Stream, with the same checks and errors.
func (s *streamer) records() error {
	err := s.recordLoop()
	if err == nil {
		return nil
	}
	d := s.d
	re, ok := err.(*recordError)
	if !ok || !d.opts.Salvage {
		return err
	}
	d.info.Salvaged = true
	plural := "s"
	if d.info.Records == 1 {
		plural = ""
	}
	d.warn("salvage: kept the %d complete record%s before this one: %s", d.info.Records, plural, re.msg)
	return nil
}

func (s *streamer) recordLoop() error {
	d := s.d
	rd, lay := d.rd, d.lay
	sz := lay.SlotSize
	maxCount := uint64(math.MaxInt64 / d.periodN)
	for {
		if s.pre.i == s.pre.n {
			s.prefetch()
		}
		at := rd.off
		n := rd.fill(2 * sz)
		if err := rd.readErr(); err != nil {
			return err
		}
		if n == 0 {
			d.warn("no trailer after %d records (byte %d): the profile was flushed but not stopped, or its writer died; it has no mappings", d.info.Records, at)
			return nil
		}
		if n < 2*sz {
			return d.recErr(at, "cut after %d of its first %d bytes", n, 2*sz)
		}
		hd := rd.peek(2 * sz)
		count, npcs := lay.slot(hd), lay.slot(hd[sz:])
		if npcs == 0 {
			return d.recErr(at, "num_pcs is 0")
		}
		if npcs > maxPCs {
			return d.recErr(at, "num_pcs %d is larger than the limit %d", npcs, maxPCs)
		}
		need := int(npcs) * sz
		if rem, ok := rd.remaining(); ok && int64(need) > rem-int64(2*sz) {
			return d.recErr(at, "num_pcs %d needs %d bytes, only %d remain", npcs, need, rem-int64(2*sz))
		}
		rd.skip(2 * sz)
		raw, got := rd.read(need)
		if err := rd.readErr(); err != nil {
			return err
		}
		if got < need {
			return d.recErr(at, "num_pcs %d needs %d bytes, only %d remain", npcs, need, got)
		}
		if count == 0 {
			if npcs == 1 && lay.slot(raw) == 0 {
				d.info.Trailer = true
				return nil
			}
			return d.recErr(at, "sample count is 0")
		}
		var h uint64
		if s.pre.i < s.pre.n {
			h = s.pre.hash[s.pre.i]
			s.pre.i++
		} else {
			h = s.tab.hash(raw)
		}
		idx, err := s.lookup(raw, h)
		if err != nil {
			return err
		}
		var sum uint64
		if idx >= 0 {
			sum = s.counts.get(int(idx))
		}
		if count > maxCount-sum {
			return d.recErr(at, "the summed count of its stack × period %d ns overflows int64", d.periodN)
		}
		if idx < 0 {
			if d.nframes+int(npcs) > math.MaxInt32 {
				return d.recErr(at, "more than %d frames in all", math.MaxInt32)
			}
			if err := s.add(); err != nil {
				return err
			}
			idx = int32(s.counts.len() - 1)
		}
		s.counts.add(int(idx), count)
		d.info.Records++
		if d.info.TotalCount += count; d.info.TotalCount < count {
			d.info.TotalCount = math.MaxUint64 // saturate; only Info shows it
		}
		d.info.MaxDepth = max(d.info.MaxDepth, int(npcs))
	}
}

// lookup returns the stack of a record's raw PCs, or -1 with the record's
// key and hash ready for add. Stacks are told apart by their adjusted PCs:
// non-leaf PCs 0 and 1 are the same, so a record holding a non-leaf 1 is
// looked up with 0 in its place (its canonical form, which the kept keys
// are in).
func (s *streamer) lookup(raw []byte, h uint64) (int32, error) {
	idx, err := s.find(h, raw)
	if idx >= 0 || err != nil {
		return idx, err
	}
	key := raw
	if c := s.canonical(raw); c != nil {
		key = c
		h = s.tab.hash(key)
		if idx, err = s.find(h, key); idx >= 0 || err != nil {
			return idx, err
		}
	}
	s.pendKey, s.pendHash = key, h
	return -1, nil
}

// canonical returns raw with every non-leaf PC 1 made 0, in a scratch
// buffer, or nil when raw has none.
func (s *streamer) canonical(raw []byte) []byte {
	lay := s.d.lay
	sz := lay.SlotSize
	var c []byte
	for i := sz; i < len(raw); i += sz {
		if lay.slot(raw[i:]) != 1 {
			continue
		}
		if c == nil {
			c = append(s.canon[:0], raw...)
			s.canon = c
		}
		clear(c[i : i+sz])
	}
	return c
}

// find returns the stack whose canonical key is key (hash h), or -1.
func (s *streamer) find(h uint64, key []byte) (int32, error) {
	t := &s.tab
	tag := h >> idBits
	n := uint64(len(t.slots))
	for i := t.pos(tag); ; {
		sl := t.slots[i]
		if sl == 0 {
			return -1, nil
		}
		if sl>>idBits == tag {
			id := int32(sl&idMask) - 1
			eq, err := s.equal(id, key)
			if err != nil || eq {
				return id, err
			}
		}
		if i++; i == n {
			i = 0
		}
	}
}

// equal reports whether stack id is the one of the canonical key.
func (s *streamer) equal(id int32, key []byte) (bool, error) {
	if int(id) < len(s.keys.refs) {
		return s.keys.equal(int(id), key), nil
	}
	// The spill and the locations are the resolver's until it is idle.
	if err := s.res.sync(s); err != nil {
		return false, err
	}
	// Compare the key's adjusted PCs, as locations, with the spilled frames.
	s.pcs = adjusted(s.pcs[:0], s.d.lay, key)
	if s.sr == nil {
		s.sr = s.spill.reader(0, 4<<10)
	}
	frames, err := s.sr.stackAt(id, s.fr[:0])
	s.fr = frames
	if err != nil {
		return false, fmt.Errorf("reading back the spilled stacks: %v", err)
	}
	if len(frames) != len(s.pcs) {
		return false, nil
	}
	for j, pc := range s.pcs {
		l, ok := s.locs.lookup(pc)
		if !ok || l != frames[j] {
			return false, nil
		}
	}
	return true, nil
}

// adjusted appends the PCs of a raw key, every non-leaf one decreased by
// one (a PC of 0 stays 0).
func adjusted(buf []uint64, lay Layout, raw []byte) []uint64 {
	sz := lay.SlotSize
	for i := 0; i+sz <= len(raw); i += sz {
		pc := lay.slot(raw[i:])
		if i > 0 && pc > 0 {
			pc-- // a return address: point into the call instruction
		}
		buf = append(buf, pc)
	}
	return buf
}

// add makes the key lookup left pending the next stack: keeps its key
// while the budget lasts, and has the resolver number its locations and
// spill its frames.
func (s *streamer) add() error {
	id := s.counts.len()
	if id >= maxStacks {
		return fmt.Errorf("more than %d distinct stacks", maxStacks)
	}
	key := s.pendKey
	s.keys.add(id, key)
	s.tab.insert(s.pendHash, uint32(id))
	s.counts.push()
	s.d.nframes += len(key) / s.d.lay.SlotSize
	return s.res.add(s, key)
}

// resolve numbers the locations of a canonical key's adjusted PCs and
// spills its frames.
func (s *streamer) resolve(key []byte) error {
	s.rpcs = adjusted(s.rpcs[:0], s.d.lay, key)
	fr := s.rfr[:0]
	for _, pc := range s.rpcs {
		fr = append(fr, s.locs.index(pc))
	}
	s.rfr = fr
	return s.spill.add(fr)
}

// buildTables makes the profile's tables and fields but its samples and
// stacks, as Decode's build does, and fills info's counts of them.
func buildTables(info *Info, maps []mapping, addrs []uint64, periodN int64) *model.Profile {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{
		{Type: b.String("samples"), Unit: b.String("count")},
		{Type: b.String("cpu"), Unit: b.String("nanoseconds")},
	}
	p.PeriodType = model.ValueType{Type: b.String("cpu"), Unit: b.String("nanoseconds")}
	p.Period = periodN
	p.DropFrames = b.String(DropFrames)
	for _, m := range maps {
		p.Mappings = append(p.Mappings, model.Mapping{Start: m.start, Limit: m.limit, Offset: m.offset, File: b.String(m.file)})
	}
	idx := newMappingIndex(p.Mappings)
	p.Locations = make([]model.Location, len(addrs))
	for i, a := range addrs {
		p.Locations[i] = model.Location{Address: a, Mapping: idx.find(a)}
		if p.Locations[i].Mapping == model.NoMapping {
			info.Unmapped++
		}
	}
	info.Locations = len(p.Locations)
	info.Mappings = len(p.Mappings)
	return p
}

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

func (t *stackTable) hash(key []byte) uint64 { return maphash.Bytes(t.seed, key) }

// pos is the home slot of a tag: tags are uniform, so a multiply-shift
// spreads them over a table of any size (below 2^28 slots).
func (t *stackTable) pos(tag uint64) uint64 {
	return tag * uint64(len(t.slots)) >> (64 - idBits)
}

func (t *stackTable) insert(h uint64, id uint32) {
	// At most 3/4 full; growing by half keeps the step to the next size
	// (both tables are live while it is filled) small.
	if 4*(t.n+1) > 3*len(t.slots) {
		old := t.slots
		t.slots = make([]uint64, len(old)+len(old)/2)
		for _, sl := range old {
			if sl != 0 {
				t.put(sl)
			}
		}
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
		c = append(c, key[4:8]...)
		for i := 0; i < len(key); i += 8 {
			c = append(c, key[i:i+4]...)
		}
	} else {
		c = append(c, key...)
	}
	a.chunks[last] = c
	a.used += need
	a.refs = append(grow(a.refs, 1), ref)
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

// prefetch hashes the records that are whole in the read buffer (up to 16)
// and loads their table slots and the keys these hold, so that the cache
// misses of their lookups overlap rather than come one after another. It
// only reads ahead: the record loop checks every record as usual and takes
// the hashes in order.
func (s *streamer) prefetch() {
	pre := &s.pre
	pre.i, pre.n = 0, 0
	rd, lay := s.d.rd, s.d.lay
	sz := lay.SlotSize
	buf := rd.buf[rd.lo:rd.hi]
	for pre.n < len(pre.hash) && len(buf) >= 2*sz {
		npcs := lay.slot(buf[sz:])
		if npcs == 0 || npcs > uint64(len(buf)/sz-2) {
			break
		}
		end := (2 + int(npcs)) * sz
		pre.hash[pre.n] = s.tab.hash(buf[2*sz : end])
		pre.n++
		buf = buf[end:]
	}
	t := &s.tab
	var sink uint64
	for _, h := range pre.hash[:pre.n] {
		sink += t.slots[t.pos(h>>idBits)]
	}
	a := &s.keys
	for _, h := range pre.hash[:pre.n] {
		sl := t.slots[t.pos(h>>idBits)]
		if id := int(sl&idMask) - 1; sl>>idBits == h>>idBits && id < len(a.refs) {
			ref := a.refs[id]
			c := a.chunks[ref&^compactRef>>chunkBits]
			off := int(ref & (maxChunk - 1))
			end := min(off+4+int(binary.LittleEndian.Uint32(c[off:])), len(c))
			for j := off; j < end; j += 64 {
				sink += uint64(c[j])
			}
		}
	}
	pre.sink += sink
}
