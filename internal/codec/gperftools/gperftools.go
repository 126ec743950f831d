// Package gperftools decodes the legacy CPU profiles written by gperftools'
// libprofiler (ProfilerStart/ProfilerStop, CPUPROFILE=...), as the spec
// shared/specs/cpuprofile-fileformat.adoc describes them: a binary header,
// records of (count, num_pcs, PCs leaf first), a trailer (0, 1, 0) and the
// text of /proc/self/maps.
//
// Slots are 4 or 8 bytes in the writer's byte order; all four layouts are
// read. Decode streams the file with fixed-size slot reads and sums
// identical stacks as it goes, so its memory is bounded by the distinct
// stacks and PCs, not by the size of the file.
//
// Unlike google/pprof's reader, Decode keeps every frame: it does not remove
// a "common second frame" nor a leaf duplicated by its caller's return
// address, and it does not invent a 0..2^64 mapping for unmapped PCs.
package gperftools

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
)

// Layout is the slot size and byte order of a file.
type Layout struct {
	SlotSize  int  // 4 or 8
	BigEndian bool // byte order of every slot
}

// String describes the layout, e.g. "64-bit little-endian".
func (l Layout) String() string {
	order := "little-endian"
	if l.BigEndian {
		order = "big-endian"
	}
	return fmt.Sprintf("%d-bit %s", l.SlotSize*8, order)
}

func (l Layout) slot(b []byte) uint64 {
	switch {
	case l.SlotSize == 8 && !l.BigEndian:
		return binary.LittleEndian.Uint64(b)
	case l.SlotSize == 8:
		return binary.BigEndian.Uint64(b)
	case !l.BigEndian:
		return uint64(binary.LittleEndian.Uint32(b))
	default:
		return uint64(binary.BigEndian.Uint32(b))
	}
}

// MaxHeaderWords bounds the header-words slot. The spec allows more than 3;
// bounding it keeps the four layouts apart (read as 64-bit little-endian, a
// 64-bit big-endian header has header words 0x0300000000000000).
const MaxHeaderWords = 64

// maxVersion bounds the version slot for detection only: Decode rejects any
// version but 0 with a clear error, so a file of another version is still
// recognised as this format rather than as an unknown one.
const maxVersion = 1 << 16

// layouts in the order DetectLayout tries them. No 3-slot header is valid in
// two of them: slot 0 must be 0 and slot 1 in [3, MaxHeaderWords).
var layouts = []Layout{{8, false}, {8, true}, {4, false}, {4, true}}

// DetectLayout reports the layout of a gperftools CPU profile from its first
// three slots (header count 0, header words in [3, 64), a small version), or
// false when head does not start like one. head needs 24 bytes to recognise
// a 64-bit file and 12 for a 32-bit one.
func DetectLayout(head []byte) (Layout, bool) {
	for _, l := range layouts {
		if len(head) < 3*l.SlotSize {
			continue
		}
		s := l.SlotSize
		if l.slot(head) == 0 && l.slot(head[s:]) >= 3 && l.slot(head[s:]) < MaxHeaderWords && l.slot(head[2*s:]) < maxVersion {
			return l, true
		}
	}
	return Layout{}, false
}

// Options controls Decode.
type Options struct {
	// Salvage keeps every complete record before a cut or malformed one,
	// with a warning, instead of failing.
	Salvage bool
	// Warn is told about what Decode recovers from (no trailer, a salvaged
	// record, a deleted file in the maps). It may be nil.
	Warn func(msg string)
	// Input, when set, is the input itself, from its first byte, readable
	// at any offset (a regular file, not compressed). Tally then reads a
	// record it must compare with a stack whose raw PCs were not kept
	// back from it, and spills nothing. Decode and Stream do not use it.
	Input io.ReaderAt
	// SizeHint, when not 0, is the input's expected size in bytes. Stream
	// and Tally size their stack table's growth by it; a wrong hint costs
	// memory or time, never correctness.
	SizeHint int64
}

// Info describes the file Decode read, for `pprofx inspect`.
type Info struct {
	Layout       Layout
	HeaderWords  int      // the header-words slot (3 as written by gperftools)
	PeriodMicros uint64   // sampling period in microseconds
	Records      int      // records read, the trailer excluded
	TotalCount   uint64   // sum of the records' sample counts
	Stacks       int      // distinct stacks after summing identical records
	Locations    int      // distinct (adjusted) addresses
	MaxDepth     int      // largest num_pcs of a record
	Mappings     int      // executable mappings found in the maps text
	Unmapped     int      // locations outside every mapping
	Trailer      bool     // the (0, 1, 0) trailer was found
	Salvaged     bool     // a cut or bad record was dropped (Options.Salvage)
	DataBytes    int64    // bytes of the binary part: header, records, trailer
	MapsBytes    int64    // bytes of the maps text after the trailer
	Deleted      []string // mapped files whose maps line ended in " (deleted)"
}

// DropFrames is the regexp of the profiler's own frames, as google/pprof
// sets it for this format. Decode stores it as the profile's drop_frames;
// it removes nothing itself.
const DropFrames = `ProfileData::Add|ProfileData::prof_handler|CpuProfiler::prof_handler|__pthread_sighandler|__restore`

// maxPCs bounds num_pcs: gperftools writes at most 64 (kMaxStackDepth); a
// larger value than this is not a stack.
const maxPCs = 1 << 24

// Decode reads a gperftools CPU profile from r. Samples are one per distinct
// stack, in first-seen order, with values [count, count × period ns] under
// sample types samples/count and cpu/nanoseconds. Every non-leaf PC is a
// return address and is decreased by one (a PC of 0 stays 0).
func Decode(r io.Reader, opts Options) (*model.Profile, *Info, error) {
	d := &decoder{rd: newReader(r), opts: opts, info: &Info{}}
	p, err := d.decode()
	if err != nil {
		return nil, nil, err
	}
	return p, d.info, nil
}

type decoder struct {
	rd   *reader
	opts Options
	info *Info
	lay  Layout

	res        *resolver        // the stacks' frames and locations
	nframes    int              // frames of the stacks
	byAdjusted map[string]int32 // adjusted addresses -> stack, for stacks with a non-leaf PC 0 or 1
	tabs       [2]*rawTable     // raw PC bytes of a record -> the table's own stack number; a record's table is d.table(raw)
	glob       [2][]int32       // the tables' stack numbers -> stack (= sample) index
	counts     []uint64         // per stack
	pre        prefetched
	periodN    int64
	parTried   bool // the records were read in parallel from some point on (see parallel)
}

func (d *decoder) warn(format string, args ...any) {
	if d.opts.Warn != nil {
		d.opts.Warn(fmt.Sprintf(format, args...))
	}
}

func (d *decoder) decode() (*model.Profile, error) {
	if err := d.header(); err != nil {
		return nil, err
	}
	d.byAdjusted = make(map[string]int32)
	d.res = newResolver(d.lay)
	defer d.res.stop()
	seed := maphash.MakeSeed()
	d.tabs[0] = newRawTable(d.lay, seed) // tabs[1] when reading in parallel
	if err := d.records(); err != nil {
		return nil, err
	}
	d.info.DataBytes = d.rd.off
	d.res.finish()
	d.tabs, d.glob = [2]*rawTable{}, [2][]int32{} // the keys are no longer needed
	var maps []mapping
	if d.info.Trailer {
		var err error
		if maps, err = d.mapsText(); err != nil {
			return nil, err
		}
	}
	return d.build(maps)
}

func (d *decoder) header() error {
	rd := d.rd
	n := rd.fill(24)
	if err := rd.readErr(); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("empty file: no gperftools CPU profile header (the profiled process may have died before the profiler first wrote to it)")
	}
	head := rd.peek(n)
	lay, ok := DetectLayout(head)
	if !ok {
		if n < 24 && looksShortHeader(head) {
			return fmt.Errorf("header cut at byte %d: a gperftools CPU profile header needs at least 12 bytes (32-bit) or 40 (64-bit)", n)
		}
		return fmt.Errorf("not a gperftools CPU profile: the first slots are not (0, header words 3..%d, version)", MaxHeaderWords-1)
	}
	d.lay = lay
	s := lay.SlotSize
	hw := lay.slot(head[s:])
	if v := lay.slot(head[2*s:]); v != 0 {
		what := ""
		if v == 1 {
			what = " (a Java CPU profile)"
		}
		return fmt.Errorf("header at byte %d: format version %d%s, only version 0 is supported", 2*s, v, what)
	}
	total := (2 + int(hw)) * s
	if got := rd.fill(total); got < total {
		if err := rd.readErr(); err != nil {
			return err
		}
		return fmt.Errorf("header cut at byte %d: %d header words need %d bytes", got, hw, total)
	}
	h := rd.peek(total)
	period := lay.slot(h[3*s:])
	rd.skip(total)
	d.info.Layout = lay
	d.info.HeaderWords = int(hw)
	d.info.PeriodMicros = period
	if period == 0 {
		return fmt.Errorf("header at byte %d: sampling period is 0", 3*s)
	}
	if period > math.MaxInt64/1000 {
		return fmt.Errorf("header at byte %d: sampling period %d µs overflows int64 nanoseconds", 3*s, period)
	}
	d.periodN = int64(period) * 1000
	return nil
}

// looksShortHeader reports whether a head too short for DetectLayout could
// still be the start of a header: all the slots it holds are plausible.
func looksShortHeader(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	for _, b := range head[:min(len(head), 4)] {
		if b != 0 {
			return false
		}
	}
	return true
}

// recordError is a record that cannot be read; Salvage recovers from it.
type recordError struct{ msg string }

func (e *recordError) Error() string { return e.msg }

func (d *decoder) records() error {
	err := d.recordLoop()
	if err == nil {
		return nil
	}
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

func (d *decoder) recordLoop() error {
	rd, lay := d.rd, d.lay
	s := lay.SlotSize
	maxCount := uint64(math.MaxInt64 / d.periodN)
	for {
		if d.pre.i == d.pre.n {
			if !d.parTried && rd.off >= parThreshold {
				d.parTried = true
				if err := d.parallel(); err != nil {
					return err
				}
			}
			d.prefetch()
		}
		at, count, raw, done, err := d.nextRecord()
		if done || err != nil {
			return err
		}
		// Check the count before a new stack is interned, so that a
		// salvaged file never holds a stack without its record.
		w := d.table(raw)
		t := d.tabs[w]
		var h uint64
		if d.pre.i < d.pre.n {
			h = d.pre.hash[d.pre.i]
			d.pre.i++
		} else {
			h = t.hash(raw)
		}
		idx := t.find(h, raw)
		ok := idx >= 0
		var sum uint64
		if ok {
			idx = d.glob[w][idx]
			sum = d.counts[idx]
		}
		if count > maxCount-sum {
			return d.recErr(at, "the summed count of its stack × period %d ns overflows int64", d.periodN)
		}
		if !ok {
			var err error
			if idx, err = d.newStack(raw, w, h, nil, at); err != nil {
				return err
			}
			// A new raw stack can equal a known one once adjusted
			// (non-leaf PCs 0 and 1 both become 0).
			if count > maxCount-d.counts[idx] {
				return d.recErr(at, "the summed count of its stack × period %d ns overflows int64", d.periodN)
			}
		}
		d.counts[idx] += count
		d.counted(count, len(raw)/s)
	}
}

// nextRecord reads the next record: its offset, count and PCs (raw, valid
// until the next read). done is set at the trailer, or at an end of the
// input with no trailer (warned: a profile flushed but not stopped).
func (d *decoder) nextRecord() (at int64, count uint64, raw []byte, done bool, err error) {
	rd, lay := d.rd, d.lay
	s := lay.SlotSize
	at = rd.off
	n := rd.fill(2 * s)
	if err := rd.readErr(); err != nil {
		return at, 0, nil, false, err
	}
	if n == 0 {
		d.warn("no trailer after %d records (byte %d): the profile was flushed but not stopped, or its writer died; it has no mappings", d.info.Records, at)
		return at, 0, nil, true, nil
	}
	if n < 2*s {
		return at, 0, nil, false, d.recErr(at, "cut after %d of its first %d bytes", n, 2*s)
	}
	hd := rd.peek(2 * s)
	count, npcs := lay.slot(hd), lay.slot(hd[s:])
	if npcs == 0 {
		return at, 0, nil, false, d.recErr(at, "num_pcs is 0")
	}
	if npcs > maxPCs {
		return at, 0, nil, false, d.recErr(at, "num_pcs %d is larger than the limit %d", npcs, maxPCs)
	}
	need := int(npcs) * s
	if rem, ok := rd.remaining(); ok && int64(need) > rem-int64(2*s) {
		return at, 0, nil, false, d.recErr(at, "num_pcs %d needs %d bytes, only %d remain", npcs, need, rem-int64(2*s))
	}
	rd.skip(2 * s)
	raw, got := rd.read(need)
	if err := rd.readErr(); err != nil {
		return at, 0, nil, false, err
	}
	if got < need {
		return at, 0, nil, false, d.recErr(at, "num_pcs %d needs %d bytes, only %d remain", npcs, need, got)
	}
	if count == 0 {
		if npcs == 1 && lay.slot(raw) == 0 {
			d.info.Trailer = true
			return at, 0, nil, true, nil
		}
		return at, 0, nil, false, d.recErr(at, "sample count is 0")
	}
	return at, count, raw, false, nil
}

// counted adds a record of this count and depth to Info.
func (d *decoder) counted(count uint64, depth int) {
	d.info.Records++
	if d.info.TotalCount += count; d.info.TotalCount < count {
		d.info.TotalCount = math.MaxUint64 // saturate; only Info shows it
	}
	d.info.MaxDepth = max(d.info.MaxDepth, depth)
}

func (d *decoder) recErr(at int64, format string, args ...any) error {
	return &recordError{fmt.Sprintf("record %d at byte %d: %s", d.info.Records+1, at, fmt.Sprintf(format, args...))}
}

// newStack interns the stack of a record not seen before. raw is its PCs,
// h their hash, w their table (d.table(raw)). added is their key when a worker
// of parallel has already added them to that table, and a nil key when it
// could not; nil to add them here. Only the stack's index is decided here;
// its frames are made by the resolver, in stack order, which numbers the
// locations exactly as interning them here would.
func (d *decoder) newStack(raw []byte, w int, h uint64, added *resKey, at int64) (int32, error) {
	lay := d.lay
	s := lay.SlotSize
	n := len(raw) / s
	if d.nframes+n > math.MaxInt32 {
		return 0, d.recErr(at, "more than %d frames in all", math.MaxInt32)
	}
	// Distinct raw stacks are distinct once adjusted, except that non-leaf
	// PCs 0 and 1 both become 0: only stacks holding one can collide, and
	// they are looked up by their adjusted addresses.
	var adj []byte
	for i := 1; i < n; i++ {
		if lay.slot(raw[i*s:]) <= 1 {
			adj = make([]byte, 0, 8*n)
			for j := 0; j < n; j++ {
				pc := lay.slot(raw[j*s:])
				if j > 0 && pc > 0 {
					pc-- // a return address: point into the call instruction
				}
				adj = binary.LittleEndian.AppendUint64(adj, pc)
			}
			break
		}
	}
	idx, ok := int32(0), false
	if adj != nil {
		idx, ok = d.byAdjusted[string(adj)]
	}
	if !ok {
		idx = int32(len(d.counts))
	}
	var key resKey
	if added != nil {
		key = *added
	} else if ref, ok := d.tabs[w].add(h, raw); ok {
		key = resKey{d.tabs[w].keyAt(ref), ref&compactRef != 0}
	}
	if key.b == nil {
		return 0, d.recErr(at, "the distinct stacks need more than %d GiB", (maxChunks*maxChunk)>>30)
	}
	d.glob[w] = append(grow(d.glob[w], 1), idx)
	if !ok {
		d.counts = append(grow(d.counts, 1), 0)
		d.res.add(key.b, key.compact)
		d.nframes += n
		if adj != nil {
			d.byAdjusted[string(adj)] = idx
		}
	}
	return idx, nil
}

func (d *decoder) build(maps []mapping) (*model.Profile, error) {
	p := buildTables(d.info, maps, d.res.locs.addrs, d.periodN)
	p.Stacks = d.res.stacks
	vals := make([]int64, 2*len(d.counts))
	p.Samples = make([]model.Sample, len(d.counts))
	for i, c := range d.counts {
		v := vals[2*i : 2*i+2 : 2*i+2]
		v[0], v[1] = int64(c), int64(c)*d.periodN
		p.Samples[i] = model.NewSample(int32(i), v)
	}
	d.info.Stacks = len(d.counts)
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("internal error: decoded profile is invalid: %v", err)
	}
	return p, nil
}

// isSharedLibrary reports whether a file name looks like a shared library
// (name.so, name.so.6, name.so_1), so that it is not taken for the main binary.
func isSharedLibrary(file string) bool {
	base := file[strings.LastIndexByte(file, '/')+1:]
	if strings.HasSuffix(base, ".so") {
		return true
	}
	for i := 0; ; {
		j := strings.Index(base[i:], ".so")
		if j < 0 {
			return false
		}
		k := i + j + 3
		if k+1 < len(base) && (base[k] == '.' || base[k] == '_') && base[k+1] >= '0' && base[k+1] <= '9' {
			return true
		}
		i = k
	}
}

// prefetched holds the hashes of the next records, computed ahead so that
// their table slots and keys are loaded from memory in parallel rather than
// one cache miss after another: on a large profile the lookups are
// memory-bound.
type prefetched struct {
	hash [16]uint64
	klen [16]uint32 // bytes of the record's PCs
	half [16]uint8  // the record's table
	i, n int
	sink uint64
}

// prefetch hashes the records that are whole in the read buffer (up to 16)
// and touches their slots and keys. It only reads ahead; the record loop
// checks every record as usual and takes the hashes in order.
func (d *decoder) prefetch() {
	pre := &d.pre
	pre.i, pre.n = 0, 0
	rd, lay := d.rd, d.lay
	s := lay.SlotSize
	buf := rd.buf[rd.lo:rd.hi]
	for pre.n < len(pre.hash) && len(buf) >= 2*s {
		npcs := lay.slot(buf[s:])
		if npcs == 0 || npcs > uint64(len(buf)/s-2) {
			break
		}
		end := (2 + int(npcs)) * s
		raw := buf[2*s : end]
		pre.half[pre.n] = uint8(d.table(raw))
		pre.hash[pre.n] = d.tabs[0].hash(raw) // the tables share their seed
		pre.klen[pre.n] = uint32(end - 2*s)
		pre.n++
		buf = buf[end:]
	}
	for k := range pre.n {
		pre.sink += d.tabs[pre.half[k]].touch(pre.hash[k:k+1], pre.klen[k:k+1])
	}
}

// grow returns s with room for n more elements, doubling its capacity when
// it must grow.
func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	g := make([]T, len(s), max(2*cap(s), len(s)+n, 256))
	copy(g, s)
	return g
}
