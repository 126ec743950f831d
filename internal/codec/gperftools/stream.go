package gperftools

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/pprofx/pprofx/internal/model"
)

// Stream reads a gperftools CPU profile as Decode does, but does not hold
// its stacks in memory: what it keeps grows with the distinct stacks by a
// few bytes each (a table slot and a count), not by their frames.
//
// Each distinct stack's frames (location indices) are written, as they are
// found, to a spill: in memory up to a few MiB, then in a temporary file in
// dir (os.TempDir() when "") that has no name (internal/fileio/tempfile: nothing is
// left behind, even on a signal), freed by Close. Stacks are told apart
// exactly: the raw PCs of the first stacks, up to KeyBudget bytes, are kept
// to compare records with; a record whose hash matches a later stack is
// compared with that stack's frames read back from the spill.
//
// The Streamed's tables, samples (in order, one per distinct stack) and
// Info are exactly those Decode gives for the same input, and so are its
// errors and warnings.
func Stream(r io.Reader, opts Options, dir string) (*Streamed, error) {
	return stream(r, opts, dir, false)
}

// Tally reads a gperftools CPU profile as Stream does, for what inspect
// shows of it, and no more: the Streamed has Stream's Info, Len and
// Totals, and its Profile Stream's tables, but for two things. Its
// locations are in ascending address order (Stream numbers them in order
// of first use), and its samples are not kept: Each returns an error.
// The locations are only told apart, not numbered, and the stacks' frames
// are not made; the spill holds the keys of the stacks whose raw PCs are
// past KeyBudget, to compare records with.
func Tally(r io.Reader, opts Options, dir string) (*Streamed, error) {
	return stream(r, opts, dir, true)
}

func stream(r io.Reader, opts Options, dir string, tally bool) (*Streamed, error) {
	d := &decoder{rd: newReader(r), opts: opts, info: &Info{}}
	s := &streamer{d: d, spill: &spill{dir: dir}, tally: tally, spillFrom: math.MaxInt}
	if tally {
		s.input = opts.Input
	}
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
	tally   bool // made by Tally: Each has no samples to give
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
	if s.tally {
		return errors.New("internal error: the samples of a gperftools profile read by Tally were not kept")
	}
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
			return errReadBack(err)
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

// Close frees the spill's temporary file, if any.
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

	// Tally's: the locations as a set, not numbered; the input, when it
	// can be read at any offset, and the offsets (in slots) of the
	// records of the stacks whose keys were not kept; else the first such
	// stack, from which on the spill holds the keys (math.MaxInt until
	// then); the stacks resolved (the resolver's).
	tally     bool
	set       *addrSet
	input     io.ReaderAt
	offs      offsetList
	spillFrom int
	resolved  int
	kbuf      []byte
}

func (s *streamer) run() (*Streamed, error) {
	d := s.d
	if err := d.header(); err != nil {
		return nil, err
	}
	s.tab.init()
	s.keys.budget = KeyBudget
	s.keys.le64 = d.lay == Layout{8, false}
	if s.tally {
		s.set = newAddrSet()
	} else {
		s.locs = newAddrTable()
	}
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
	var addrs []uint64
	if s.tally {
		addrs = s.set.sorted()
		s.set = nil
		// The spilled keys are not read again.
		s.spill.close()
		s.spill = &spill{}
	} else {
		addrs = s.locs.addrs
	}
	p := buildTables(d.info, maps, addrs, d.periodN)
	d.info.Stacks = s.counts.len()
	if err := s.spill.flushIfFile(); err != nil {
		return nil, err
	}
	return &Streamed{Info: d.info, Profile: p, periodN: d.periodN, counts: &s.counts, spill: s.spill, tally: s.tally}, nil
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
	sz := d.lay.SlotSize
	maxCount := uint64(math.MaxInt64 / d.periodN)
	for {
		if s.pre.i == s.pre.n {
			s.prefetch()
		}
		at, count, raw, done, err := d.nextRecord()
		if done || err != nil {
			return err
		}
		npcs := len(raw) / sz
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
			if err := s.add(at); err != nil {
				return err
			}
			idx = int32(s.counts.len() - 1)
		}
		s.counts.add(int(idx), count)
		d.counted(count, npcs)
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

// canonicalize makes every non-leaf PC 1 of raw 0, in place.
func canonicalize(lay Layout, raw []byte) {
	sz := lay.SlotSize
	for i := sz; i < len(raw); i += sz {
		if lay.slot(raw[i:]) == 1 {
			clear(raw[i : i+sz])
		}
	}
}

// canonical returns raw with every non-leaf PC 1 made 0, in a scratch
// buffer, or nil when raw has none.
func (s *streamer) canonical(raw []byte) []byte {
	lay := s.d.lay
	sz := lay.SlotSize
	i := sz
	if s.keys.le64 {
		// The common layout: find the first non-leaf 1 without a call per PC.
		for k := raw[min(8, len(raw)):]; len(k) >= 8 && binary.LittleEndian.Uint64(k) != 1; k = k[8:] {
			i += 8
		}
	}
	var c []byte
	for ; i < len(raw); i += sz {
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
			eq, err := s.equal(id, key, tag)
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
func (s *streamer) equal(id int32, key []byte, tag uint64) (bool, error) {
	if int(id) < len(s.keys.refs) {
		return s.keys.equal(int(id), key), nil
	}
	if s.input != nil {
		return s.equalInput(int(id)-len(s.keys.refs), key, tag)
	}
	// The spill and the locations are the resolver's until it is idle.
	if err := s.res.sync(s); err != nil {
		return false, err
	}
	if s.tally {
		return s.equalSpilledKey(int(id)-s.spillFrom, key)
	}
	// Compare the key's adjusted PCs, as locations, with the spilled frames.
	s.pcs = adjusted(s.pcs[:0], s.d.lay, key)
	frames, err := s.spilled().stackAt(id, s.fr[:0])
	s.fr = frames
	if err != nil {
		return false, errReadBack(err)
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
func (s *streamer) add(at int64) error {
	id := s.counts.len()
	if id >= maxStacks {
		return fmt.Errorf("more than %d distinct stacks", maxStacks)
	}
	key := s.pendKey
	s.keys.add(id, key)
	if s.tally && id >= len(s.keys.refs) {
		if s.input != nil {
			s.offs.add(at / int64(s.d.lay.SlotSize))
		} else if s.spillFrom == math.MaxInt {
			s.spillFrom = id
		}
	}
	if s.tab.full() {
		s.growTable(id + 1)
	}
	s.tab.insert(s.pendHash, uint32(id))
	s.counts.push()
	s.d.nframes += len(key) / s.d.lay.SlotSize
	return s.res.add(s, key)
}

// growTable grows the stack table, which holds n-1 stacks and is full,
// when the input's size is known (Options.SizeHint, or the reader's): to
// hold at once the stacks the whole input is expected to hold, as if the
// rest of it held new stacks at the rate of what was read so far, rather
// than by half again and again (each growth rehashes every entry into
// fresh pages; both tables are live meanwhile). Until a sixteenth of the
// input was read, that rate is a guess (the first records of any profile
// are new stacks), and the table grows by at most 4× a step.
func (s *streamer) growTable(n int) {
	rd, t := s.d.rd, &s.tab
	size := s.d.opts.SizeHint
	if rd.size >= 0 {
		size = rd.size
	}
	if size <= 0 || rd.off <= 0 || rd.off >= size {
		return // insert grows it by half
	}
	want := int(min(float64(n)*float64(size)/float64(rd.off), maxStacks))
	// Room for a tenth more than expected at 3/4 full, at least an eighth
	// more than now.
	slots := max(want/3*4+want/3*4/10, len(t.slots)+len(t.slots)/8)
	if rd.off < size/16 {
		slots = min(slots, 4*len(t.slots))
	}
	t.grow(slots)
}

// resolve numbers the locations of a canonical key's adjusted PCs and
// spills its frames; for Tally, it adds them to the set of locations and
// spills the key when the stack is spillFrom or later.
func (s *streamer) resolve(key []byte, spillFrom int) error {
	if s.tally {
		id := s.resolved
		s.resolved++
		s.tallyKey(key)
		if id >= spillFrom {
			return s.spill.addKey(key, s.keys.le64)
		}
		return nil
	}
	s.rpcs = adjusted(s.rpcs[:0], s.d.lay, key)
	fr := s.rfr[:0]
	for _, pc := range s.rpcs {
		fr = append(fr, s.locs.index(pc))
	}
	s.rfr = fr
	return s.spill.add(fr)
}

// tallyKey adds the adjusted PCs of a canonical key to the set of
// locations.
func (s *streamer) tallyKey(key []byte) {
	lay := s.d.lay
	set := s.set
	if lay == (Layout{8, false}) && len(key) >= 8 {
		set.add(binary.LittleEndian.Uint64(key))
		// The callers: an address found in its home slot is done here,
		// without a call; the rest is add's.
		slots, shift, seed := set.slots, set.shift&63, set.seed
		for k := key[8:]; len(k) >= 8; k = k[8:] {
			pc := binary.LittleEndian.Uint64(k)
			if pc > 0 {
				pc--
				if slots[(pc^seed)*fibonacci>>shift] == pc {
					continue
				}
			}
			set.add(pc)
			slots, shift = set.slots, set.shift&63
		}
		return
	}
	sz := lay.SlotSize
	for i := 0; i+sz <= len(key); i += sz {
		pc := lay.slot(key[i:])
		if i > 0 && pc > 0 {
			pc--
		}
		set.add(pc)
	}
}

// equalInput reports whether the record of the k-th stack whose key was
// not kept, read back from the input, has the canonical key key. Its own
// canonical key must have the tag that led here, or the input changed
// under the reader.
func (s *streamer) equalInput(k int, key []byte, tag uint64) (bool, error) {
	lay := s.d.lay
	sz := lay.SlotSize
	at := s.offs.get(k) * int64(sz)
	changed := fmt.Errorf("the record at byte %d changed while the input was read", at)
	// The record's header, then its PCs (as many as the key's, or it
	// differs).
	b := slices.Grow(s.kbuf[:0], 2*sz+len(key))[:2*sz+len(key)]
	s.kbuf = b
	if _, err := s.input.ReadAt(b[:2*sz], at); err != nil {
		return false, fmt.Errorf("reading back the record at byte %d: %v", at, err)
	}
	npcs := lay.slot(b[sz:])
	if npcs == 0 || npcs > maxPCs {
		return false, changed
	}
	if npcs != uint64(len(key)/sz) {
		return false, nil
	}
	pcs := b[2*sz:]
	if _, err := s.input.ReadAt(pcs, at+int64(2*sz)); err != nil {
		return false, fmt.Errorf("reading back the record at byte %d: %v", at, err)
	}
	canonicalize(lay, pcs)
	if s.tab.hash(pcs)>>idBits != tag {
		return false, changed
	}
	return bytes.Equal(pcs, key), nil
}

// spilled is the reader of the spill that equal and equalSpilledKey read
// stacks back with, made on first use.
func (s *streamer) spilled() *spillReader {
	if s.sr == nil {
		s.sr = s.spill.reader(0, 4<<10)
	}
	return s.sr
}

func errReadBack(err error) error { return fmt.Errorf("reading back the spilled stacks: %v", err) }

// equalSpilledKey reports whether the k-th key in Tally's spill is key.
func (s *streamer) equalSpilledKey(k int, key []byte) (bool, error) {
	b, err := s.spilled().keyAt(k, s.kbuf[:0])
	s.kbuf = b
	if err != nil {
		return false, errReadBack(err)
	}
	if len(b) == 0 {
		return false, errors.New("reading back the spilled stacks: corrupt spill")
	}
	if b[0] == 1 {
		return equalCompact(b[1:], key), nil
	}
	return bytes.Equal(b[1:], key), nil
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
		if id := int(sl&idMask) - 1; sl != 0 && sl>>idBits == h>>idBits && id < len(a.refs) {
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
