package bundle

import (
	"github.com/pprofx/pprofx/internal/model"
)

// tables are the shared, deduplicated tables of a bundle. Every index in
// them is into another shared table; docs/bundle-format.md describes the
// encoding.
type tables struct {
	strings   []string // strings[0] == ""
	mappings  []mapping
	functions []function
	locations []location
	lines     []line   // all locations' lines back to back
	lineOff   []uint32 // location i's lines are lines[lineOff[i]:lineOff[i+1]]
	// Stack prefix tree: node 0 is the empty stack (the root); node i > 0
	// is the stack of its parent node with one more frame, location
	// nodeLoc[i], on the leaf end.
	nodeParent []uint32
	nodeLoc    []uint32
	labelSets  []labelSet // labelSets[0] is the empty set
	labels     []label    // all sets' labels back to back
	links      []model.Link

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
	flags                uint8 // hasFunctions 1, hasFilenames 2, hasLineNumbers 4, hasInlineFrames 8
}

type function struct {
	name, systemName, filename uint32
	startLine                  int64
}

type location struct {
	address uint64
	mapping uint32 // shared mapping index + 1; 0 for none
	folded  bool
}

type line struct {
	function uint32
	line     int64
	column   int64
}

type labelSet struct{ off, n uint32 }

type label struct {
	key, str uint32
	num      int64
	unit     uint32
}

func newTables() *tables {
	return &tables{
		strings:    []string{""},
		lineOff:    []uint32{0},
		nodeParent: []uint32{0},
		nodeLoc:    []uint32{0},
		labelSets:  []labelSet{{}},
	}
}

func (t *tables) encode(e *enc) {
	// Strings: lengths, then the bytes.
	e.uvarint(uint64(len(t.strings)))
	for _, s := range t.strings {
		e.uvarint(uint64(len(s)))
	}
	for _, s := range t.strings {
		e.b = append(e.b, s...)
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
		e.u32(f.name)
	}
	for _, f := range t.functions {
		if f.systemName == f.name {
			e.uvarint(0)
		} else {
			e.uvarint(uint64(f.systemName) + 1)
		}
	}
	for _, f := range t.functions {
		e.u32(f.filename)
	}
	for _, f := range t.functions {
		e.varint(f.startLine)
	}

	// Locations: mapping+1; address as a delta from the previous location's;
	// line count <<1 | is_folded; then all lines, function and line number
	// as deltas from the previous line's, column as is.
	e.uvarint(uint64(len(t.locations)))
	for _, l := range t.locations {
		e.u32(l.mapping)
	}
	var prevAddr uint64
	for _, l := range t.locations {
		e.uvarint(zigzag(int64(l.address - prevAddr)))
		prevAddr = l.address
	}
	for i, l := range t.locations {
		n := uint64(t.lineOff[i+1] - t.lineOff[i])
		f := uint64(0)
		if l.folded {
			f = 1
		}
		e.uvarint(n<<1 | f)
	}
	var prevFn uint32
	for _, ln := range t.lines {
		e.uvarint(zigzag(int64(ln.function) - int64(prevFn)))
		prevFn = ln.function
	}
	var prevLine int64
	for _, ln := range t.lines {
		e.uvarint(zigzag(ln.line - prevLine))
		prevLine = ln.line
	}
	for _, ln := range t.lines {
		e.varint(ln.column)
	}

	// Stack nodes (the root, node 0, is implicit): node - parent, then the
	// location as a delta from the previous node's location.
	e.uvarint(uint64(len(t.nodeParent) - 1))
	for i := 1; i < len(t.nodeParent); i++ {
		e.uvarint(uint64(uint32(i) - t.nodeParent[i]))
	}
	var prevLoc uint32
	for i := 1; i < len(t.nodeLoc); i++ {
		e.uvarint(zigzag(int64(t.nodeLoc[i]) - int64(prevLoc)))
		prevLoc = t.nodeLoc[i]
	}

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

// decodeTables parses and checks the shared tables: every index must be in
// range, and every stack node's parent must come before it.
func decodeTables(d *dec) (*tables, error) {
	t := &tables{}
	n := d.count("strings.count", 1)
	lens := make([]uint64, n)
	var total uint64
	for i := range lens {
		lens[i] = d.uvarint("strings.length")
		total += lens[i]
		if d.err == nil && total > uint64(len(d.b)-d.off) {
			d.fail("strings.length", "string %d ends past the end of the block", i)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if n == 0 || lens[0] != 0 {
		d.fail("strings[0]", "must be the empty string")
		return nil, d.err
	}
	blob := string(d.b[d.off : d.off+int(total)])
	d.off += int(total)
	t.strings = make([]string, n)
	pos := uint64(0)
	for i, l := range lens {
		t.strings[i] = blob[pos : pos+l]
		pos += l
	}
	ns := len(t.strings)

	n = d.count("mappings.count", 7)
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

	n = d.count("functions.count", 4)
	t.functions = make([]function, n)
	for i := range t.functions {
		t.functions[i].name = d.ref("function.name", ns)
	}
	for i := range t.functions {
		v := d.ref("function.system_name", ns+1)
		if v == 0 {
			t.functions[i].systemName = t.functions[i].name
		} else {
			t.functions[i].systemName = v - 1
		}
	}
	for i := range t.functions {
		t.functions[i].filename = d.ref("function.filename", ns)
	}
	for i := range t.functions {
		t.functions[i].startLine = d.varint("function.start_line")
	}
	nf := len(t.functions)

	n = d.count("locations.count", 3)
	t.locations = make([]location, n)
	for i := range t.locations {
		t.locations[i].mapping = d.ref("location.mapping", len(t.mappings)+1)
	}
	var addr uint64
	for i := range t.locations {
		addr += uint64(unzigzag(d.uvarint("location.address")))
		t.locations[i].address = addr
	}
	t.lineOff = make([]uint32, n+1)
	var nlines uint64
	for i := range t.locations {
		v := d.uvarint("location.lines")
		t.locations[i].folded = v&1 == 1
		nlines += v >> 1
		// Each line takes at least 3 bytes further on.
		if d.err == nil && nlines > uint64(len(d.b)-d.off)/3 {
			d.fail("location.lines", "%d lines exceed the bytes left", nlines)
		}
		t.lineOff[i+1] = uint32(nlines)
	}
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
		t.lines[i].function = uint32(fn)
	}
	var ln int64
	for i := range t.lines {
		ln += unzigzag(d.uvarint("line.line"))
		t.lines[i].line = ln
	}
	for i := range t.lines {
		t.lines[i].column = d.varint("line.column")
	}
	nl := len(t.locations)

	n = d.count("stack_nodes.count", 2)
	t.nodeParent = make([]uint32, n+1)
	t.nodeLoc = make([]uint32, n+1)
	for i := 1; i <= n; i++ {
		delta := d.uvarint("stack_node.parent")
		if d.err == nil && (delta == 0 || delta > uint64(i)) {
			d.fail("stack_node.parent", "node %d has parent delta %d", i, delta)
		}
		t.nodeParent[i] = uint32(uint64(i) - delta)
	}
	var loc int64
	for i := 1; i <= n; i++ {
		loc += unzigzag(d.uvarint("stack_node.location"))
		if d.err == nil && (loc < 0 || loc >= int64(nl)) {
			d.fail("stack_node.location", "node %d: index %d out of range (%d locations)", i, loc, nl)
		}
		t.nodeLoc[i] = uint32(loc)
	}

	n = d.count("label_sets.count", 1)
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

	n = d.count("links.count", 2)
	t.links = make([]model.Link, n)
	for i := range t.links {
		t.links[i].TraceID = d.bytes("link.trace_id")
		t.links[i].SpanID = d.bytes("link.span_id")
	}
	if !t.decodeRows(d) {
		return nil, d.err
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
			if d.err == nil && (node < 0 || node >= int64(len(t.nodeParent))) {
				d.fail("row.node", "row %d: stack node %d out of range (%d nodes)", i, node, len(t.nodeParent))
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
