package bundle

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/maphash"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/pprofx/pprofx/internal/hashindex"
	"github.com/pprofx/pprofx/internal/model"
)

// WriterOptions tune a Writer. The zero value is the default.
type WriterOptions struct {
	// Level is the zstd level of klauspost/compress for the shared tables:
	// 1 fastest, 2 default, 3 better, 4 best compression; 0 means 3.
	// Sections are compressed at the lower of Level and 3: on small blocks
	// "better" compresses as well as "best", which also allocates 34 MiB of
	// match tables. Level 4 makes bundles about 3 % smaller and merging
	// slower.
	Level int
	// Warn is told, once, what a bundle cannot hold as it was given.
	Warn func(msg string)
}

// Writer writes a bundle. Each Add encodes one profile's section and writes
// it at once, so only the shared tables stay in memory; Close writes the
// shared tables, the index and the footer. The same profiles added in the
// same order give byte-identical bundles.
type Writer struct {
	w   *bufio.Writer
	off uint64
	err error
	zw  *zstd.Encoder

	secLevel, tablesLevel zstd.EncoderLevel

	t       *tables
	pstrIdx map[string]uint32
	mapIdx  map[mapping]uint32
	// The tables of many entries are found by an index of their entry
	// numbers; locations are hashed by their encoding.
	seed                    maphash.Seed
	strIdx, funcIdx, locIdx hashindex.Index
	attrIdx                 map[string]uint32 // encoded attribute set -> index in attrSets
	// The prefix tree of stacks.
	tree *prefixTree
	// Label sets are found by an index of their numbers too (a perf
	// script's samples each have a set of their own).
	labelIdx  hashindex.Index
	labBuf    []label
	linkIdx   map[string]uint32
	rows      rows
	entries   []Entry
	closed    bool
	wroteHead bool
	warn      func(string)
	warned    map[string]bool

	// Per-profile scratch, reused: local index -> shared index + 1 (0 = not yet).
	strMap, funcMap, locMap, stackMap, lsMap, linkMap []uint32
	key                                               []byte
	lineBuf                                           []line
	colBuf                                            []int64
	raw, hdr                                          enc
	hdrIdx                                            map[string]uint32
	comp                                              []byte
}

// NewWriter returns a Writer that writes a bundle to w.
func NewWriter(w io.Writer, opts WriterOptions) *Writer {
	// Sections are small: "better" compresses them as well as "best" and
	// with a fraction of its memory. The tables follow Level.
	level := zstd.SpeedBetterCompression
	switch opts.Level {
	case 1:
		level = zstd.SpeedFastest
	case 2:
		level = zstd.SpeedDefault
	case 4:
		level = zstd.SpeedBestCompression
	}
	secLevel := min(level, zstd.SpeedBetterCompression)
	zw, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(secLevel), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(sectionWindow), zstd.WithEncoderCRC(true), zstd.WithLowerEncoderMem(true))
	wr := &Writer{
		secLevel:    secLevel,
		tablesLevel: level,
		w:           bufio.NewWriterSize(w, 1<<16),
		err:         err,
		zw:          zw,
		t:           newTables(),
		pstrIdx:     map[string]uint32{"": 0},
		hdrIdx:      map[string]uint32{},
		mapIdx:      map[mapping]uint32{},
		seed:        maphash.MakeSeed(),
		attrIdx:     map[string]uint32{},
		tree:        newPrefixTree(),
		linkIdx:     map[string]uint32{},
		rows:        rows{latest: map[rowKey]*rowState{}},
		warn:        opts.Warn,
		warned:      map[string]bool{},
	}
	wr.strIdx.Add(-1, 0, wr.strHash) // "", string 0
	return wr
}

// column is a growing array of uint32 held in chunks of chunkLen values,
// so that growing it never copies what it holds: a slice grown by append
// holds its old array and one a quarter larger at once, and the three
// arrays of a prefix tree of millions of nodes took 27 bytes a node as
// they grew, for 12 held. The first chunk grows as a slice does, so a
// small tree takes little. Close orders the tree from the columns as
// they are.
type column struct {
	chunks [][]uint32
	n      int
}

const chunkBits = 20

const chunkLen = 1 << chunkBits

func (c *column) len() int { return c.n }

func (c *column) append(v uint32) {
	if len(c.chunks) == 0 || len(c.chunks[len(c.chunks)-1]) == chunkLen {
		size := chunkLen
		if len(c.chunks) == 0 {
			size = 64
		}
		c.chunks = append(c.chunks, make([]uint32, 0, size))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
	c.n++
}

func (c *column) at(i uint32) uint32 { return c.chunks[i>>chunkBits][i&(chunkLen-1)] }

func (c *column) set(i, v uint32) { c.chunks[i>>chunkBits][i&(chunkLen-1)] = v }

// maxWindow is the largest zstd window a bundle uses; readers refuse larger.
const maxWindow = 1 << 23

// sectionWindow is the window sections are compressed with.
const sectionWindow = 1 << 20

func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	_, w.err = w.w.Write(p)
	w.off += uint64(len(p))
}

func (w *Writer) header() {
	if w.wroteHead {
		return
	}
	w.wroteHead = true
	var h [headerSize]byte
	copy(h[:], Magic)
	binary.LittleEndian.PutUint32(h[8:], Version)
	w.write(h[:])
}

// Add appends profile p under e.Name and e.SourceFormat. The other fields
// of e are computed from p. p must be valid (model.Profile.Validate); it is
// not modified and may be reused once Add returns.
func (w *Writer) Add(e Entry, p *model.Profile) error {
	if w.closed {
		return errf("Add after Close")
	}
	if w.err != nil {
		return w.err
	}
	if err := p.Validate(); err != nil {
		return errf("profile %d (%s): %v", len(w.entries), e.Name, err)
	}
	if w.tree.len()+p.Stacks.Len()+p.Stacks.NumFrames() >= math.MaxInt32 ||
		w.t.strings.len()+len(p.Strings) >= math.MaxInt32 ||
		uint64(w.t.strings.size())+uint64(w.t.pstrings.size())+uint64(stringBytes(p)) > maxStringBytes ||
		len(w.t.mappings)+len(p.Mappings) > maxMappings ||
		len(w.t.functions)+len(p.Functions) >= math.MaxInt32 {
		return errf("profile %d (%s): bundle tables would exceed 2^31 entries", len(w.entries), e.Name)
	}
	// Each frame of a distinct stack may add a node to the shared prefix
	// tree (nodeMem), and the profile's tables are copied into the shared
	// ones.
	need := nodeMem*int64(p.Stacks.NumFrames()) + p.MemSize()
	if err := model.CheckAvailableNow("bundle", need, fmt.Sprintf("adding profile %d (%s)", len(w.entries), e.Name)); err != nil {
		return err
	}
	w.header()
	w.reset(p)
	w.raw.b = w.raw.b[:0]
	w.encodeSection(p)
	w.comp = w.zw.EncodeAll(w.raw.b, w.comp[:0])

	e = Entry{
		Name:          e.Name,
		SourceFormat:  e.SourceFormat,
		SampleTypes:   make([]string, len(p.SampleTypes)),
		Samples:       len(p.Samples),
		TimeNanos:     p.TimeNanos,
		DurationNanos: p.DurationNanos,
		off:           w.off,
		size:          uint64(len(w.comp)),
		rawSize:       uint64(len(w.raw.b)),
	}
	for i, st := range p.SampleTypes {
		e.SampleTypes[i] = p.String(st.Type) + "/" + p.String(st.Unit)
	}
	w.write(w.comp)
	if w.err != nil {
		return w.err
	}
	w.entries = append(w.entries, e)
	return nil
}

// Len returns the number of profiles added so far.
func (w *Writer) Len() int { return len(w.entries) }

func grow(s []uint32, n int) []uint32 {
	if cap(s) < n {
		return make([]uint32, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func (w *Writer) reset(p *model.Profile) {
	w.strMap = grow(w.strMap, len(p.Strings))
	w.funcMap = grow(w.funcMap, len(p.Functions))
	w.locMap = grow(w.locMap, len(p.Locations))
	w.stackMap = grow(w.stackMap, p.Stacks.Len())
	w.lsMap = grow(w.lsMap, len(p.LabelSets))
	w.linkMap = grow(w.linkMap, len(p.Links))
}

// stringBytes returns the bytes of p's strings.
func stringBytes(p *model.Profile) int {
	n := 0
	for _, s := range p.Strings {
		n += len(s)
	}
	return n
}

// str returns the shared index of p's string i.
func (w *Writer) str(p *model.Profile, i int32) uint32 {
	if i == 0 {
		return 0
	}
	if v := w.strMap[i]; v != 0 {
		return v - 1
	}
	s := p.Strings[i]
	v, slot, ok := w.strIdx.Find(maphash.String(w.seed, s), func(v uint32) bool { return w.t.strings.at(v) == s })
	if !ok {
		v = w.t.strings.add(s)
		w.strIdx.Add(slot, v, w.strHash)
	}
	w.strMap[i] = v + 1
	return v
}

func (w *Writer) strHash(v uint32) uint64 { return maphash.String(w.seed, w.t.strings.at(v)) }

// pstr returns the index of p's string i in the profile-string table,
// which holds the strings sections reference.
func (w *Writer) pstr(p *model.Profile, i int32) uint32 {
	if i == 0 {
		return 0
	}
	s := p.Strings[i]
	v, ok := w.pstrIdx[s]
	if !ok {
		v = w.t.pstrings.add(s)
		w.pstrIdx[w.t.pstrings.at(v)] = v
	}
	return v
}

func (w *Writer) mapping(p *model.Profile, m *model.Mapping) uint32 {
	sm := mapping{
		start: m.Start, limit: m.Limit, offset: m.Offset,
		file: w.str(p, m.File), buildID: w.str(p, m.BuildID), buildIDKind: m.BuildIDKind,
	}
	for i, b := range []bool{m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames} {
		if b {
			sm.flags |= 1 << i
		}
	}
	sm.attrs = w.attrSet(m.Attributes)
	v, ok := w.mapIdx[sm]
	if !ok {
		v = uint32(len(w.t.mappings))
		w.t.mappings = append(w.t.mappings, sm)
		w.mapIdx[sm] = v
	}
	return v
}

// function returns the shared index of function i. A bundle's lines always
// name a function, as pprof's do: a line with none (model.NoFunction)
// names a function whose every field is empty.
func (w *Writer) function(p *model.Profile, i int32) uint32 {
	if i == model.NoFunction {
		w.warnOnce("a line with no function (possible in OTLP) is stored naming a function whose every field is empty, as pprof output has it")
		return w.sharedFunction(function{})
	}
	if v := w.funcMap[i]; v != 0 {
		return v - 1
	}
	f := &p.Functions[i]
	v := w.sharedFunction(function{Name: int32(w.str(p, f.Name)), SystemName: int32(w.str(p, f.SystemName)), Filename: int32(w.str(p, f.Filename)), StartLine: f.StartLine})
	w.funcMap[i] = v + 1
	return v
}

// sharedFunction returns the shared index of sf, adding it if it is new.
func (w *Writer) sharedFunction(sf function) uint32 {
	v, _ := hashindex.Intern(&w.funcIdx, &w.t.functions, w.funcHash, sf)
	return v
}

func (w *Writer) funcHash(f function) uint64 { return maphash.Comparable(w.seed, f) }

func (w *Writer) location(p *model.Profile, i int32) uint32 {
	if v := w.locMap[i]; v != 0 {
		return v - 1
	}
	l := &p.Locations[i]
	var m uint32
	if l.Mapping != model.NoMapping {
		m = w.mapping(p, &p.Mappings[l.Mapping]) + 1
	}
	sl := newLocation(l.Address, m, l.IsFolded, w.attrSet(p.LocationAttrs(int(i))))
	lines, cols := w.lineBuf[:0], w.colBuf[:0]
	hasCols := false
	for j, ln := range p.LinesOf(l) {
		lines = append(lines, line{Function: int32(w.function(p, ln.Function)), Line: ln.Line})
		c := p.ColumnOf(l, j)
		cols = append(cols, c)
		hasCols = hasCols || c != 0
	}
	w.lineBuf, w.colBuf = lines, cols
	if !hasCols {
		cols = nil
	}
	t := w.t
	v, slot, ok := w.locIdx.Find(w.locationHash(sl, lines, cols), func(c uint32) bool {
		first, end := t.lineOff[c], t.lineOff[c+1]
		return t.locations[c] == sl && slices.Equal(t.lines[first:end], lines) && t.sameColumns(first, end, cols)
	})
	if !ok {
		v = uint32(len(t.locations))
		t.locations = append(t.locations, sl)
		t.addLines(lines, cols)
		t.lineOff = append(t.lineOff, uint32(len(t.lines)))
		w.locIdx.Add(slot, v, w.locHash)
	}
	w.locMap[i] = v + 1
	return v
}

// locationHash hashes a location by its encoding; cols are its lines'
// columns (nil: all 0).
func (w *Writer) locationHash(sl location, lines []line, cols []int64) uint64 {
	k := w.key[:0]
	k = binary.AppendUvarint(k, sl.address)
	k = binary.AppendUvarint(k, uint64(sl.mf))
	k = binary.AppendUvarint(k, uint64(sl.attrs))
	for j, ln := range lines {
		k = binary.AppendUvarint(k, uint64(ln.Function))
		k = binary.AppendVarint(k, ln.Line)
		var c int64
		if cols != nil {
			c = cols[j]
		}
		k = binary.AppendVarint(k, c)
	}
	w.key = k
	return maphash.Bytes(w.seed, k)
}

func (w *Writer) locHash(v uint32) uint64 {
	t := w.t
	first, end := t.lineOff[v], t.lineOff[v+1]
	var cols []int64
	if t.columns != nil {
		cols = t.columns[first:end]
	}
	return w.locationHash(t.locations[v], t.lines[first:end], cols)
}

// nodeMem is what a node of the shared prefix tree may take: its location
// (4 bytes) and, when its parent is not the node added before it, its
// entry in the tree's index (a map of 8-byte keys and 4-byte values, at
// most half full, with its overhead); and, as Close orders the tree, its
// place in its parent's list of children.
const nodeMem = 60

// stack returns the shared stack node of p's stack i, adding nodes to the
// prefix tree, root first, as needed.
func (w *Writer) stack(p *model.Profile, i int32) uint32 {
	if v := w.stackMap[i]; v != 0 {
		return v - 1
	}
	node := uint32(0)
	for j := p.Stacks.StackLen(int(i)) - 1; j >= 0; j-- {
		node = w.tree.child(node, w.location(p, p.Stacks.Frame(int(i), j)))
	}
	w.stackMap[i] = node + 1
	return node
}

func (w *Writer) labelSet(p *model.Profile, i int32) uint32 {
	if i == 0 {
		return 0
	}
	if v := w.lsMap[i]; v != 0 {
		return v - 1
	}
	as := w.attrSet(p.LabelSets[i].Attributes())
	ls := w.labBuf[:0]
	for _, l := range p.LabelSets[i].Labels() {
		ls = append(ls, label{key: w.str(p, l.Key), str: w.str(p, l.Str), num: l.Num, unit: w.str(p, l.NumUnit)})
	}
	w.labBuf = ls
	v, slot, ok := w.labelIdx.Find(w.labelHash(as, ls), func(v uint32) bool {
		s := w.t.labelSets[v]
		return s.attrs == as && slices.Equal(w.t.labels[s.off:s.off+s.n], ls)
	})
	if !ok {
		v = uint32(len(w.t.labelSets))
		w.t.labelSets = append(w.t.labelSets, labelSet{off: uint32(len(w.t.labels)), n: uint32(len(ls)), attrs: as})
		w.t.labels = append(w.t.labels, ls...)
		w.labelIdx.Add(slot, v, w.labelSetHash)
	}
	w.lsMap[i] = v + 1
	return v
}

// labelHash hashes a label set of the shared tables: its attribute set
// and its labels.
func (w *Writer) labelHash(as uint32, ls []label) uint64 {
	k := binary.AppendUvarint(w.key[:0], uint64(as))
	for _, l := range ls {
		k = binary.AppendUvarint(k, uint64(l.key))
		k = binary.AppendUvarint(k, uint64(l.str))
		k = binary.AppendVarint(k, l.num)
		k = binary.AppendUvarint(k, uint64(l.unit))
	}
	w.key = k
	return maphash.Bytes(w.seed, k)
}

func (w *Writer) labelSetHash(v uint32) uint64 {
	s := w.t.labelSets[v]
	return w.labelHash(s.attrs, w.t.labels[s.off:s.off+s.n])
}

func (w *Writer) link(p *model.Profile, i int32) uint32 {
	if i == model.NoLink {
		return 0
	}
	if v := w.linkMap[i]; v != 0 {
		return v
	}
	l := p.Links[i]
	k := w.key[:0]
	k = binary.AppendUvarint(k, uint64(len(l.TraceID)))
	k = append(k, l.TraceID...)
	k = append(k, l.SpanID...)
	w.key = k
	v, ok := w.linkIdx[string(k)]
	if !ok {
		v = uint32(len(w.t.links))
		w.t.links = append(w.t.links, model.Link{TraceID: cloneBytes(l.TraceID), SpanID: cloneBytes(l.SpanID)})
		w.linkIdx[string(k)] = v
	}
	w.linkMap[i] = v + 1
	return v + 1
}

func cloneBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// Column flags of a section's samples.
const (
	colTimestamps = 1 << iota // timestamp columns present
)

func (w *Writer) valueType(e *enc, p *model.Profile, v model.ValueType) {
	e.u32(w.pstr(p, v.Type))
	e.u32(w.pstr(p, v.Unit))
	e.varint(int64(v.AggregationTemporality))
}

// encodeSection writes p's section into w.raw. The order in which it
// interns things into the shared tables depends only on p's values, never
// on the order of p's tables, so a profile read back from a bundle and
// added again lands on the same shared indices.
func (w *Writer) encodeSection(p *model.Profile) {
	// Profile-level fields that profiles of one program share go into a
	// shared header; the section keeps those that differ every time.
	h := &w.hdr
	h.b = h.b[:0]
	h.uvarint(uint64(len(p.SampleTypes)))
	for _, st := range p.SampleTypes {
		w.valueType(h, p, st)
	}
	h.u32(w.pstr(p, p.DefaultSampleType))
	w.valueType(h, p, p.PeriodType)
	h.varint(p.Period)
	h.uvarint(uint64(len(p.Comments)))
	for _, c := range p.Comments {
		h.u32(w.pstr(p, c))
	}
	h.u32(w.pstr(p, p.DropFrames))
	h.u32(w.pstr(p, p.KeepFrames))
	h.u32(w.pstr(p, p.DocURL))
	h.uvarint(uint64(len(p.Mappings)))
	for i := range p.Mappings {
		h.u32(w.mapping(p, &p.Mappings[i]))
	}
	encodeAttrs(h, p.Attributes, true)
	h.uvarint(uint64(p.DroppedAttributesCount))
	encodeAttrs(h, p.Resource.Attributes, true)
	h.uvarint(uint64(p.Resource.DroppedAttributesCount))
	h.str(p.Resource.SchemaURL)
	h.str(p.Scope.Name)
	h.str(p.Scope.Version)
	encodeAttrs(h, p.Scope.Attributes, true)
	h.uvarint(uint64(p.Scope.DroppedAttributesCount))
	h.str(p.Scope.SchemaURL)
	h.str(p.OriginalPayloadFormat)
	hi, ok := w.hdrIdx[string(h.b)]
	if !ok {
		hi = uint32(len(w.t.headers))
		w.t.headers = append(w.t.headers, append([]byte(nil), h.b...))
		w.hdrIdx[string(h.b)] = hi
	}

	e := &w.raw
	e.u32(hi)
	e.bytes(p.ProfileID)
	e.uvarint(p.StartTimeUnixNano)
	e.uvarint(p.EndTimeUnixNano)
	e.bytes(p.OriginalPayload)

	// Samples: a reference to a shared sample row each, then timestamps.
	// The number of samples, the time and the duration are in the index.
	var flags uint64
	for i := range p.Samples {
		if len(p.Samples[i].Timestamps()) != 0 {
			flags |= colTimestamps
		}
	}
	e.uvarint(flags)
	// Rows this section creates are numbered from fresh on, in sample
	// order: such a row is coded 0; any other as 1 + its zigzagged delta
	// from the previous sample's row.
	fresh := w.rows.n
	e.u32(fresh)
	var prev uint32
	for i := range p.Samples {
		r := w.row(p, &p.Samples[i])
		if r == fresh {
			e.uvarint(0)
			fresh++
		} else {
			e.uvarint(zigzag(int64(r)-int64(prev)) + 1)
		}
		prev = r
	}
	if flags&colTimestamps != 0 {
		for i := range p.Samples {
			e.uvarint(uint64(len(p.Samples[i].Timestamps())))
		}
		var prev uint64
		for i := range p.Samples {
			for _, ts := range p.Samples[i].Timestamps() {
				e.uvarint(zigzag(int64(ts - prev)))
				prev = ts
			}
		}
	}
}

// rowKey is what a sample row shares with the row it is coded against.
type rowKey struct{ node, labelSet, link, n uint32 }

// rowState is the latest row with a key: its index and values.
type rowState struct {
	row  uint32
	vals []int64
}

// rows is the shared sample-row table, kept encoded: only the latest row
// of each key is held as values, so memory grows with the encoded size of
// the distinct rows, not with the samples.
type rows struct {
	n        uint32
	latest   map[rowKey]*rowState
	base     enc      // per row: row - base row, 0 for none
	node     []uint32 // rows without a base: stack node, coded at Close once nodes are renumbered
	labelSet enc      // rows without a base
	link     enc      // rows without a base: link + 1, 0 for none
	count    enc      // rows without a base: number of values
	vals     []enc    // vals[j]: value j of each row that has one, as a delta from the base row's
}

// row returns the shared row of sample s: the latest row with the same
// stack, labels, link and values if there is one, else a new row coded as
// deltas against that latest row.
func (w *Writer) row(p *model.Profile, s *model.Sample) uint32 {
	k := rowKey{node: w.stack(p, s.Stack), labelSet: w.labelSet(p, s.LabelSet), link: w.link(p, s.Link), n: uint32(len(s.Values()))}
	rs := &w.rows
	st := rs.latest[k]
	if st != nil && slices.Equal(st.vals, s.Values()) {
		return st.row
	}
	r := rs.n
	rs.n++
	for len(rs.vals) < len(s.Values()) {
		rs.vals = append(rs.vals, enc{})
	}
	if st == nil {
		rs.base.uvarint(0)
		rs.node = append(rs.node, k.node)
		rs.labelSet.u32(k.labelSet)
		rs.link.u32(k.link)
		rs.count.u32(k.n)
		for j, v := range s.Values() {
			rs.vals[j].varint(v)
		}
		st = &rowState{vals: make([]int64, len(s.Values()))}
		rs.latest[k] = st
	} else {
		rs.base.u32(r - st.row)
		for j, v := range s.Values() {
			rs.vals[j].varint(v - st.vals[j])
		}
	}
	st.row = r
	copy(st.vals, s.Values())
	return r
}

// attrSet returns the index of an attribute set of a mapping or location
// in the shared table (0: none).
func (w *Writer) attrSet(attrs []model.Attribute) uint32 {
	if len(attrs) == 0 {
		return 0
	}
	var e enc
	encodeAttrs(&e, attrs, true)
	k := string(e.b)
	if v, ok := w.attrIdx[k]; ok {
		return v
	}
	v := uint32(len(w.t.attrSets))
	w.t.attrSets = append(w.t.attrSets, cloneAttrs(attrs))
	w.attrIdx[k] = v
	return v
}

// cloneAttrs copies attributes deeply (the writer keeps them past the
// profile they came from).
func cloneAttrs(as []model.Attribute) []model.Attribute {
	out := make([]model.Attribute, len(as))
	for i, a := range as {
		out[i] = model.Attribute{Key: strings.Clone(a.Key), Value: cloneValue(a.Value), Unit: strings.Clone(a.Unit)}
	}
	return out
}

func cloneValue(v model.Value) model.Value {
	v.Str = strings.Clone(v.Str)
	v.Bytes = bytes.Clone(v.Bytes)
	if v.Array != nil {
		arr := make([]model.Value, len(v.Array))
		for i, x := range v.Array {
			arr[i] = cloneValue(x)
		}
		v.Array = arr
	}
	if v.Map != nil {
		v.Map = cloneAttrs(v.Map)
	}
	return v
}

// encodeAttrs appends attributes: count, then per attribute its key, its
// value and, with units (every list but a map value's), its unit.
func encodeAttrs(e *enc, attrs []model.Attribute, units bool) {
	e.uvarint(uint64(len(attrs)))
	for _, a := range attrs {
		e.str(a.Key)
		encodeValue(e, a.Value)
		if units {
			e.str(a.Unit)
		}
	}
}

func encodeValue(e *enc, v model.Value) {
	e.uvarint(uint64(v.Kind))
	switch v.Kind {
	case model.KindString:
		e.str(v.Str)
	case model.KindBool:
		e.bool(v.Bool)
	case model.KindInt:
		e.varint(v.Int)
	case model.KindDouble:
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v.Double))
	case model.KindBytes:
		e.bytes(v.Bytes)
	case model.KindArray:
		e.uvarint(uint64(len(v.Array)))
		for _, x := range v.Array {
			encodeValue(e, x)
		}
	case model.KindMap:
		encodeAttrs(e, v.Map, false)
	}
}

// Close writes the shared tables, the index and the footer, and flushes.
// It does not close the underlying writer. A bundle may hold no profiles.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	w.header()
	w.dropIndexes()
	var raw enc
	ct := w.t.canonical()
	w.t = nil
	ct.order.markRows(w.rows.node)
	ct.encode(&raw)
	w.rows.encode(&raw, ct.order)
	ct.encodeAttrSets(&raw)
	tablesOff, tablesRaw := w.off, uint64(len(raw.b))
	if w.tablesLevel != w.secLevel || len(raw.b) > sectionWindow {
		// A second encoder for the tables alone, with a window no larger
		// than they need.
		win := 1 << 16
		for win < len(raw.b) && win < maxWindow {
			win <<= 1
		}
		tz, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(w.tablesLevel), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(win), zstd.WithEncoderCRC(true), zstd.WithLowerEncoderMem(true))
		if err != nil {
			w.err = err
			return err
		}
		w.comp = tz.EncodeAll(raw.b, w.comp[:0])
		tz.Close()
	} else {
		w.comp = w.zw.EncodeAll(raw.b, w.comp[:0])
	}
	tablesLen := uint64(len(w.comp))
	w.write(w.comp)

	raw.b = raw.b[:0]
	raw.uvarint(uint64(len(w.entries)))
	var prevTime int64
	for _, e := range w.entries {
		raw.str(e.Name)
		raw.str(e.SourceFormat)
		raw.uvarint(uint64(len(e.SampleTypes)))
		for _, s := range e.SampleTypes {
			raw.str(s)
		}
		raw.uvarint(uint64(e.Samples))
		raw.uvarint(zigzag(e.TimeNanos - prevTime))
		prevTime = e.TimeNanos
		raw.varint(e.DurationNanos)
		raw.uvarint(e.size)
		raw.uvarint(e.rawSize)
	}
	indexOff, indexRaw := w.off, uint64(len(raw.b))
	w.comp = w.zw.EncodeAll(raw.b, w.comp[:0])
	indexLen := uint64(len(w.comp))
	w.write(w.comp)

	f := make([]byte, 0, footerSize)
	for _, v := range []uint64{tablesOff, tablesLen, tablesRaw, indexOff, indexLen, indexRaw} {
		f = binary.LittleEndian.AppendUint64(f, v)
	}
	f = binary.LittleEndian.AppendUint32(f, uint32(len(w.entries)))
	f = binary.LittleEndian.AppendUint32(f, crc32.ChecksumIEEE(f))
	f = append(f, footerMagic...)
	w.write(f)
	if w.err == nil {
		w.err = w.w.Flush()
	}
	w.zw.Close()
	return w.err
}

// dropIndexes lets go of what only Add needs, before Close orders the
// tables for writing: the indexes that find an entry already added (the
// prefix tree's goes as Close orders the tree), the rows' latest values
// and the per-profile scratch.
func (w *Writer) dropIndexes() {
	w.strIdx, w.funcIdx, w.locIdx = hashindex.Index{}, hashindex.Index{}, hashindex.Index{}
	w.pstrIdx, w.hdrIdx, w.attrIdx, w.linkIdx = nil, nil, nil, nil
	w.labelIdx = hashindex.Index{}
	w.lineBuf, w.colBuf, w.mapIdx = nil, nil, nil
	w.t.tree, w.tree = w.tree, nil
	w.rows.latest = nil
	w.strMap, w.funcMap, w.locMap, w.stackMap, w.lsMap, w.linkMap, w.key = nil, nil, nil, nil, nil, nil, nil
	w.raw, w.hdr = enc{}, enc{}
}

// encode writes the rows: their count, then column by column: base delta;
// for rows without a base, the stack node (renumbered as written) as a delta
// from the previous such row's, label set, link and value count; then the
// values, value slot by value slot.
func (rs *rows) encode(e *enc, o *treeOrder) {
	e.uvarint(uint64(rs.n))
	e.b = append(e.b, rs.base.b...)
	var prev uint32
	for _, n := range rs.node {
		v := o.newRow(n)
		e.uvarint(zigzag(int64(v) - int64(prev)))
		prev = v
	}
	for _, c := range []*enc{&rs.labelSet, &rs.link, &rs.count} {
		e.b = append(e.b, c.b...)
	}
	e.uvarint(uint64(len(rs.vals)))
	for _, c := range rs.vals {
		e.b = append(e.b, c.b...)
	}
}

// AddBundle adds every profile of r, in order, under its name and source
// format: merging a bundle flattens it. Adding the profiles of merge(a, b)
// gives the same bytes as adding those of a and then b.
func (w *Writer) AddBundle(r *Reader) error {
	for i := 0; i < r.Len(); i++ {
		p, err := r.Profile(i)
		if err != nil {
			return err
		}
		if err := w.Add(r.entries[i], p); err != nil {
			return err
		}
	}
	return nil
}

// warnOnce tells Warn msg the first time only.
func (w *Writer) warnOnce(msg string) {
	if w.warn != nil && !w.warned[msg] {
		w.warned[msg] = true
		w.warn(msg)
	}
}
