package bundle

import (
	"encoding/binary"
	"math"
	"sort"
	"unsafe"

	"github.com/pprofx/pprofx/internal/model"
)

// tables are the shared, deduplicated tables of a bundle. Every index in
// them is into another shared table; docs/bundle-format.md describes the
// encoding.
type tables struct {
	pstrings  strTable // strings sections reference
	strings   strTable // strings the tables reference
	headers   [][]byte // encoded profile headers, see Writer.encodeSection
	mappings  []mapping
	functions []function
	locations []location
	lines     []line     // all locations' lines back to back
	columns   []int64    // lines[j]'s column is columns[j]; nil when all are 0
	lineOff   []uint32   // location i's lines are lines[lineOff[i]:lineOff[i+1]]
	nodes     nodeTable  // the stack prefix tree
	labelSets []labelSet // labelSets[0] is the empty set
	labels    []label    // all sets' labels back to back
	links     []model.Link
	// Attribute sets of mappings and locations (version 2) and of label
	// sets (version 3): attrSets[0] is the empty set.
	attrSets [][]model.Attribute
	version  uint32 // the format version read (headers are read later)
	counted  int64  // what decoding counted them at (dec.mem)
	// readers counts the profiles being read from them (Reader.take),
	// under Reader.mu; a pointer, as a profile read last copies tables.
	readers *int

	// For writing: the writer's prefix tree (taken instead of nodes,
	// which the reader fills); canonical sets locNew, where
	// location i is written, and order, the tree's children in the order
	// written.
	tree   *prefixTree
	locNew []uint32
	order  *treeOrder

	// Sample rows: row i has stack node rowNode[i], label set rowLabels[i],
	// link rowLink[i] (index+1, 0 for none) and values
	// rowVals[rowOff[i]:rowOff[i+1]].
	rowNode, rowLabels, rowLink, rowOff []uint32
	rowVals                             []int64
}

type mapping struct {
	start, limit, offset uint64
	file, buildID        uint32
	buildIDKind          int32
	flags                uint8  // hasFunctions 1, hasFilenames 2, hasLineNumbers 4, hasInlineFrames 8
	attrs                uint32 // index into attrSets
}

// function is a function with shared string indices: a profile read last
// (Reader.ProfileLast) that uses every shared function can take them as
// they are, once their strings are numbered as its own.
type function = model.Function

// location is a location's fields but its lines: 16 bytes, for a bundle
// may hold millions.
type location struct {
	address uint64
	// mf is the shared mapping's index + 1 (0 for none) in its low 31
	// bits, and whether the location is folded in its top bit.
	mf    uint32
	attrs uint32 // index into attrSets
}

// maxMappings is the most mappings a bundle holds: a location's mapping
// index + 1 has 31 bits.
const maxMappings = 1<<31 - 2

const foldedBit = 1 << 31

func newLocation(address uint64, mapping uint32, folded bool, attrs uint32) location {
	if folded {
		mapping |= foldedBit
	}
	return location{address: address, mf: mapping, attrs: attrs}
}

// mapping returns the shared mapping's index + 1, 0 for none.
func (l *location) mapping() uint32 { return l.mf &^ foldedBit }

func (l *location) folded() bool { return l.mf&foldedBit != 0 }

// line is a location's line with a shared function index: a profile read
// last (Reader.ProfileLast) can take its locations' lines as they are, once
// their functions are numbered as its own.
type line = model.Line

// column returns the column of line j.
func (t *tables) column(j uint32) int64 {
	if t.columns == nil {
		return 0
	}
	return t.columns[j]
}

// sameColumns reports whether lines first to end have the columns cols
// (nil: all 0).
func (t *tables) sameColumns(first, end uint32, cols []int64) bool {
	for j := first; j < end; j++ {
		var c int64
		if cols != nil {
			c = cols[j-first]
		}
		if t.column(j) != c {
			return false
		}
	}
	return true
}

// addLines appends a location's lines and their columns (nil: all 0).
func (t *tables) addLines(lines []line, cols []int64) {
	if t.columns == nil && cols != nil {
		t.columns = make([]int64, len(t.lines), cap(t.lines))
	}
	t.lines = append(t.lines, lines...)
	if t.columns == nil {
		return
	}
	if cols == nil {
		t.columns = append(t.columns, make([]int64, len(lines))...)
		return
	}
	t.columns = append(t.columns, cols...)
}

// labelSet is a label set's labels, labels[off:off+n], and its
// attributes, attrSets[attrs].
type labelSet struct{ off, n, attrs uint32 }

type label struct {
	key, str uint32
	num      int64
	unit     uint32
}

func newTables() *tables {
	return &tables{
		pstrings:  newStrTable(),
		strings:   newStrTable(),
		lineOff:   []uint32{0},
		labelSets: []labelSet{{}},
		attrSets:  [][]model.Attribute{nil},
	}
}

// canonical returns the tables renumbered for encoding: strings in order of
// first use by mappings, functions and labels (so a function's strings
// mostly follow the previous function's); locations by mapping and address;
// stack nodes in preorder, each node's children in location order (the
// preorder is made as writeNodes writes the nodes). Mappings,
// functions, label sets, links and sample rows keep their indices, since
// sections reference them (and rows are already encoded, except their
// nodes). It takes t's tables over: t is not to be used after.
func (t *tables) canonical() *tables {
	x := *t
	strNew := make([]uint32, t.strings.len())
	for i := range strNew {
		strNew[i] = math.MaxUint32
	}
	strNew[0] = 0
	x.strings = strTable{b: make([]byte, 0, t.strings.size()), end: make([]uint32, 1, t.strings.len())}
	str := func(i uint32) uint32 {
		if strNew[i] == math.MaxUint32 {
			strNew[i] = x.strings.add(t.strings.at(i))
		}
		return strNew[i]
	}
	x.mappings = append([]mapping(nil), t.mappings...)
	for i := range x.mappings {
		x.mappings[i].file = str(x.mappings[i].file)
		x.mappings[i].buildID = str(x.mappings[i].buildID)
	}
	x.functions = append([]function(nil), t.functions...)
	for i := range x.functions {
		f := &x.functions[i]
		f.Name, f.SystemName, f.Filename = int32(str(uint32(f.Name))), int32(str(uint32(f.SystemName))), int32(str(uint32(f.Filename)))
	}
	x.labels = append([]label(nil), t.labels...)
	for i := range x.labels {
		l := &x.labels[i]
		l.key, l.str, l.unit = str(l.key), str(l.str), str(l.unit)
	}
	for i := range strNew {
		str(uint32(i))
	}
	t.strings, t.mappings, t.functions, t.labels = strTable{}, nil, nil, nil

	// Locations by mapping and address; lines' functions unchanged.
	nl := len(t.locations)
	order := make([]uint32, nl)
	for i := range order {
		order[i] = uint32(i)
	}
	sort.SliceStable(order, func(a, b int) bool {
		la, lb := &t.locations[order[a]], &t.locations[order[b]]
		if ma, mb := la.mapping(), lb.mapping(); ma != mb {
			return ma < mb
		}
		return la.address < lb.address
	})
	locNew := make([]uint32, nl)
	x.locations = make([]location, nl)
	x.lines = make([]line, 0, len(t.lines))
	if t.columns != nil {
		x.columns = make([]int64, 0, len(t.columns))
	}
	x.lineOff = make([]uint32, 1, nl+1)
	for n, o := range order {
		locNew[o] = uint32(n)
		x.locations[n] = t.locations[o]
		first, end := t.lineOff[o], t.lineOff[o+1]
		x.lines = append(x.lines, t.lines[first:end]...)
		if t.columns != nil {
			x.columns = append(x.columns, t.columns[first:end]...)
		}
		x.lineOff = append(x.lineOff, uint32(len(x.lines)))
	}
	t.locations, t.lines, t.columns, t.lineOff = nil, nil, nil, nil

	// Stack nodes: each node's children in location order.
	x.locNew = locNew
	x.order = t.tree.order(locNew)
	t.tree = nil
	return &x
}

// predictor holds what line numbers, and then location addresses, are
// coded against. All lines are coded before any address, so one array
// serves both. For lines, fn[f] is the last line number seen in function
// f (its start line at first). For addresses (after addrs), fn[f] is the
// last address seen for a location whose outermost function is f, if seen
// has f; failing that, a location is coded against the last address seen
// in its mapping. So decoding keeps 8 bytes and a bit a function beside
// the tables.
type predictor struct {
	fn      []uint64
	seen    bitset
	mapAddr []uint64
	nmap    int
}

func newPredictor(fns []function, nmappings int) *predictor {
	p := &predictor{fn: make([]uint64, len(fns)), nmap: nmappings}
	for i, f := range fns {
		p.fn[i] = uint64(f.StartLine)
	}
	return p
}

// lastLine returns the line number function f's next line is coded
// against, and sawLine notes f's line l.
func (p *predictor) lastLine(f uint32) int64   { return int64(p.fn[f]) }
func (p *predictor) sawLine(f uint32, l int64) { p.fn[f] = uint64(l) }

// addrs turns p from lines to addresses.
func (p *predictor) addrs() {
	clear(p.fn)
	p.seen.grow(len(p.fn))
	p.mapAddr = make([]uint64, p.nmap+1)
}

// addrBase returns the address a location is coded against.
func (p *predictor) addrBase(lines []line, mapping uint32) uint64 {
	if len(lines) > 0 {
		if f := uint32(lines[len(lines)-1].Function); p.seen.has(f) {
			return p.fn[f]
		}
	}
	return p.mapAddr[mapping]
}

func (p *predictor) sawAddr(lines []line, mapping uint32, addr uint64) {
	if len(lines) > 0 {
		f := uint32(lines[len(lines)-1].Function)
		p.fn[f] = addr
		p.seen.set(f)
	}
	p.mapAddr[mapping] = addr
}

func (t *tables) encode(e *enc) {
	encodeStrings(e, &t.pstrings)
	encodeStrings(e, &t.strings)
	e.uvarint(uint64(len(t.headers)))
	for _, h := range t.headers {
		e.uvarint(uint64(len(h)))
	}
	for _, h := range t.headers {
		e.b = append(e.b, h...)
	}

	// Mappings, column by column.
	e.uvarint(uint64(len(t.mappings)))
	for _, m := range t.mappings {
		e.uvarint(m.start)
	}
	for _, m := range t.mappings {
		e.uvarint(m.limit - m.start)
	}
	for _, m := range t.mappings {
		e.uvarint(m.offset)
	}
	for _, m := range t.mappings {
		e.u32(m.file)
	}
	for _, m := range t.mappings {
		e.u32(m.buildID)
	}
	for _, m := range t.mappings {
		e.varint(int64(m.buildIDKind))
	}
	for _, m := range t.mappings {
		e.uvarint(uint64(m.flags))
	}

	// Functions: system_name is coded 0 when it equals name, else index+1.
	e.uvarint(uint64(len(t.functions)))
	for _, f := range t.functions {
		e.u32(uint32(f.Name))
	}
	for _, f := range t.functions {
		if f.SystemName == f.Name {
			e.uvarint(0)
		} else {
			e.uvarint(uint64(f.SystemName) + 1)
		}
	}
	for _, f := range t.functions {
		e.u32(uint32(f.Filename))
	}
	for _, f := range t.functions {
		e.varint(f.StartLine)
	}

	// Locations: mapping+1; line count <<1 | is_folded; then all lines:
	// function as a delta from the previous line's, line number as a delta
	// from the last one seen in that function, column; then addresses as
	// deltas from the predictor's base.
	e.uvarint(uint64(len(t.locations)))
	for _, l := range t.locations {
		e.u32(l.mapping())
	}
	for i, l := range t.locations {
		n := uint64(t.lineOff[i+1] - t.lineOff[i])
		f := uint64(0)
		if l.folded() {
			f = 1
		}
		e.uvarint(n<<1 | f)
	}
	var prevFn int32
	for _, ln := range t.lines {
		e.uvarint(zigzag(int64(ln.Function) - int64(prevFn)))
		prevFn = ln.Function
	}
	pr := newPredictor(t.functions, len(t.mappings))
	for _, ln := range t.lines {
		e.uvarint(zigzag(ln.Line - pr.lastLine(uint32(ln.Function))))
		pr.sawLine(uint32(ln.Function), ln.Line)
	}
	for j := range t.lines {
		e.varint(t.column(uint32(j)))
	}
	pr.addrs()
	for i, l := range t.locations {
		lines := t.lines[t.lineOff[i]:t.lineOff[i+1]]
		e.uvarint(zigzag(int64(l.address - pr.addrBase(lines, l.mapping()))))
		pr.sawAddr(lines, l.mapping(), l.address)
	}

	t.writeNodes(e)

	// Label sets (set 0, the empty set, is implicit): sizes, then labels
	// column by column.
	e.uvarint(uint64(len(t.labelSets) - 1))
	for _, s := range t.labelSets[1:] {
		e.u32(s.n)
	}
	for _, l := range t.labels {
		e.u32(l.key)
	}
	for _, l := range t.labels {
		e.u32(l.str)
	}
	for _, l := range t.labels {
		e.varint(l.num)
	}
	for _, l := range t.labels {
		e.u32(l.unit)
	}

	// Links.
	e.uvarint(uint64(len(t.links)))
	for _, l := range t.links {
		e.bytes(l.TraceID)
		e.bytes(l.SpanID)
	}
}

// writeNodes writes the stack nodes in preorder, each node's children in
// location order: the number of children of every node, root included;
// then each node's location, as is for a first child, else as the
// distance from its previous sibling's minus one. It notes the index each
// node a row ends at is written as (treeOrder.numbered).
func (t *tables) writeNodes(e *enc) {
	o := t.order
	e.uvarint(uint64(o.tree.len() - 1))
	// Preorder, with the last child pushed first; each entry is a node
	// and its previous sibling's location + 1 (0 for a first child).
	type visit struct{ node, prev uint32 }
	push := func(stack []visit, n uint32) []visit {
		ks := o.children(n)
		for j := len(ks) - 1; j >= 0; j-- {
			prev := uint32(0)
			if j > 0 {
				prev = t.locNew[o.tree.loc.at(ks[j-1])] + 1
			}
			stack = append(stack, visit{ks[j], prev})
		}
		return stack
	}
	stack := []visit{{}}
	next := uint32(0)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = push(stack[:len(stack)-1], v.node)
		o.numbered(v.node, next)
		next++
		e.u32(uint32(len(o.children(v.node))))
	}
	// The locations, in the same order.
	stack = push(stack, 0)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = push(stack[:len(stack)-1], v.node)
		l := t.locNew[o.tree.loc.at(v.node)]
		if v.prev == 0 {
			e.uvarint(uint64(l))
		} else {
			e.uvarint(uint64(l - v.prev))
		}
	}
}

// encodeAttrSets appends what versions 2 and 3 added after the sample
// rows: the attribute sets (count without set 0; each set as the profile
// headers' attributes), then each mapping's set, then each location's,
// then (version 3) each label set's but the empty one's.
func (t *tables) encodeAttrSets(e *enc) {
	e.uvarint(uint64(len(t.attrSets) - 1))
	for _, s := range t.attrSets[1:] {
		encodeAttrs(e, s, true)
	}
	for _, m := range t.mappings {
		e.u32(m.attrs)
	}
	for _, l := range t.locations {
		e.u32(l.attrs)
	}
	for _, s := range t.labelSets[1:] {
		e.u32(s.attrs)
	}
}

// decodeAttrSets reads what encodeAttrSets wrote (in a version 2 bundle,
// without the label sets').
func (t *tables) decodeAttrSets(d *dec) {
	n := d.count("attribute_sets.count", 1)
	t.attrSets = make([][]model.Attribute, 1, n+1)
	for i := 0; i < n && d.err == nil; i++ {
		t.attrSets = append(t.attrSets, decodeAttrs(d, "attribute_set", 0))
	}
	for i := range t.mappings {
		t.mappings[i].attrs = d.ref("mapping.attributes", len(t.attrSets))
	}
	for i := range t.locations {
		t.locations[i].attrs = d.ref("location.attributes", len(t.attrSets))
	}
	if d.version >= 3 {
		for i := 1; i < len(t.labelSets); i++ {
			t.labelSets[i].attrs = d.ref("label_set.attributes", len(t.attrSets))
		}
	}
}

// What an entry of each shared table takes in memory while a profile is
// read from them: its form here, the unpacker's index of it (4 bytes) and
// the profile's entry built from it, and what decoding it keeps beside
// (the predictor's, a location's line offset). A bundle of 1M functions
// and locations (20 MiB) counts 207 MiB so: refused under a memory limit
// that leaves less, rather than left to run out of memory. Without a
// limit nothing is refused for it: a valid bundle's tables may take many
// times their bytes.
const (
	memMapping  = int(unsafe.Sizeof(mapping{})+unsafe.Sizeof(model.Mapping{})) + 8
	memNode     = 4 + 8 + 4 + 4 // location; parent, listed unless a first child; a stack's offset and frame
	memLabelSet = int(unsafe.Sizeof(labelSet{})+unsafe.Sizeof(model.LabelSet{})) + 4
	memLabel    = int(unsafe.Sizeof(label{}) + unsafe.Sizeof(model.Label{}))
	memLink     = int(2*unsafe.Sizeof(model.Link{})) + 4
	memRow      = 4*4 + int(unsafe.Sizeof(model.Sample{}))
)

// entryMem is what an entry of the tables whose profile entries a
// summary does not make takes: strings, functions, locations, lines.
type entryMem struct{ str, function, location, line int }

var (
	wholeMem = entryMem{
		str:      4 + int(unsafe.Sizeof("")) + 4,
		function: int(unsafe.Sizeof(function{})+unsafe.Sizeof(model.Function{})) + 4 + 9,
		location: int(unsafe.Sizeof(location{})+unsafe.Sizeof(model.Location{})) + 4 + 4,
		line:     int(unsafe.Sizeof(line{}) + unsafe.Sizeof(model.Line{})),
	}
	// hollowMem: the tables are read for summaries (Reader.Hollow),
	// which make no string, function, location or line of a profile.
	hollowMem = entryMem{
		str:      4 + 4,
		function: int(unsafe.Sizeof(function{})) + 4 + 9,
		location: int(unsafe.Sizeof(location{})) + 4 + 4,
		line:     int(unsafe.Sizeof(line{})),
	}
)

// modelMem is what t's strings, functions, locations and lines take as a
// profile's beyond what hollowMem counted for them.
func (t *tables) modelMem() int64 {
	return int64(t.strings.len())*int64(wholeMem.str-hollowMem.str) +
		int64(len(t.functions))*int64(wholeMem.function-hollowMem.function) +
		int64(len(t.locations))*int64(wholeMem.location-hollowMem.location) +
		int64(len(t.lines))*int64(wholeMem.line-hollowMem.line)
}

// decodeMappings reads the mapping columns.
func (t *tables) decodeMappings(d *dec, ns int) {
	n := d.countMem("mappings.count", 7, memMapping, "mappings")
	if n > maxMappings {
		d.fail("mappings.count", "%d mappings, more than a bundle holds (%d)", n, maxMappings)
		return
	}
	t.mappings = make([]mapping, n)
	for i := range t.mappings {
		t.mappings[i].start = d.uvarint("mapping.start")
	}
	for i := range t.mappings {
		t.mappings[i].limit = t.mappings[i].start + d.uvarint("mapping.limit")
	}
	for i := range t.mappings {
		t.mappings[i].offset = d.uvarint("mapping.offset")
	}
	for i := range t.mappings {
		t.mappings[i].file = d.ref("mapping.file", ns)
	}
	for i := range t.mappings {
		t.mappings[i].buildID = d.ref("mapping.build_id", ns)
	}
	for i := range t.mappings {
		t.mappings[i].buildIDKind = int32(d.varint("mapping.build_id_kind"))
	}
	for i := range t.mappings {
		f := d.uvarint("mapping.flags")
		if d.err == nil && f > 15 {
			d.fail("mapping.flags", "unknown flags %#x", f)
		}
		t.mappings[i].flags = uint8(f)
	}
}

// decodeFunctions reads the function columns.
func (t *tables) decodeFunctions(d *dec, ns int) {
	n := d.countMem("functions.count", 4, d.entryMem().function, "functions")
	if n > math.MaxInt32 {
		d.fail("functions.count", "%d functions, more than a bundle holds (%d)", n, math.MaxInt32)
		return
	}
	t.functions = make([]function, n)
	for i := range t.functions {
		t.functions[i].Name = int32(d.ref("function.name", ns))
	}
	for i := range t.functions {
		v := d.ref("function.system_name", ns+1)
		if v == 0 {
			t.functions[i].SystemName = t.functions[i].Name
		} else {
			t.functions[i].SystemName = int32(v - 1)
		}
	}
	for i := range t.functions {
		t.functions[i].Filename = int32(d.ref("function.filename", ns))
	}
	for i := range t.functions {
		t.functions[i].StartLine = d.varint("function.start_line")
	}
}

// decodeTables parses and checks the shared tables of a bundle of the given
// version: every index must be in range, and every stack node's parent must
// come before it.
func decodeTables(d *dec, version uint32) (*tables, error) {
	t := &tables{attrSets: [][]model.Attribute{nil}, version: version}
	d.version = version
	t.pstrings = decodeStrings(d, "profile_strings")
	t.strings = decodeStrings(d, "strings")
	if d.err != nil {
		return nil, d.err
	}
	ns := t.strings.len()

	n := d.count("headers.count", 2)
	t.headers = make([][]byte, n)
	hlens := make([]uint64, n)
	var htotal uint64
	for i := range hlens {
		hlens[i] = d.uvarint("header.length")
		htotal += hlens[i]
		if d.err == nil && htotal > uint64(len(d.b)-d.off) {
			d.fail("header.length", "header %d ends past the end of the block", i)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	// Copied, into one array, so that the block is not held by them.
	hall := make([]byte, htotal)
	copy(hall, d.b[d.off:])
	d.off += int(htotal)
	for i, l := range hlens {
		t.headers[i] = hall[:l:l]
		hall = hall[l:]
	}

	t.decodeMappings(d, ns)

	t.decodeFunctions(d, ns)
	nf := len(t.functions)

	n = d.countMem("locations.count", 3, d.entryMem().location, "locations")
	t.locations = make([]location, n)
	for i := range t.locations {
		t.locations[i].mf = d.ref("location.mapping", len(t.mappings)+1)
	}
	t.lineOff = make([]uint32, n+1)
	var nlines uint64
	for i := range t.locations {
		v := d.uvarint("location.lines")
		if v&1 == 1 {
			t.locations[i].mf |= foldedBit
		}
		nlines += v >> 1
		// Each line takes at least 3 bytes further on.
		if d.err == nil && nlines > uint64(len(d.b)-d.off)/3 {
			d.fail("location.lines", "%d lines exceed the bytes left", nlines)
		}
		t.lineOff[i+1] = uint32(nlines)
	}
	d.reserve("lines", int(nlines), d.entryMem().line)
	if d.err != nil {
		return nil, d.err
	}
	t.lines = make([]line, nlines)
	var fn int64
	for i := range t.lines {
		fn += unzigzag(d.uvarint("line.function"))
		if d.err == nil && (fn < 0 || fn >= int64(nf)) {
			d.fail("line.function", "index %d out of range (%d functions)", fn, nf)
		}
		if d.err != nil {
			return nil, d.err
		}
		t.lines[i].Function = int32(fn)
	}
	pr := newPredictor(t.functions, len(t.mappings))
	for i := range t.lines {
		f := uint32(t.lines[i].Function)
		t.lines[i].Line = pr.lastLine(f) + unzigzag(d.uvarint("line.line"))
		pr.sawLine(f, t.lines[i].Line)
	}
	for i := range t.lines {
		c := d.varint("line.column")
		if c != 0 && t.columns == nil {
			// Columns are kept only once one is not 0: in the shared
			// tables, and in a profile's.
			d.reserve("line columns", len(t.lines), 16)
			if d.err != nil {
				return nil, d.err
			}
			t.columns = make([]int64, len(t.lines))
		}
		if t.columns != nil {
			t.columns[i] = c
		}
	}
	pr.addrs()
	for i := range t.locations {
		l := &t.locations[i]
		lines := t.lines[t.lineOff[i]:t.lineOff[i+1]]
		m := l.mapping()
		l.address = pr.addrBase(lines, m) + uint64(unzigzag(d.uvarint("location.address")))
		pr.sawAddr(lines, m, l.address)
	}
	nl := len(t.locations)

	n = d.count("stack_nodes.count", 2)
	d.reserve("stack nodes", n, memNode)
	if d.err != nil {
		return nil, d.err
	}
	if !t.nodes.decode(d, n, nl) {
		return nil, d.err
	}

	n = d.countMem("label_sets.count", 1, memLabelSet, "label sets")
	t.labelSets = make([]labelSet, n+1)
	var nlab uint64
	for i := 1; i <= n; i++ {
		c := d.uvarint("label_set.size")
		t.labelSets[i] = labelSet{off: uint32(nlab), n: uint32(c)}
		nlab += c
		if d.err == nil && nlab > uint64(len(d.b)-d.off)/4 {
			d.fail("label_set.size", "%d labels exceed the bytes left", nlab)
		}
	}
	d.reserve("labels", int(nlab), memLabel)
	if d.err != nil {
		return nil, d.err
	}
	t.labels = make([]label, nlab)
	for i := range t.labels {
		t.labels[i].key = d.ref("label.key", ns)
	}
	for i := range t.labels {
		t.labels[i].str = d.ref("label.str", ns)
	}
	for i := range t.labels {
		t.labels[i].num = d.varint("label.num")
	}
	for i := range t.labels {
		t.labels[i].unit = d.ref("label.num_unit", ns)
	}

	n = d.countMem("links.count", 2, memLink, "links")
	t.links = make([]model.Link, n)
	for i := range t.links {
		t.links[i].TraceID = d.bytes("link.trace_id")
		t.links[i].SpanID = d.bytes("link.span_id")
		if n := len(t.links[i].TraceID); n != 0 && n != 16 {
			d.fail("link.trace_id", "%d bytes, want 16", n)
		}
		if n := len(t.links[i].SpanID); n != 0 && n != 8 {
			d.fail("link.span_id", "%d bytes, want 8", n)
		}
	}
	if !t.decodeRows(d) {
		return nil, d.err
	}
	t.nodes.markEnds(t.rowNode)
	if version >= 2 {
		t.decodeAttrSets(d)
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	return t, nil
}

// decodeRows reads the sample rows that follow the other tables.
func (t *tables) decodeRows(d *dec) bool {
	// Every row takes at least one byte (its base) in the rest.
	n := d.count("rows.count", 1)
	d.reserve("sample rows", n, memRow)
	if d.err != nil {
		return false
	}
	base := make([]uint32, n)
	nfresh := 0
	for i := range base {
		b := d.uvarint("row.base")
		if d.err == nil && b > uint64(i) {
			d.fail("row.base", "row %d: base delta %d reaches before row 0", i, b)
		}
		base[i] = uint32(b)
		if b == 0 {
			nfresh++
		}
	}
	if d.err != nil {
		return false
	}
	t.rowNode = make([]uint32, n)
	t.rowLabels = make([]uint32, n)
	t.rowLink = make([]uint32, n)
	t.rowOff = make([]uint32, n+1)
	var node int64
	for i := range base {
		if base[i] == 0 {
			node += unzigzag(d.uvarint("row.node"))
			if d.err == nil && (node < 0 || node >= int64(t.nodes.len())) {
				d.fail("row.node", "row %d: stack node %d out of range (%d nodes)", i, node, t.nodes.len())
			}
			t.rowNode[i] = uint32(node)
		}
	}
	for i := range base {
		if base[i] == 0 {
			t.rowLabels[i] = d.ref("row.label_set", len(t.labelSets))
		}
	}
	for i := range base {
		if base[i] == 0 {
			t.rowLink[i] = d.ref("row.link", len(t.links)+1)
		}
	}
	var nvals uint64
	for i := range base {
		var c uint64
		if base[i] == 0 {
			c = d.uvarint("row.values")
		} else {
			b := uint32(i) - base[i]
			t.rowNode[i], t.rowLabels[i], t.rowLink[i] = t.rowNode[b], t.rowLabels[b], t.rowLink[b]
			c = uint64(t.rowOff[b+1] - t.rowOff[b])
		}
		nvals += c
		// Each value takes at least one byte further on.
		if d.err == nil && nvals > uint64(len(d.b)-d.off) {
			d.fail("row.values", "row %d: %d values exceed the bytes left", i, nvals)
		}
		if d.err != nil {
			return false
		}
		t.rowOff[i+1] = uint32(nvals)
	}
	slots := d.count("rows.value_slots", 0)
	t.rowVals = make([]int64, nvals)
	for j := 0; j < slots && d.err == nil; j++ {
		for i := range base {
			off, c := t.rowOff[i], t.rowOff[i+1]-t.rowOff[i]
			if uint32(j) >= c {
				continue
			}
			v := d.varint("row.value")
			if base[i] != 0 {
				b := uint32(i) - base[i]
				v += t.rowVals[t.rowOff[b]+uint32(j)]
			}
			t.rowVals[off+uint32(j)] = v
		}
	}
	for i := range base {
		if d.err == nil && t.rowOff[i+1]-t.rowOff[i] > uint32(slots) {
			d.fail("rows.value_slots", "row %d has %d values, only %d value columns", i, t.rowOff[i+1]-t.rowOff[i], slots)
		}
	}
	return d.err == nil
}

// encodeStrings writes a string table: the count, each string's length
// and the length of the prefix it shares with the string before it, then
// the strings' remaining bytes back to back.
func encodeStrings(e *enc, ss *strTable) {
	n := ss.len()
	e.uvarint(uint64(n))
	prev := ""
	for i := range n {
		s := ss.at(uint32(i))
		e.uvarint(uint64(commonPrefix(prev, s)))
		prev = s
	}
	prev = ""
	for i := range n {
		s := ss.at(uint32(i))
		e.uvarint(uint64(len(s) - commonPrefix(prev, s)))
		prev = s
	}
	prev = ""
	for i := range n {
		s := ss.at(uint32(i))
		e.b = append(e.b, s[commonPrefix(prev, s):]...)
		prev = s
	}
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func decodeStrings(d *dec, what string) strTable {
	n := d.count(what+".count", 2)
	d.reserve(what, n, d.entryMem().str)
	if d.err != nil {
		return strTable{}
	}
	if n > math.MaxInt32 {
		d.fail(what+".count", "%d strings, more than a table holds (%d)", n, math.MaxInt32)
		return strTable{}
	}
	if n == 0 {
		d.fail(what, "no strings; string 0 must be the empty string")
		return strTable{}
	}
	// The two columns of lengths are read once to find where they end,
	// and again, side by side, to check and to build the strings: they
	// are never held in memory.
	sharedWhat, suffixWhat := what+".shared_prefix", what+".suffix_length"
	sharedAt := d.off
	for i := 0; i < n && d.err == nil; i++ {
		d.uvarint(sharedWhat)
	}
	suffixAt := d.off
	var total uint64
	for i := 0; i < n && d.err == nil; i++ {
		total += d.uvarint(suffixWhat)
		if d.err == nil && total > uint64(len(d.b)-d.off) {
			d.fail(suffixWhat, "string %d ends past the end of the block", i)
		}
	}
	if d.err != nil {
		return strTable{}
	}
	blobAt := d.off
	d.off += int(total)
	next := func(off *int) uint64 {
		v, k := binary.Uvarint(d.b[*off:])
		*off += k
		return v
	}
	// Shared prefixes make strings longer than the blob: what they add
	// counts against the limit, before anything is allocated.
	var expand, prevLen uint64
	so, xo := sharedAt, suffixAt
	for i := 0; i < n; i++ {
		shared, suffix := next(&so), next(&xo)
		if i == 0 && (shared != 0 || suffix != 0) {
			d.fail(what+"[0]", "must be the empty string")
			return strTable{}
		}
		if shared > prevLen {
			d.fail(what, "string %d shares %d bytes with a %d-byte string", i, shared, prevLen)
			return strTable{}
		}
		expand += shared
		prevLen = shared + suffix
	}
	if expand+total > maxStringBytes {
		d.fail(what, "%d bytes of strings, more than a table holds (%d)", expand+total, uint64(maxStringBytes))
		return strTable{}
	}
	if expand > 0 && !d.spend(what, expand) {
		return strTable{}
	}
	// All the strings are laid back to back in one array.
	out := strTable{b: make([]byte, expand+total), end: make([]uint32, n)}
	so, xo = sharedAt, suffixAt
	pos, src, prev := 0, blobAt, 0
	for i := range out.end {
		shared, suffix := int(next(&so)), int(next(&xo))
		start := pos
		pos += copy(out.b[pos:], out.b[prev:prev+shared])
		pos += copy(out.b[pos:], d.b[src:src+suffix])
		src += suffix
		out.end[i] = uint32(pos)
		prev = start
	}
	return out
}
