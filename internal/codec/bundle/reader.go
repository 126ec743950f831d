package bundle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/pprofx/pprofx/internal/memlimit"
	"github.com/pprofx/pprofx/internal/model"
)

// Reader reads profiles from a bundle. Open reads the header, the footer and
// the index; the shared tables are read the first time a profile is, and
// each profile reads only its own section besides them. A Reader is safe
// for concurrent use.
type Reader struct {
	r       io.ReaderAt
	size    int64
	version uint32
	entries []Entry

	tablesOff, tablesLen, tablesRaw uint64
	limit                           int64
	totalLimit                      int64        // 0: none
	spent                           atomic.Int64 // what the profiles read so far expanded to
	mem                             memlimit.Limit

	mu     sync.Mutex
	t      *tables
	tErr   error
	loaded bool
	// hollow: the tables were read, and counted, for summaries only
	// (hollowMem); a whole profile read from them counts the rest first.
	hollow bool
}

// DefaultLimit is the default bound on what one profile of a bundle
// expands to: its blocks decompressed and its tables and samples in memory.
const DefaultLimit = 2 << 30

// Open reads the index of the bundle of the given size in r, with
// DefaultLimit.
func Open(r io.ReaderAt, size int64) (*Reader, error) { return OpenLimit(r, size, DefaultLimit) }

// OpenLimit reads the index of the bundle of the given size in r. limit
// (--max-input-size) bounds what reading one profile may expand to: the
// index, the shared tables and the profile's section decompressed, and
// what the section's samples take in memory (each sample's values are its
// own, however few bytes the section spends on a sample that repeats a
// row). A bundle is bounded by what it expands to, not by its file size.
func OpenLimit(r io.ReaderAt, size, limit int64) (*Reader, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	if size < headerSize+footerSize {
		var head [8]byte
		n, _ := r.ReadAt(head[:min(int64(8), max(size, 0))], 0)
		if !IsBundle(head[:n]) {
			return nil, ErrNotBundle
		}
		return nil, errf("truncated: %d bytes, a bundle has at least %d", size, headerSize+footerSize)
	}
	var head [headerSize]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, errf("reading header: %v", err)
	}
	if !IsBundle(head[:]) {
		return nil, ErrNotBundle
	}
	version := binary.LittleEndian.Uint32(head[8:])
	if version < minVersion || version > Version {
		return nil, errf("unknown version %d at byte 8 (this pprofx reads versions %d to %d)", version, minVersion, Version)
	}
	var f [footerSize]byte
	footAt := size - footerSize
	if _, err := r.ReadAt(f[:], footAt); err != nil {
		return nil, errf("reading footer at byte %d: %v", footAt, err)
	}
	if string(f[footerSize-8:]) != footerMagic {
		return nil, errf("truncated or corrupt: no footer magic at byte %d", size-8)
	}
	if got, want := crc32.ChecksumIEEE(f[:52]), binary.LittleEndian.Uint32(f[52:]); got != want {
		return nil, errf("corrupt footer at byte %d: checksum %#08x, want %#08x", footAt, got, want)
	}
	var u [6]uint64
	for i := range u {
		u[i] = binary.LittleEndian.Uint64(f[8*i:])
	}
	count := binary.LittleEndian.Uint32(f[48:])
	rd := &Reader{r: r, size: size, version: version, tablesOff: u[0], tablesLen: u[1], tablesRaw: u[2], limit: limit}
	indexOff, indexLen, indexRaw := u[3], u[4], u[5]
	end := uint64(footAt)
	if rd.tablesOff < headerSize || rd.tablesLen > end || rd.tablesOff > end-rd.tablesLen ||
		indexOff < rd.tablesOff+rd.tablesLen || indexLen > end || indexOff != end-indexLen {
		return nil, errf("corrupt footer at byte %d: tables at %d+%d, index at %d+%d in a %d-byte file",
			footAt, rd.tablesOff, rd.tablesLen, indexOff, indexLen, size)
	}
	raw, err := rd.block("index", indexOff, indexLen, indexRaw, limit)
	if err != nil {
		return nil, err
	}
	d := &dec{b: raw, block: "index", room: max(limit-int64(len(raw)), 1)}
	n := d.count("profile count", 8)
	if d.err == nil && n != int(count) {
		d.fail("profile count", "%d profiles, footer says %d", n, count)
	}
	rd.entries = make([]Entry, n)
	// Sections lie back to back from the end of the header.
	off := uint64(headerSize)
	var prevTime int64
	for i := range rd.entries {
		e := &rd.entries[i]
		e.Name = d.str("name")
		e.SourceFormat = d.str("source_format")
		e.SampleTypes = make([]string, d.count("sample_types", 1))
		for j := range e.SampleTypes {
			e.SampleTypes[j] = d.str("sample_type")
		}
		e.Samples = int(d.u32("samples"))
		prevTime += unzigzag(d.uvarint("time_nanos"))
		e.TimeNanos = prevTime
		e.DurationNanos = d.varint("duration_nanos")
		e.off = off
		e.size = d.uvarint("section.size")
		e.rawSize = d.uvarint("section.raw_size")
		if d.err == nil && (e.size > rd.tablesOff || e.off > rd.tablesOff-e.size) {
			d.fail("section", "profile %d: section at %d+%d runs past the sections area [%d, %d)", i, e.off, e.size, headerSize, rd.tablesOff)
		}
		off += e.size
		if d.err != nil {
			break
		}
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	if off != rd.tablesOff {
		return nil, errf("corrupt index: sections end at byte %d, tables begin at %d", off, rd.tablesOff)
	}
	return rd, nil
}

// LimitTotal bounds what all the profiles read from r expand to together
// (the limit of OpenLimit bounds each one), for a caller that keeps every
// profile it reads.
func (r *Reader) LimitTotal(n int64) { r.totalLimit = n }

// LimitMemory sets the memory reading may use: the tables, and a
// profile's section with them, are refused before they are decompressed
// when what they decompress to could need more (memlimit.Bound).
func (r *Reader) LimitMemory(l memlimit.Limit) { r.mem = l }

// Len returns the number of profiles in the bundle.
func (r *Reader) Len() int { return len(r.entries) }

// RawSize returns what the blocks profile i is read from decompress to:
// its section and the shared tables.
func (r *Reader) RawSize(i int) int64 {
	return int64(min(r.entries[i].rawSize, math.MaxInt64/4)) + int64(min(r.tablesRaw, math.MaxInt64/4))
}

// Entry returns the index entry of profile i. It panics if i is out of
// range, as indexing a slice does; check against Len.
func (r *Reader) Entry(i int) Entry {
	e := r.entries[i]
	e.SampleTypes = append([]string(nil), e.SampleTypes...)
	return e
}

// Entries returns the index entries of all profiles.
func (r *Reader) Entries() []Entry {
	es := make([]Entry, len(r.entries))
	for i := range es {
		es[i] = r.Entry(i)
	}
	return es
}

var decoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow),
		zstd.WithDecoderLowmem(true))
	if err != nil {
		panic(err) // only on bad options
	}
	return d
}}

// block reads and decompresses the block at off, checking that it
// decompresses to exactly rawLen bytes. Memory grows with the data actually
// decompressed, never with rawLen itself.
func (r *Reader) block(what string, off, n, rawLen uint64, room int64) ([]byte, error) {
	if n > uint64(r.size) || off > uint64(r.size)-n {
		return nil, errf("%s block at byte %d: %d bytes run past the end of the %d-byte file", what, off, n, r.size)
	}
	if rawLen > math.MaxInt32 {
		return nil, errf("%s block at byte %d: raw size %d too large", what, off, rawLen)
	}
	if rawLen > uint64(room) {
		return nil, errf("%s block at byte %d: decompresses to %d bytes, more than the %d bytes left of the limit (--max-input-size)", what, off, rawLen, room)
	}
	memlimit.Reserve(int64(rawLen))
	comp := make([]byte, n)
	if _, err := r.r.ReadAt(comp, int64(off)); err != nil {
		return nil, errf("reading %s block at byte %d: %v", what, off, err)
	}
	zd := decoders.Get().(*zstd.Decoder)
	streamed := false
	defer func() {
		if streamed {
			// A stream left unfinished (an error) holds the decoder's one
			// block decoder, and DecodeAll on it would wait for it
			// forever: the next block read, of this bundle or another.
			zd.Reset(nil)
		}
		decoders.Put(zd)
	}()
	// Fast path: a frame that states its size, and a size no larger than
	// 16 times the compressed bytes actually read, is decompressed in one
	// go into a buffer of exactly that size.
	var h zstd.Header
	if err := h.Decode(comp); err == nil && h.HasFCS && h.FrameContentSize == rawLen && rawLen <= 16*n+64 {
		buf, err := zd.DecodeAll(comp, make([]byte, 0, rawLen))
		if err != nil {
			return nil, errf("%s block at byte %d: %v", what, off, err)
		}
		if uint64(len(buf)) != rawLen {
			return nil, errf("%s block at byte %d: decompresses to %d bytes, want %d", what, off, len(buf), rawLen)
		}
		return buf, nil
	}
	// Otherwise the frame is decompressed twice: first into a small
	// buffer, only to count its bytes, which stops once they pass
	// rawLen; then, when they are exactly rawLen, into a buffer of that
	// size. So memory never grows with rawLen unless the data is there,
	// and then holds the block once: growing a buffer as the data came
	// held one and a half times it (3 GiB for a tables block of 2 GiB of
	// zeros in a 66 KB file).
	streamed = true
	if err := zd.Reset(bytes.NewReader(comp)); err != nil {
		return nil, errf("%s block at byte %d: %v", what, off, err)
	}
	scratch := make([]byte, 64<<10)
	var total uint64
	for {
		k, err := zd.Read(scratch)
		total += uint64(k)
		if total > rawLen {
			return nil, errf("%s block at byte %d: decompresses to more than its %d bytes", what, off, rawLen)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, errf("%s block at byte %d: %v", what, off, err)
		}
	}
	if total != rawLen {
		return nil, errf("%s block at byte %d: decompresses to %d bytes, want %d", what, off, total, rawLen)
	}
	if err := zd.Reset(bytes.NewReader(comp)); err != nil {
		return nil, errf("%s block at byte %d: %v", what, off, err)
	}
	buf := make([]byte, rawLen)
	if _, err := io.ReadFull(zd, buf); err != nil {
		return nil, errf("%s block at byte %d: %v", what, off, err)
	}
	return buf, nil
}

func (r *Reader) tables() (*tables, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loadTables(false)
}

// take returns the shared tables for a profile to be read from them.
// Unless last, the caller gives them back with done. When last, they are
// taken from r (a profile read later reads them again), and own reports
// whether no other read uses them meanwhile: the caller may then change
// them.
func (r *Reader) take(last, hollow bool) (t *tables, own bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, err = r.loadTables(hollow); err != nil {
		return nil, false, err
	}
	if t.readers == nil {
		t.readers = new(int)
	}
	if !last {
		*t.readers++
		return t, false, nil
	}
	if r.t == t {
		r.t, r.loaded = nil, false
		own = *t.readers == 0
	}
	return t, own, nil
}

// done gives back tables take returned, not last.
func (r *Reader) done(t *tables) {
	r.mu.Lock()
	*t.readers--
	r.mu.Unlock()
}

// loadTables reads the shared tables, once, for a whole profile or, when
// hollow, for a summary; r.mu is held.
func (r *Reader) loadTables(hollow bool) (*tables, error) {
	if r.loaded && !hollow && r.hollow && r.t != nil {
		// Read for summaries, the tables were counted without the
		// profile's strings, functions, locations and lines: counted
		// again with them (and, as held now, a second time).
		if err := model.CheckAvailable("bundle", r.t.counted+r.t.modelMem(), int64(min(r.tablesRaw, math.MaxInt64/8)), "the shared tables, with a profile's strings, functions, locations and lines made from them,"); err != nil {
			return nil, err
		}
		r.hollow = false
	}
	if !r.loaded {
		r.loaded, r.hollow = true, hollow
		if err := r.mem.Check("bundle: tables", int64(min(r.tablesRaw, math.MaxInt64/8))); err != nil {
			r.tErr = err
			return nil, err
		}
		raw, err := r.block("tables", r.tablesOff, r.tablesLen, r.tablesRaw, r.limit)
		if err != nil {
			r.tErr = err
		} else {
			d := &dec{b: raw, block: "tables", room: max(r.limit-int64(len(raw)), 1)}
			if hollow {
				d.em = &hollowMem
			}
			r.t, r.tErr = decodeTables(d, r.version)
			if r.t != nil {
				r.t.counted = d.mem
			}
		}
	}
	return r.t, r.tErr
}

// Profile reads profile i: the shared tables (once per Reader) and its own
// section. The profile holds only the table entries its samples, mappings
// and profile-level fields reference.
func (r *Reader) Profile(i int) (*model.Profile, error) {
	p, _, err := r.profile(i, false, false)
	return p, err
}

// ProfileLast reads profile i as Profile does, for a caller that reads no
// other profile from r after it (one profile unpacked, the last of a
// bundle read whole): the shared tables are taken from r and released as
// the profile is built, each once the profile took what it needs from it,
// rather than held beside the whole profile and after it. A profile read
// later reads the tables again.
func (r *Reader) ProfileLast(i int) (*model.Profile, error) {
	p, _, err := r.profile(i, true, false)
	return p, err
}

// Counts are the sizes of the tables Hollow leaves out of a profile.
type Counts struct {
	Locations, Functions int
}

// Hollow reads profile i as Profile does (as ProfileLast does, when last
// is true), but for a summary of it: each distinct stack of its samples
// is kept, and empty, and the locations and functions its stacks reach
// are counted, not made; their strings are left out of its string
// table. What it reads is checked as Profile checks it. Inspecting the
// bundle of a merge of a wide profile with itself, this leaves out the
// 18M frames of each profile's stacks and its 600k locations.
func (r *Reader) Hollow(i int, last bool) (*model.Profile, Counts, error) {
	return r.profile(i, last, true)
}

func (r *Reader) profile(i int, last, hollow bool) (*model.Profile, Counts, error) {
	if i < 0 || i >= len(r.entries) {
		return nil, Counts{}, errf("index %d out of range (bundle holds %d profiles, 0 to %d)", i, len(r.entries), len(r.entries)-1)
	}
	e := &r.entries[i]
	// What the profile's section may take, and the tables' when they are
	// still to be read. What was read before (the tables, the profiles
	// kept) is already taken from what the limit leaves.
	need := int64(min(e.rawSize, math.MaxInt64/8))
	r.mu.Lock()
	if !r.loaded {
		need += int64(min(r.tablesRaw, math.MaxInt64/8))
	}
	r.mu.Unlock()
	if err := r.mem.Check(fmt.Sprintf("bundle: profile %d", i), need); err != nil {
		return nil, Counts{}, err
	}
	t, own, err := r.take(last, hollow)
	if err != nil {
		return nil, Counts{}, err
	}
	if last {
		x := *t // its fields are dropped as they are used up
		t = &x
	} else {
		defer r.done(t)
	}
	room := r.limit - int64(r.tablesRaw)
	if r.totalLimit > 0 {
		room = min(room, r.totalLimit-int64(r.tablesRaw)-r.spent.Load())
	}
	if room <= 0 {
		return nil, Counts{}, errf("profile %d: the profiles read before it expand to the limit of %d bytes (--max-input-size)", i, r.totalLimit)
	}
	raw, err := r.block("section", e.off, e.size, e.rawSize, room)
	if err != nil {
		return nil, Counts{}, errf("profile %d: %v", i, trimPrefix(err))
	}
	b := &unpacker{t: t, release: last, own: own, hollow: hollow}
	d := &dec{b: raw, block: "section", room: max(room-int64(len(raw)), 1)}
	start := d.room
	p, err := b.decode(d, e)
	if err != nil {
		return nil, Counts{}, errf("profile %d: %v", i, trimPrefix(err))
	}
	r.spent.Add(int64(len(raw)) + start - d.room)
	if err := p.Validate(); err != nil {
		return nil, Counts{}, errf("profile %d: %v", i, err)
	}
	return p, Counts{Locations: int(b.nloc), Functions: int(b.nfunc)}, nil
}

// permute moves xs[i] to xs[to[i]-1], for to a permutation of 1 to
// len(xs), in place: it follows each cycle of to, marking the entries
// done by their sign, which it then restores.
func permute[T any](xs []T, to []int32) {
	for i := range xs {
		if to[i] < 0 {
			continue
		}
		cur := xs[i]
		for j := i; ; {
			k := int(to[j] - 1)
			to[j] = -to[j]
			cur, xs[k] = xs[k], cur
			if j = k; j == i {
				break
			}
		}
	}
	for i := range to {
		to[i] = -to[i]
	}
}

func trimPrefix(err error) error {
	s := err.Error()
	if len(s) > 8 && s[:8] == "bundle: " {
		return errors.New(s[8:])
	}
	return err
}

// unpacker builds one profile's tables from the shared ones, taking each
// entry its samples, mappings and header use. It works in two passes, so
// that the profile holds only what it needs, at its exact size: the first
// (decode, header) walks the header and the samples and numbers each
// shared entry reached in order of first use; the second (build) makes the
// profile's tables, each location's lines and each label set's labels
// slices of one array. The numbering is kept in dense arrays indexed by
// the shared tables (4 bytes per shared entry), not in maps; stacks are
// numbered by the stack nodes rows end at, not by every node.
type unpacker struct {
	t *tables
	p *model.Profile
	// Local index + 1 of each shared entry used so far (0: not yet used);
	// nodeNew is indexed by nodeTable.end. Strings of both shared tables
	// are numbered in one local table.
	strNew, pstrNew, funcNew, locNew, nodeNew, lsNew, linkNew []int32
	// pvals are the profile strings numbered so far, by value: a table
	// string equal to one of them (a sample type also used as a label
	// key) is not added again. A profile's header, which alone uses the
	// profile strings, is read before its samples.
	pvals                   map[string]int32
	nstr                    int32            // local strings numbered, "" included
	mapFirst                map[uint32]int32 // shared mapping -> first local mapping
	nfunc, nloc, nls, nlink int32
	nlines, nlabels         int
	nstacks, nframes        int // distinct stacks counted, and their frames
	// hollow: the profile is read for a summary (Hollow): its stacks keep
	// no frames, and its locations and functions are numbered, not made.
	hollow bool
	// release: u.t is this profile's alone (ProfileLast), and each of its
	// tables is dropped once the profile has taken what it needs from it.
	release bool
	// own: no other read uses u.t's arrays, which the profile may then
	// take as they are (with release).
	own bool
}

func (u *unpacker) init() {
	t := u.t
	u.p = model.New()
	u.strNew = make([]int32, t.strings.len())
	u.pstrNew = make([]int32, t.pstrings.len())
	u.funcNew = make([]int32, len(t.functions))
	u.locNew = make([]int32, len(t.locations))
	u.nodeNew = make([]int32, t.nodes.nends)
	u.lsNew = make([]int32, len(t.labelSets))
	u.linkNew = make([]int32, len(t.links))
	u.pvals = map[string]int32{}
	u.nstr = 1
	u.mapFirst = map[uint32]int32{}
}

// str returns the local index of shared table string i.
func (u *unpacker) str(i uint32) int32 {
	if v := u.strNew[i]; v != 0 {
		return v - 1
	}
	v := int32(0)
	if s := u.t.strings.at(i); s != "" {
		var ok bool
		if v, ok = u.pvals[s]; !ok {
			v = u.nstr
			u.nstr++
		}
	}
	u.strNew[i] = v + 1
	return v
}

// pstr returns the local index of shared profile string i.
func (u *unpacker) pstr(i uint32) int32 {
	if v := u.pstrNew[i]; v != 0 {
		return v - 1
	}
	v := int32(0)
	if s := u.t.pstrings.at(i); s != "" {
		var ok bool
		if v, ok = u.pvals[s]; !ok {
			v = u.nstr
			u.nstr++
			u.pvals[s] = v
		}
	}
	u.pstrNew[i] = v + 1
	return v
}

func (u *unpacker) function(i uint32) int32 {
	if v := u.funcNew[i]; v != 0 {
		return v - 1
	}
	if !u.hollow {
		f := &u.t.functions[i]
		u.str(uint32(f.Name))
		u.str(uint32(f.SystemName))
		u.str(uint32(f.Filename))
	}
	v := u.nfunc
	u.nfunc++
	u.funcNew[i] = v + 1
	return v
}

func (u *unpacker) location(i uint32) (int32, error) {
	if v := u.locNew[i]; v != 0 {
		return v - 1, nil
	}
	t := u.t
	if m := t.locations[i].mapping(); m != 0 {
		if _, ok := u.mapFirst[m-1]; !ok {
			return 0, errf("location %d uses mapping %d, which is not in the profile's mapping list", i, m-1)
		}
	}
	for _, ln := range t.lines[t.lineOff[i]:t.lineOff[i+1]] {
		u.function(uint32(ln.Function))
	}
	u.nlines += int(t.lineOff[i+1] - t.lineOff[i])
	v := u.nloc
	u.nloc++
	u.locNew[i] = v + 1
	return v, nil
}

// count counts the stack that ends at shared node node, unless it was:
// its frames against the section's room (d.spend), for the profile's
// stack table to be made once at its size. A node takes a few bytes, but
// the stack it ends repeats every frame of the path to it, so a chain of
// 5,000 nodes that rows end at every step would be 12.5M frames from
// 10 KB.
func (u *unpacker) count(d *dec, node uint32) bool {
	e := u.t.nodes.end(node)
	if u.nodeNew[e] != 0 {
		return true
	}
	u.nodeNew[e] = -1 // counted, not yet made
	depth := 0
	for n := node; n != 0; n = u.t.nodes.parent(n) {
		depth++
		if depth > u.t.nodes.len() {
			d.fail("stack node", "node %d: cycle", node)
			return false
		}
	}
	u.nstacks++
	u.nframes += depth
	return d.spend("stack frames", 4*uint64(depth))
}

// stack returns the local index of the stack that ends at shared node
// node (counted first). Its frames go straight into the profile's
// stacks, leaf first, as the path to the root is walked.
func (u *unpacker) stack(node uint32) (int32, error) {
	e := u.t.nodes.end(node)
	if v := u.nodeNew[e]; v > 0 {
		return v - 1, nil
	}
	for n := node; n != 0; n = u.t.nodes.parent(n) {
		l, err := u.location(u.t.nodes.loc[n])
		if err != nil {
			u.p.Stacks.DropStack()
			return 0, err
		}
		if !u.hollow {
			u.p.Stacks.AddFrame(l)
		}
	}
	v := u.p.Stacks.EndStack()
	u.nodeNew[e] = v + 1
	return v, nil
}

func (u *unpacker) labelSet(i uint32) int32 {
	if i == 0 {
		return 0
	}
	if v := u.lsNew[i]; v != 0 {
		return v - 1
	}
	s := u.t.labelSets[i]
	for _, l := range u.t.labels[s.off : s.off+s.n] {
		u.str(l.key)
		u.str(l.str)
		u.str(l.unit)
	}
	u.nlabels += int(s.n)
	u.nls++
	v := u.nls // LabelSets[0] is the empty set
	u.lsNew[i] = v + 1
	return v
}

func (u *unpacker) link(i uint32) int32 {
	if i == 0 {
		return model.NoLink
	}
	if v := u.linkNew[i-1]; v != 0 {
		return v - 1
	}
	v := u.nlink
	u.nlink++
	u.linkNew[i-1] = v + 1
	return v
}

// build makes the profile's tables from the shared entries the first pass
// numbered, going through the shared tables in order.
func (u *unpacker) build() {
	t, p := u.t, u.p
	// Locations first: the shared ones, and their index, are let go
	// before the profile's strings are made.
	if u.nloc > 0 && !u.hollow {
		p.Locations = make([]model.Location, u.nloc)
		// A profile read last that uses most of the shared lines takes
		// them as they are for its table of lines, each location a range
		// of them, rather than copy them: each shared location is used
		// once at most, so each line is renumbered once.
		inPlace := u.release && u.own && 2*u.nlines >= len(t.lines)
		if inPlace {
			p.Lines, p.Columns = t.lines, t.columns
		} else {
			p.Lines = make([]model.Line, u.nlines)
		}
		next := uint32(0)
		for i, v := range u.locNew {
			if v == 0 {
				if inPlace {
					// Lines no location of the profile has name no
					// function of it.
					for j := t.lineOff[i]; j < t.lineOff[i+1]; j++ {
						p.Lines[j] = model.Line{Function: model.NoFunction}
					}
				}
				continue
			}
			l := &t.locations[i]
			loc := model.Location{Address: l.address, Mapping: model.NoMapping, IsFolded: l.folded()}
			p.SetLocationAttrs(int(v-1), t.attrSets[l.attrs])
			if m := l.mapping(); m != 0 {
				loc.Mapping = u.mapFirst[m-1]
			}
			if first, end := t.lineOff[i], t.lineOff[i+1]; end > first {
				loc.FirstLine, loc.NumLines = first, end-first
				if !inPlace {
					loc.FirstLine = next
					next += end - first
				}
				for j, ln := range t.lines[first:end] {
					p.Lines[loc.FirstLine+uint32(j)] = model.Line{Function: u.funcNew[ln.Function] - 1, Line: ln.Line}
					if !inPlace {
						p.SetColumn(loc.FirstLine+uint32(j), t.column(first+uint32(j)))
					}
				}
			}
			p.Locations[v-1] = loc
		}
	}
	if u.release {
		t.locations, t.lines, t.columns, t.lineOff, u.locNew = nil, nil, nil, nil, nil
	}
	p.Strings = make([]string, u.nstr)
	for i, v := range u.pstrNew {
		if v > 0 {
			p.Strings[v-1] = t.pstrings.at(uint32(i))
		}
	}
	for i, v := range u.strNew {
		if v > 0 {
			p.Strings[v-1] = t.strings.at(uint32(i))
		}
	}
	if u.release {
		t.strings, t.pstrings = strTable{}, strTable{}
	}
	if u.nfunc > 0 && !u.hollow {
		if u.release && u.own && int(u.nfunc) == len(t.functions) {
			// A profile read last that uses every shared function takes
			// them as they are: renumbered, then put in its order.
			for i := range t.functions {
				f := &t.functions[i]
				f.Name, f.SystemName, f.Filename = u.str(uint32(f.Name)), u.str(uint32(f.SystemName)), u.str(uint32(f.Filename))
			}
			permute(t.functions, u.funcNew)
			p.Functions = t.functions
		} else {
			p.Functions = make([]model.Function, u.nfunc)
			for i, v := range u.funcNew {
				if v > 0 {
					f := &t.functions[i]
					p.Functions[v-1] = model.Function{
						Name: u.str(uint32(f.Name)), SystemName: u.str(uint32(f.SystemName)), Filename: u.str(uint32(f.Filename)), StartLine: f.StartLine,
					}
				}
			}
		}
	}
	if u.release {
		t.functions, u.funcNew = nil, nil
	}
	if u.nls > 0 {
		p.LabelSets = make([]model.LabelSet, u.nls+1)
		labels := make([]model.Label, u.nlabels)
		for i, v := range u.lsNew {
			if v == 0 {
				continue
			}
			s := t.labelSets[i]
			ls := labels[:s.n:s.n]
			labels = labels[s.n:]
			for j, l := range t.labels[s.off : s.off+s.n] {
				ls[j] = model.Label{Key: u.str(l.key), Str: u.str(l.str), Num: l.num, NumUnit: u.str(l.unit)}
			}
			p.LabelSets[v-1] = model.NewLabelSet(ls, t.attrSets[s.attrs])
		}
	}
	if u.nlink > 0 {
		p.Links = make([]model.Link, u.nlink)
		for i, v := range u.linkNew {
			if v > 0 {
				l := &t.links[i]
				p.Links[v-1] = model.Link{TraceID: cloneBytes(l.TraceID), SpanID: cloneBytes(l.SpanID)}
			}
		}
	}
}

func (u *unpacker) valueType(d *dec, what string) model.ValueType {
	nps := u.t.pstrings.len()
	return model.ValueType{
		Type:                   u.pstr(d.ref(what+".type", nps)),
		Unit:                   u.pstr(d.ref(what+".unit", nps)),
		AggregationTemporality: int32(d.varint(what + ".aggregation_temporality")),
	}
}

const maxValueDepth = 64

// decode reads a section; e, its index entry, gives the number of samples,
// the time and the duration.
func (u *unpacker) decode(d *dec, e *Entry) (*model.Profile, error) {
	t := u.t
	u.init()
	p := u.p

	hi := d.ref("header", len(t.headers))
	p.TimeNanos, p.DurationNanos = e.TimeNanos, e.DurationNanos
	p.ProfileID = d.bytes("profile_id")
	if n := len(p.ProfileID); d.err == nil && n != 0 && n != 16 {
		d.fail("profile_id", "%d bytes, want 16", n)
	}
	p.StartTimeUnixNano = d.uvarint("start_time_unix_nano")
	p.EndTimeUnixNano = d.uvarint("end_time_unix_nano")
	p.OriginalPayload = d.bytes("original_payload")
	if d.err != nil {
		return nil, d.err
	}
	if err := u.header(&dec{b: t.headers[hi], block: fmt.Sprintf("tables: header %d", hi), version: t.version}); err != nil {
		return nil, err
	}

	// Samples: one byte at least per sample for its row.
	n := e.Samples
	if n < 0 || n > len(d.b)-d.off {
		d.fail("samples", "%d samples (from the index) exceed the %d bytes left", n, len(d.b)-d.off)
		return nil, d.err
	}
	flags := d.uvarint("columns")
	if d.err == nil && flags >= 1<<1 {
		d.fail("columns", "unknown column flags %#x", flags)
	}
	if d.err != nil {
		return nil, d.err
	}
	nv := len(p.SampleTypes)
	// Each sample costs its model entry and its values, however few bytes
	// it took here: counted against the limit first. (The values are shared
	// with the row in memory, but any output repeats them per sample.)
	if !d.spend("samples", uint64(n)*uint64(unsafe.Sizeof(model.Sample{})+8*uintptr(nv))) {
		return nil, d.err
	}
	p.Samples = make([]model.Sample, n)
	nrows := len(t.rowNode)
	fresh := int64(d.u32("first_new_row"))
	// First each sample's row, held in its Stack meanwhile, and the
	// frames of the distinct stacks the rows end at, so that the
	// profile's stack table is made once, at its size.
	var r int64
	for i := range p.Samples {
		if c := d.uvarint("sample.row"); c == 0 {
			r = fresh
			fresh++
		} else {
			r += unzigzag(c - 1)
		}
		if d.err == nil && (r < 0 || r >= int64(nrows)) {
			d.fail("sample.row", "sample %d: row %d out of range (%d rows)", i, r, nrows)
		}
		if d.err != nil {
			return nil, d.err
		}
		if nvals := t.rowOff[r+1] - t.rowOff[r]; int(nvals) != nv {
			d.fail("sample.row", "sample %d: row %d has %d values for %d sample types", i, r, nvals, nv)
			return nil, d.err
		}
		if !u.count(d, t.rowNode[r]) {
			return nil, d.err
		}
		p.Samples[i].Stack = int32(r)
	}
	if u.hollow {
		p.Stacks.Grow(u.nstacks, 0)
	} else {
		p.Stacks.Grow(u.nstacks, u.nframes)
	}
	for i := range p.Samples {
		r := p.Samples[i].Stack
		s, err := u.stack(t.rowNode[r])
		if err != nil {
			return nil, err
		}
		// Samples of one row share its values (a slice of the shared
		// tables, capped so that an append cannot reach the next row's).
		v := t.rowVals[t.rowOff[r]:t.rowOff[r+1]:t.rowOff[r+1]]
		p.Samples[i] = model.NewSample(s, v)
		p.Samples[i].LabelSet, p.Samples[i].Link = u.labelSet(t.rowLabels[r]), u.link(t.rowLink[r])
	}
	if u.release { // what the samples alone use
		t.nodes, u.nodeNew = nodeTable{}, nil
		t.rowNode, t.rowLabels, t.rowLink, t.rowOff = nil, nil, nil, nil
		t.headers = nil
	}
	if flags&colTimestamps != 0 {
		counts := make([]int, n)
		total := 0
		for i := range counts {
			counts[i] = int(d.u32("sample.timestamps"))
			total += counts[i]
			if d.err == nil && total > len(d.b)-d.off {
				d.fail("sample.timestamps", "%d timestamps exceed the bytes left", total)
			}
		}
		if d.err != nil {
			return nil, d.err
		}
		if !d.spend("sample.timestamps", 8*uint64(total)) {
			return nil, d.err
		}
		all := make([]uint64, total)
		var prev uint64
		for k := range all {
			prev += uint64(unzigzag(d.uvarint("sample.timestamp")))
			all[k] = prev
		}
		for i := range p.Samples {
			if counts[i] > 0 {
				p.Samples[i].SetTimestamps(all[:counts[i]:counts[i]])
				all = all[counts[i]:]
			}
		}
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	u.build()
	return p, nil
}

// header reads the shared profile-level fields into u.p.
func (u *unpacker) header(d *dec) error {
	t, p := u.t, u.p
	nps := t.pstrings.len()
	p.SampleTypes = make([]model.ValueType, d.count("sample_types", 3))
	for i := range p.SampleTypes {
		p.SampleTypes[i] = u.valueType(d, "sample_type")
	}
	p.DefaultSampleType = u.pstr(d.ref("default_sample_type", nps))
	p.PeriodType = u.valueType(d, "period_type")
	p.Period = d.varint("period")
	if n := d.count("comments", 1); n > 0 {
		p.Comments = make([]int32, n)
		for i := range p.Comments {
			p.Comments[i] = u.pstr(d.ref("comment", nps))
		}
	}
	p.DropFrames = u.pstr(d.ref("drop_frames", nps))
	p.KeepFrames = u.pstr(d.ref("keep_frames", nps))
	p.DocURL = u.pstr(d.ref("doc_url", nps))
	if n := d.count("mappings", 1); n > 0 {
		p.Mappings = make([]model.Mapping, n)
		for i := range p.Mappings {
			sm := d.ref("mapping", len(t.mappings))
			if d.err != nil {
				break
			}
			m := t.mappings[sm]
			p.Mappings[i] = model.Mapping{
				Start: m.start, Limit: m.limit, Offset: m.offset,
				File: u.str(m.file), BuildID: u.str(m.buildID), BuildIDKind: m.buildIDKind,
				HasFunctions: m.flags&1 != 0, HasFilenames: m.flags&2 != 0,
				HasLineNumbers: m.flags&4 != 0, HasInlineFrames: m.flags&8 != 0,
				Attributes: t.attrSets[m.attrs],
			}
			if _, ok := u.mapFirst[sm]; !ok {
				u.mapFirst[sm] = int32(i)
			}
		}
	}
	p.Attributes = decodeAttrs(d, "attributes", 0)
	p.DroppedAttributesCount = d.u32("dropped_attributes_count")
	p.Resource.Attributes = decodeAttrs(d, "resource.attributes", 0)
	p.Resource.DroppedAttributesCount = d.u32("resource.dropped_attributes_count")
	p.Resource.SchemaURL = d.str("resource.schema_url")
	p.Scope.Name = d.str("scope.name")
	p.Scope.Version = d.str("scope.version")
	p.Scope.Attributes = decodeAttrs(d, "scope.attributes", 0)
	p.Scope.DroppedAttributesCount = d.u32("scope.dropped_attributes_count")
	p.Scope.SchemaURL = d.str("scope.schema_url")
	p.OriginalPayloadFormat = d.str("original_payload_format")
	return d.done()
}

func decodeAttrs(d *dec, what string, depth int) []model.Attribute {
	n := d.count(what, 2)
	if n == 0 || d.err != nil {
		return nil
	}
	if depth > maxValueDepth {
		d.fail(what, "values nested deeper than %d", maxValueDepth)
		return nil
	}
	attrs := make([]model.Attribute, n)
	for i := range attrs {
		attrs[i].Key = d.str(what + ".key")
		attrs[i].Value = decodeValue(d, what+".value", depth+1)
		if depth == 0 && d.version >= 3 {
			attrs[i].Unit = d.str(what + ".unit")
		}
		if d.err != nil {
			return nil
		}
	}
	return attrs
}

func decodeValue(d *dec, what string, depth int) model.Value {
	var v model.Value
	k := d.uvarint(what + ".kind")
	if d.err != nil {
		return v
	}
	if depth > maxValueDepth {
		d.fail(what, "values nested deeper than %d", maxValueDepth)
		return v
	}
	v.Kind = model.ValueKind(k)
	switch v.Kind {
	case model.KindEmpty:
	case model.KindString:
		v.Str = d.str(what)
	case model.KindBool:
		v.Bool = d.bool(what)
	case model.KindInt:
		v.Int = d.varint(what)
	case model.KindDouble:
		if len(d.b)-d.off < 8 {
			d.fail(what, "unexpected end of data")
			return v
		}
		v.Double = math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.off:]))
		d.off += 8
	case model.KindBytes:
		v.Bytes = d.bytes(what)
	case model.KindArray:
		n := d.count(what, 1)
		if n > 0 {
			v.Array = make([]model.Value, n)
			for i := range v.Array {
				v.Array[i] = decodeValue(d, what, depth+1)
				if d.err != nil {
					break
				}
			}
		}
	case model.KindMap:
		v.Map = decodeAttrs(d, what, depth+1)
	default:
		d.fail(what+".kind", "unknown value kind %d", k)
	}
	return v
}
