package dwarfread

import (
	"bufio"
	"debug/dwarf"
	"debug/elf"
	ebin "encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pprofx/pprofx/internal/symbolize/catch"
)

// lazySection is a DWARF section read (and decompressed) only as far as
// asked: a compressed stream cannot be entered in the middle, but it can
// be stopped early, and what is not needed can be passed over without
// being kept. data has the section's full size from the start (pages never
// written cost no memory); the stream has been read up to n, and data[:n]
// holds the section's bytes except where they were skipped (left zero).
// pend holds bytes read ahead, those at n onwards.
type lazySection struct {
	data    []byte
	n       int
	pend    []byte
	rd      io.Reader
	close   func()
	err     error
	scratch []byte
	// inf decodes zlib-compressed sections straight into data (n is then
	// how far it has got, and nothing is skipped).
	inf inflater
}

// errBeyond is an offset past a section's end.
var errBeyond = errors.New("offset beyond the end of the section")

// lazySection opens a section for reading on demand. The compression
// header is checked as sectionData checks it; zlib streams are inflated
// without their checksum (the bytes are checked as DWARF as they are read).
//
// budget is what the sections opened may still take in memory (their
// decompressed sizes, and the compressed bytes read whole): a header that
// claims more is left to the whole read (which reads it as before), so that
// a damaged file does not make both readings allocate what it claims.
//
// Its buffers come from ar.
func (b *File) lazySection(s *elf.Section, budget *uint64, ar *arena) (*lazySection, error) {
	take := func(n uint64) error {
		if n > *budget {
			return errors.New("sections larger than the lazy reading takes on")
		}
		*budget -= n
		return nil
	}
	compressed := s.Flags&elf.SHF_COMPRESSED != 0
	zdebug := strings.HasPrefix(s.Name, ".zdebug_")
	if s.FileSize > uint64(b.size) || s.Offset > uint64(b.size)-s.FileSize {
		return nil, errors.New("beyond the end of the file")
	}
	if !compressed && !zdebug {
		if s.Size != s.FileSize {
			return nil, errors.New("size differs from file size")
		}
		if err := take(s.Size); err != nil {
			return nil, err
		}
		return &lazySection{data: ar.take(int(s.Size)), pend: make([]byte, 0, 32),
			rd: io.NewSectionReader(b.r, int64(s.Offset), int64(s.Size))}, nil
	}
	typ, size, skip, err := b.compression(s, compressed)
	if err != nil {
		return nil, err
	}
	clen := s.FileSize - skip
	if err := take(size); err != nil {
		return nil, err
	}
	l := &lazySection{data: ar.take(int(size)), pend: make([]byte, 0, 32)}
	switch elf.CompressionType(typ) {
	case elf.COMPRESS_ZLIB:
		// RFC 1950's two-byte header, then a deflate stream, read whole
		// and decoded by an inflater.
		if err := take(clen); err != nil {
			return nil, err
		}
		in := ar.take(int(clen))
		if _, err := b.r.ReadAt(in, int64(s.Offset+skip)); err != nil {
			return nil, err
		}
		if len(in) < 2 || in[0]&0x0f != 8 || (uint(in[0])<<8|uint(in[1]))%31 != 0 || in[1]&0x20 != 0 {
			return nil, errors.New("bad zlib header")
		}
		l.inf = newInflater(in[2:], l.data)
		return l, nil
	case elf.COMPRESS_ZSTD:
		src := bufio.NewReaderSize(io.NewSectionReader(b.r, int64(s.Offset+skip), int64(clen)), 64<<10)
		zr, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		l.rd, l.close = zr, zr.Close
	default:
		return nil, fmt.Errorf("unknown compression %d", typ)
	}
	return l, nil
}

// bufferClaim is what lazySection allocates for s, as its headers claim
// (a damaged header's claim is refused there, and counts here as nothing).
func (b *File) bufferClaim(s *elf.Section) uint64 {
	compressed := s.Flags&elf.SHF_COMPRESSED != 0
	if !compressed && !strings.HasPrefix(s.Name, ".zdebug_") {
		return min(s.Size, maxSectionSize)
	}
	typ, size, skip, err := b.compression(s, compressed)
	if err != nil || s.FileSize < skip {
		return 0
	}
	if elf.CompressionType(typ) == elf.COMPRESS_ZLIB {
		return size + min(s.FileSize-skip, maxSectionSize)
	}
	return size
}

// ensure makes data[:end] readable (end must not be below a part
// skipped). Compressed data is read at least 128 KB at a time.
func (l *lazySection) ensure(end uint64) error {
	return l.store(end, 128<<10)
}

// store reads the stream into data up to end at least, and ahead to
// n+ahead.
func (l *lazySection) store(end uint64, ahead int) error {
	if end > uint64(len(l.data)) {
		return errBeyond
	}
	if int(end) <= l.n {
		return nil
	}
	if l.inf != nil {
		if l.err == nil {
			l.n, l.err = l.inf.inflate(min(max(int(end), l.n+ahead), len(l.data)))
		}
		return l.err
	}
	l.n += copy(l.data[l.n:], l.pend)
	l.pend = l.pend[:0]
	if int(end) <= l.n {
		return nil
	}
	return l.read(l.data[l.n:min(max(int(end), l.n+ahead), len(l.data))])
}

// read reads the next len(p) bytes of the stream into p.
func (l *lazySection) read(p []byte) error {
	if l.err != nil {
		return l.err
	}
	k, err := io.ReadFull(l.rd, p)
	l.n += k
	if err != nil {
		l.err = fmt.Errorf("decompressing: %v", err)
		l.release()
		return l.err
	}
	if l.n == len(l.data) {
		l.release()
	}
	return nil
}

// peek returns the k bytes at off, the stream's position, without
// storing them (except where the section is decoded into data anyway).
func (l *lazySection) peek(off uint64, k int) ([]byte, error) {
	if l.inf != nil {
		if err := l.store(off+uint64(k), 0); err != nil {
			return nil, err
		}
		return l.data[off : off+uint64(k)], nil
	}
	if off != uint64(l.n) {
		return nil, errors.New("peek away from the stream's position")
	}
	if k > len(l.data)-l.n {
		return nil, errBeyond
	}
	for len(l.pend) < k {
		if l.err != nil {
			return nil, l.err
		}
		m, err := io.ReadFull(l.rd, l.pend[len(l.pend):k])
		l.pend = l.pend[:len(l.pend)+m]
		if err != nil {
			l.err = fmt.Errorf("decompressing: %v", err)
			l.release()
			return nil, l.err
		}
	}
	return l.pend[:k], nil
}

// skip moves the stream on to end without keeping what it passes over.
func (l *lazySection) skip(end uint64) error {
	if end > uint64(len(l.data)) {
		return errBeyond
	}
	if l.inf != nil {
		return l.store(end, 0)
	}
	if k := int(end) - l.n; k < len(l.pend) {
		l.n = int(end)
		l.pend = l.pend[:copy(l.pend, l.pend[k:])]
		return nil
	}
	l.n += len(l.pend)
	l.pend = l.pend[:0]
	if l.scratch == nil {
		l.scratch = make([]byte, 32<<10)
	}
	for l.n < int(end) {
		if err := l.read(l.scratch[:min(len(l.scratch), int(end)-l.n)]); err != nil {
			return err
		}
	}
	return nil
}

// all reads the whole section.
func (l *lazySection) all() ([]byte, error) {
	if err := l.ensure(uint64(len(l.data))); err != nil {
		return nil, err
	}
	return l.data, nil
}

func (l *lazySection) release() {
	if l.close != nil {
		l.close()
		l.close = nil
	}
	l.rd = nil
}

// arange is one address range .debug_aranges gives a unit.
type arange struct {
	lo, hi uint64
	unit   uint64 // the unit's offset in .debug_info
}

// parseAranges reads .debug_aranges: each unit's address ranges. Anything
// unexpected (a version other than 2, segments, an odd address size) is an
// error: the caller then reads every unit, as without the table.
func parseAranges(data []byte, order ebin.ByteOrder) (rs []arange, units map[uint64]bool, err error) {
	units = map[uint64]bool{}
	for off := uint64(0); off < uint64(len(data)); {
		start := off
		ln, hl, ok := unitLength(data, off, order)
		if !ok || ln > uint64(len(data))-off-hl {
			return nil, nil, errors.New("bad .debug_aranges set length")
		}
		off += hl
		end := off + ln
		set := data[:end]
		osz := uint64(4)
		if hl == 12 {
			osz = 8
		}
		if end-off < 2+osz+2 {
			return nil, nil, errors.New("short .debug_aranges set")
		}
		if order.Uint16(set[off:]) != 2 {
			return nil, nil, errors.New("unknown .debug_aranges version")
		}
		off += 2
		var unit uint64
		if osz == 8 {
			unit = order.Uint64(set[off:])
		} else {
			unit = uint64(order.Uint32(set[off:]))
		}
		off += osz
		asize, segsize := uint64(set[off]), set[off+1]
		off += 2
		if segsize != 0 || asize != 4 && asize != 8 {
			return nil, nil, errors.New("unsupported .debug_aranges address size")
		}
		units[unit] = true
		ts := 2 * asize
		if r := (off - start) % ts; r != 0 {
			off += ts - r
		}
		for ; off+ts <= end; off += ts {
			var lo, n uint64
			if asize == 8 {
				lo, n = order.Uint64(set[off:]), order.Uint64(set[off+8:])
			} else {
				lo, n = uint64(order.Uint32(set[off:])), uint64(order.Uint32(set[off+4:]))
			}
			if lo == 0 && n == 0 {
				break
			}
			if n > 0 && lo+n > lo {
				rs = append(rs, arange{lo, lo + n, unit})
			}
		}
		off = end
	}
	return rs, units, nil
}

// unitLength reads an initial length at off: the length that follows, and
// the size of the length field itself (4, or 12 for 64-bit DWARF).
func unitLength(data []byte, off uint64, order ebin.ByteOrder) (n, hl uint64, ok bool) {
	if uint64(len(data))-off < 4 || off > uint64(len(data)) {
		return 0, 0, false
	}
	n = uint64(order.Uint32(data[off:]))
	if n < 0xfffffff0 {
		return n, 4, true
	}
	if n != 0xffffffff || uint64(len(data))-off < 12 {
		return 0, 0, false
	}
	return order.Uint64(data[off+4:]), 12, true
}

// unitHeader is a unit of .debug_info as its header describes it.
type unitHeader struct {
	off, end  uint64 // the unit's bytes, header included
	die       uint64 // its first DIE
	abbrevOff uint64
	version   uint16
	offSize   uint8 // 4, or 8 in 64-bit DWARF
	addrSize  uint8
}

// nextUnit reads the header of the unit at off, the stream's position: peeked
// at, not stored (the caller stores or skips the unit). A zero length
// (padding) gives a unit with no DIE.
func nextUnit(info *lazySection, off uint64, order ebin.ByteOrder) (u unitHeader, err error) {
	if off > uint64(len(info.data)) {
		return u, errBeyond
	}
	h, err := info.peek(off, int(min(24, uint64(len(info.data))-off)))
	if err != nil {
		return u, err
	}
	ln, hl, ok := unitLength(h, 0, order)
	if !ok || ln > uint64(len(info.data))-off-hl {
		return u, fmt.Errorf("bad unit length at %#x", off)
	}
	u.off, u.end = off, off+hl+ln
	if ln == 0 {
		return u, nil
	}
	d := h[:min(uint64(len(h)), hl+ln)]
	p := hl
	osz := uint64(4)
	if hl == 12 {
		osz = 8
	}
	u.offSize = uint8(osz)
	if uint64(len(d))-p < 2 {
		return u, fmt.Errorf("short unit at %#x", off)
	}
	u.version = order.Uint16(d[p:])
	p += 2
	var utype byte = 1 // DW_UT_compile
	switch {
	case u.version >= 2 && u.version <= 4:
		if uint64(len(d))-p < osz+1 {
			return u, fmt.Errorf("short unit at %#x", off)
		}
	case u.version == 5:
		if uint64(len(d))-p < osz+2 {
			return u, fmt.Errorf("short unit at %#x", off)
		}
		utype, u.addrSize = d[p], d[p+1]
		p += 2
	default:
		return u, fmt.Errorf("unit at %#x: DWARF version %d", off, u.version)
	}
	if osz == 8 {
		u.abbrevOff = order.Uint64(d[p:])
	} else {
		u.abbrevOff = uint64(order.Uint32(d[p:]))
	}
	p += osz
	if u.version < 5 {
		u.addrSize = d[p]
		p++
	}
	switch utype {
	case 1, 3: // compile, partial
	default: // type, skeleton and split units are not read here
		return u, fmt.Errorf("unit at %#x: unit type %d", off, utype)
	}
	u.die = off + p
	return u, nil
}

// abbrevEnd returns the end of the abbreviation table at off, making the
// section readable up to there: as far as the table is found to reach,
// the bytes read doubled each time it goes on past them.
func abbrevEnd(ab *lazySection, off uint64) (uint64, error) {
	size := uint64(len(ab.data))
	if off >= size {
		return 0, errBeyond
	}
	for want := min(off+4<<10, size); ; want = min(off+2*(want-off), size) {
		if err := ab.ensure(want); err != nil {
			return 0, err
		}
		n, err := parseAbbrevs(ab.data[off:max(want, uint64(ab.n))], nil)
		switch {
		case err == nil:
			return off + uint64(n), nil
		case want == size:
			return 0, err
		}
	}
}

// lazyBudget bounds the lazy reading's sections at this many times the
// file's size.
const lazyBudget = 16

// errFull says a lazily read table needs the whole DWARF after all.
var errFull = errors.New("DWARF needed beyond the units read")

// lazyDWARF reads the part of a binary's DWARF that can hold addrs
// (sorted, distinct): .debug_aranges names the unit of each address, and
// only the units named (and any unit the table does not list) are read,
// with their abbreviations and line tables; compressed sections are
// inflated only as far as the last of those. The table answers exactly as
// one over the whole DWARF (lookup returns errFull where it could not),
// provided .debug_aranges lists each unit's ranges, as compilers write it.
// Any error means: read the whole DWARF instead.
func (b *File) lazyDWARF(addrs []uint64) (t *Table, err error) {
	defer catch.Recover(&err)
	if b.ef.Type == elf.ET_REL {
		return nil, errFull
	}
	r := newLazyRead(b)
	if r.secs["aranges"] == nil || r.secs["info"] == nil || r.secs["abbrev"] == nil {
		return nil, errFull
	}
	ard, err := r.all("aranges")
	if err != nil {
		return nil, err
	}
	ars, listed, err := parseAranges(ard, r.order)
	if err != nil {
		return nil, err
	}
	plan := planUnits(addrs, ars, listed)
	if r.info, err = r.open("info"); err != nil {
		return nil, err
	}
	defer r.ahead.Wait()
	if len(plan.wanted) > 0 {
		if err := r.readAhead(plan); err != nil {
			return nil, err
		}
	}
	// While this goroutine inflates .debug_info on, another walks each
	// unit wanted as soon as its bytes are there (unitWalker), with the
	// sections read ahead once that is done.
	var uw *unitWalker
	if pipelineUnits && r.abbrev != nil && len(plan.wanted) > 0 {
		uw = startWalker(addrs, len(plan.wanted), &r.ahead, &r.smallErr, r.unitTable)
		defer uw.stop()
	}
	units, off, err := r.readUnits(plan, &uw)
	if err != nil {
		return nil, err
	}
	t = &Table{names: map[dwarf.Offset]funcName{}, lazy: true, units: units, order: r.order}
	t.rest = func() error { return r.rest(&off, plan.listed) }
	if len(units) == 0 {
		return t, nil
	}
	if uw != nil {
		// The walk's answers, unless it met an error or found it needs
		// more (errFull): lookup then walks again, as without the walker.
		uw.stop()
		if uw.err == nil {
			t.pipe, t.pipeFor, t.lineErr = uw.out, addrs, uw.lineErr
		}
	}
	r.ahead.Wait()
	if err := r.finish(t, units); err != nil {
		return nil, err
	}
	return t, nil
}

// lazyRead is one lazy reading of a binary's DWARF (lazyDWARF): its
// sections, opened as they are needed within a memory budget, and the
// goroutine that reads some of them ahead.
type lazyRead struct {
	b     *File
	secs  map[string]*elf.Section
	order ebin.ByteOrder
	// budget is what the sections may still take: real debug sections
	// inflate to a few times the file at most (libc's debug file: about
	// 2.5 times).
	budget uint64
	// ar holds the sections' buffers, as large as they claim
	// (decompressed, and zlib's compressed bytes, which are read whole),
	// up to the budget.
	ar *arena

	info, abbrev, line *lazySection
	// small are the other sections, read whole, at their places in
	// dwarfSections; smallSecs, those opened for the goroutine ahead to
	// read, and smallErr what it met.
	small     [][]byte
	smallSecs []*lazySection
	smallErr  error
	ahead     sync.WaitGroup
}

func newLazyRead(b *File) *lazyRead {
	r := &lazyRead{b: b, secs: dwarfSectionsOf(b.ef), order: b.ef.ByteOrder,
		budget:    uint64(lazyBudget) * uint64(b.size),
		small:     make([][]byte, len(dwarfSections)),
		smallSecs: make([]*lazySection, len(dwarfSections))}
	need := uint64(0)
	for _, name := range append([]string{"aranges"}, dwarfSections...) {
		if s := r.secs[name]; s != nil {
			need += b.bufferClaim(s)
		}
	}
	r.ar = newArena(min(need, r.budget))
	return r
}

// open opens the section name for reading on demand (nil if absent).
func (r *lazyRead) open(name string) (*lazySection, error) {
	s := r.secs[name]
	if s == nil {
		return nil, nil
	}
	return r.b.lazySection(s, &r.budget, r.ar)
}

// all reads the section name whole (nil if absent).
func (r *lazyRead) all(name string) ([]byte, error) {
	l, err := r.open(name)
	if l == nil || err != nil {
		return nil, err
	}
	return l.all()
}

// unitPlan is which units of .debug_info a lazy reading reads.
type unitPlan struct {
	wanted map[uint64]bool // the units holding an address, by offset
	listed map[uint64]bool // the units .debug_aranges lists
	last   uint64          // the last unit wanted
	// uncovered: some address is in no unit listed, so that every unit
	// the table does not list, to the end, is read.
	uncovered bool
}

// planUnits finds, from .debug_aranges' ranges, the units that hold addrs.
func planUnits(addrs []uint64, ars []arange, listed map[uint64]bool) unitPlan {
	p := unitPlan{wanted: map[uint64]bool{}, listed: listed}
	covered := make([]bool, len(addrs))
	for _, r := range ars {
		i := sort.Search(len(addrs), func(i int) bool { return addrs[i] >= r.lo })
		if i < len(addrs) && addrs[i] < r.hi {
			p.wanted[r.unit] = true
		}
		for ; i < len(addrs) && addrs[i] < r.hi; i++ {
			covered[i] = true
		}
	}
	for u := range p.wanted {
		p.last = max(p.last, u)
	}
	for _, c := range covered {
		p.uncovered = p.uncovered || !c
	}
	return p
}

// readAhead opens the sections the units need besides .debug_info, and
// starts a goroutine (r.ahead) that, while this one inflates .debug_info
// up to the units wanted, reads the sections needed whole and inflates
// .debug_abbrev and .debug_line ahead, as far into each as the last unit
// wanted lies into .debug_info (their tables come in the units' order, as
// the linker joins the objects' sections). What the units need beyond that
// is read afterwards (finish); an error ahead stays in its section, where
// a read that needs those bytes finds it.
func (r *lazyRead) readAhead(plan unitPlan) (err error) {
	if r.abbrev, err = r.open("abbrev"); err != nil {
		return err
	}
	for i, name := range dwarfSections {
		if name != "info" && name != "line" && name != "abbrev" {
			if r.smallSecs[i], err = r.open(name); err != nil {
				return err
			}
		}
	}
	if r.line, err = r.open("line"); err != nil {
		return err
	}
	frac := 1.0
	if !plan.uncovered && len(r.info.data) > 0 {
		frac = float64(plan.last) / float64(len(r.info.data))
	}
	r.ahead.Add(1)
	go func() {
		defer r.ahead.Done()
		defer catch.Recover(&r.smallErr)
		for i, l := range r.smallSecs {
			if l != nil && r.smallErr == nil {
				r.small[i], r.smallErr = l.all()
			}
		}
		for _, l := range []*lazySection{r.abbrev, r.line} {
			if l != nil {
				_ = l.store(uint64(frac*float64(len(l.data))), 0)
			}
		}
	}()
	return nil
}

// newData makes the standard reader over infoData, whole units, and the
// other sections as read.
func (r *lazyRead) newData(infoData []byte) (*dwarf.Data, *lineSecs, error) {
	secs := slices.Clone(r.small) // the small sections, at their places
	secs[0], secs[1] = r.abbrev.data, infoData
	if r.line != nil {
		secs[3] = r.line.data
	}
	d, err := newDWARF(secs)
	return d, lineNamesOf(secs, r.order), err
}

// unitTable makes the table the unit walker walks unit u with: the unit
// alone, at offset 0 of a reader of its own, its references to itself
// (ref_addr, which could name another unit, is refused).
func (r *lazyRead) unitTable(u unitHeader) (*Table, error) {
	if _, err := abbrevEnd(r.abbrev, u.abbrevOff); err != nil {
		return nil, err
	}
	ub := r.info.data[u.off:u.end]
	su := unitHeader{off: 0, end: u.end - u.off, die: u.die - u.off, abbrevOff: u.abbrevOff,
		version: u.version, offSize: u.offSize, addrSize: u.addrSize}
	if sc, err := newDieScanner(ub, r.abbrev.data, su, r.order); err != nil || sc.refs {
		return nil, errFull
	}
	d, lines, err := r.newData(ub)
	if err != nil {
		return nil, err
	}
	return &Table{d: d, names: map[dwarf.Offset]funcName{}, rd: d.Reader(), lazy: true,
		units: []unitHeader{su}, line: r.line, order: r.order, info: ub, abbrev: r.abbrev.data, lines: lines}, nil
}

// readUnits inflates .debug_info as far as the units to read, storing
// those and passing over the others: the units named for an address, and
// those the table does not list (whose ranges only the unit itself can
// tell), from the start up to the last one named, or to the end if an
// address is in none listed. Each unit named is sent to the walker *uw as
// soon as it is stored; a unit not listed stops the walker (lookup walks
// them all). It returns the units read, and where it stopped.
func (r *lazyRead) readUnits(plan unitPlan, uw **unitWalker) (units []unitHeader, off uint64, err error) {
	seen := 0
	for off < uint64(len(r.info.data)) && (plan.uncovered || off <= plan.last) {
		u, err := nextUnit(r.info, off, r.order)
		if err != nil {
			return nil, 0, err
		}
		if u.die != 0 && (plan.wanted[off] || !plan.listed[off]) {
			if !plan.wanted[off] && *uw != nil {
				(*uw).stop()
				*uw = nil
			}
			units = append(units, u)
			err = r.info.store(u.end, 0)
			if err == nil && *uw != nil {
				(*uw).ready <- u
			}
		} else {
			err = r.info.skip(u.end)
		}
		if err != nil {
			return nil, 0, err
		}
		if plan.wanted[off] {
			seen++
		}
		off = u.end
	}
	if seen != len(plan.wanted) {
		return nil, 0, errors.New(".debug_aranges names a unit that is not there")
	}
	return units, off, nil
}

// rest checks, for an address no unit read answered, that no unit from
// *off on could have, had the whole DWARF been read: only one not listed
// in .debug_aranges can (errFull). *off moves on with .debug_info's
// stream, as far as rest has passed over.
func (r *lazyRead) rest(off *uint64, listed map[uint64]bool) error {
	for *off < uint64(len(r.info.data)) {
		u, err := nextUnit(r.info, *off, r.order)
		if err != nil {
			return err
		}
		if u.die != 0 && !listed[*off] {
			return errFull
		}
		if err := r.info.skip(u.end); err != nil {
			return err
		}
		*off = u.end
	}
	return nil
}

// finish makes t's standard reader over the units read, once the
// goroutine ahead is done: it reads the other sections if nothing was read
// ahead (units the table does not list, and none it does), the units'
// abbreviations, and makes each run of units in between one unit of no
// interest (patchGap), so that only the units read are parsed.
func (r *lazyRead) finish(t *Table, units []unitHeader) (err error) {
	if r.abbrev == nil {
		if r.abbrev, err = r.open("abbrev"); err != nil {
			return err
		}
		for i, name := range dwarfSections {
			if name != "info" && name != "line" && name != "abbrev" {
				if r.small[i], err = r.all(name); err != nil {
					return err
				}
			}
		}
		if r.line, err = r.open("line"); err != nil {
			return err
		}
	} else if r.smallErr != nil {
		return r.smallErr
	}
	for _, u := range units {
		if _, err := abbrevEnd(r.abbrev, u.abbrevOff); err != nil {
			return err
		}
	}
	prev := uint64(0)
	for _, u := range units {
		if err := patchGap(r.info.data, prev, u.off, units[0].abbrevOff, r.order); err != nil {
			return err
		}
		prev = u.end
	}
	if units[0].abbrevOff != uint64(uint32(units[0].abbrevOff)) {
		return errors.New("64-bit abbreviation offset")
	}
	d, lines, err := r.newData(r.info.data[:prev])
	if err != nil {
		return err
	}
	t.d, t.rd, t.line, t.lines = d, d.Reader(), r.line, lines
	t.info, t.abbrev = r.info.data[:prev], r.abbrev.data
	return nil
}

// patchGap makes the bytes of .debug_info between two units read, from
// prev to off, one unit of no interest to the standard reader: a header
// (DWARF 4, 32-bit) and nothing read. Its abbreviation offset is that of
// the first unit read.
func patchGap(info []byte, prev, off, abbrevOff uint64, order ebin.ByteOrder) error {
	gap := off - prev
	if gap == 0 {
		return nil
	}
	if gap < 11 || gap-4 >= 0xfffffff0 {
		return errors.New("odd gap between units")
	}
	if abbrevOff != uint64(uint32(abbrevOff)) {
		return errors.New("64-bit abbreviation offset")
	}
	h := info[prev : prev+11]
	order.PutUint32(h, uint32(gap-4))
	order.PutUint16(h[4:], 4)
	order.PutUint32(h[6:], uint32(abbrevOff))
	h[10] = 8
	return nil
}

// readLines makes .debug_line readable as far as unit cu's line table.
func (t *Table) readLines(cu *dwarf.Entry) error {
	off, ok := cu.Val(dwarf.AttrStmtList).(int64)
	if !ok || off < 0 || uint64(off) >= uint64(len(t.line.data)) {
		return nil // as the whole section would answer
	}
	o := uint64(off)
	if err := t.line.ensure(min(o+12, uint64(len(t.line.data)))); err != nil {
		return err
	}
	n, hl, ok := unitLength(t.line.data[:t.line.n], o, t.order)
	if !ok || n > uint64(len(t.line.data))-o-hl {
		return errors.New("bad line table length")
	}
	return t.line.ensure(o + hl + n)
}

// dwarfSectionsOf returns a binary's DWARF sections by name without the
// .debug_ (or .zdebug_) prefix: the first of each name with bytes.
func dwarfSectionsOf(ef *elf.File) map[string]*elf.Section {
	secs := map[string]*elf.Section{}
	for _, s := range ef.Sections {
		var suffix string
		switch {
		case strings.HasPrefix(s.Name, ".debug_"):
			suffix = s.Name[7:]
		case strings.HasPrefix(s.Name, ".zdebug_"):
			suffix = s.Name[8:]
		default:
			continue
		}
		if _, ok := secs[suffix]; !ok && s.Type != elf.SHT_NOBITS {
			secs[suffix] = s
		}
	}
	return secs
}
