package dwarfread

import (
	"cmp"
	"debug/dwarf"
	ebin "encoding/binary"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/pprofx/pprofx/internal/symbolize/catch"
)

// Frame is one function at an address: the innermost inlined function
// first, the function they were all inlined into last.
type Frame struct {
	Name      string // linkage (mangled) name where there is one
	File      string
	Line      int64
	Column    int64
	StartLine int64 // the function's declaration line
	// For the non-inlined frame from DWARF: whether Name is a linkage
	// name, and where the function's code starts.
	Linkage bool
	Low     uint64
}

// Table answers addresses from DWARF: functions and their inline
// chains from the DIE tree, files and lines from the line tables. It reads
// only the compilation units that hold an address asked for, each once.
type Table struct {
	d     *dwarf.Data
	names map[dwarf.Offset]funcName // resolved function names by DIE offset
	rd    *dwarf.Reader             // for following abstract origins
	// lineErr is the first line table that could not be read.
	lineErr error

	// Set when the sections are read lazily (lazy) (dwarflazy.go): the units
	// to visit (a unit outside them is not there to read), .debug_line,
	// read as far as the units' line tables, and errFull when something
	// outside what was read turns out to be needed.
	lazy  bool
	units []unitHeader
	line  *lazySection
	order ebin.ByteOrder
	bail  error
	// rest checks, when an address is left unanswered, that no unit
	// beyond those read could answer it (nil: every unit was read).
	rest func() error
	// info and abbrev are .debug_info (as far as the units read) and
	// .debug_abbrev, for scanning the units' entries (scanTree); er
	// decodes the entries it needs whole.
	info, abbrev []byte
	er           *dwarf.Reader
	// pipe holds the answers lazyDWARF's unit walker gave for the
	// addresses it was asked (pipeFor), for the first lookup of them.
	pipe    [][]Frame
	pipeFor []uint64
	// lines reads file paths from the line tables' headers as binutils
	// gives them (linenames.go); nil: debug/dwarf's paths.
	lines *lineSecs
}

type funcName struct {
	name      string
	startLine int64
	linkage   bool
}

// LineErr returns the first line table that could not be read (nil if
// none): the addresses in its unit have no file and line.
func (t *Table) LineErr() error { return t.lineErr }

func newTable(d *dwarf.Data, lines *lineSecs) *Table {
	return &Table{d: d, names: map[dwarf.Offset]funcName{}, rd: d.Reader(), lines: lines}
}

// node is a function body in a compilation unit: a subprogram with code,
// or an inlined subroutine inside one.
type node struct {
	ranges   [][2]uint64
	die      dwarf.Offset
	children []int32 // inlined subroutines directly inside (through lexical blocks)
	callFile int64
	callLine int64
	callCol  int64
}

// scanMax is the longest list of nodes scanned for an address rather than
// indexed (rangeIndex).
const scanMax = 8

// rangeIndex answers, for a list of nodes, which is the first in the list
// whose ranges hold an address: what a scan of the list answers, in
// O(log n) where the ranges do not overlap.
type rangeIndex struct {
	lo, hi []uint64 // every range of every node, by lo
	maxHi  []uint64 // maxHi[i]: the largest hi of ranges 0..i
	pos    []int32  // each range's node's position in the list
}

func newRangeIndex(nodes []node, list []int32) *rangeIndex {
	type iv struct {
		lo, hi uint64
		pos    int32
	}
	var ivs []iv
	for p, n := range list {
		for _, r := range nodes[n].ranges {
			if r[0] < r[1] {
				ivs = append(ivs, iv{r[0], r[1], int32(p)})
			}
		}
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].lo < ivs[j].lo })
	x := &rangeIndex{lo: make([]uint64, len(ivs)), hi: make([]uint64, len(ivs)), maxHi: make([]uint64, len(ivs)), pos: make([]int32, len(ivs))}
	m := uint64(0)
	for i, v := range ivs {
		m = max(m, v.hi)
		x.lo[i], x.hi[i], x.maxHi[i], x.pos[i] = v.lo, v.hi, m, v.pos
	}
	return x
}

// find returns the position in the list of the first node holding a, or
// -1: every range starting at or below a is looked at, from the highest
// down, until none below reaches a.
func (x *rangeIndex) find(a uint64) int {
	i := sort.Search(len(x.lo), func(i int) bool { return x.lo[i] > a }) - 1
	best := -1
	for ; i >= 0 && x.maxHi[i] > a; i-- {
		if a < x.hi[i] && (best < 0 || int(x.pos[i]) < best) {
			best = int(x.pos[i])
		}
	}
	return best
}

// fit returns the position in list (the list the index was made of) of the
// node holding a that binutils' addr2line picks, or -1: the one whose range
// holding a is shortest, and of equally short ones the last entry in the
// unit. Functions' ranges overlap only where one piece of code has several
// entries (assembly aliases, which gas describes one by one: libc's
// __finitel, finitel and __GI___finitel); addr2line names the last.
func (x *rangeIndex) fit(a uint64, list []int32) int {
	i := sort.Search(len(x.lo), func(i int) bool { return x.lo[i] > a }) - 1
	best, bestLen := -1, uint64(0)
	for ; i >= 0 && x.maxHi[i] > a; i-- {
		if a >= x.hi[i] {
			continue
		}
		p, n := int(x.pos[i]), x.hi[i]-x.lo[i]
		if best < 0 || n < bestLen || n == bestLen && list[p] > list[best] {
			best, bestLen = p, n
		}
	}
	return best
}

func inRanges(rs [][2]uint64, a uint64) bool {
	for _, r := range rs {
		if a >= r[0] && a < r[1] {
			return true
		}
	}
	return false
}

// lookup resolves the sorted, distinct addrs. out[i] receives addrs[i]'s
// frames, for the addresses some compilation unit covers: the first unit
// in the section whose ranges hold the address and whose functions answer
// it. A table read lazily (units set) visits only its units, and returns
// errFull when it finds it needs more.
func (t *Table) Lookup(addrs []uint64, out [][]Frame) (err error) {
	defer catch.Recover(&err)
	if t.lazy {
		var r *dwarf.Reader
		if len(t.units) > 0 {
			r = t.d.Reader()
		}
		units := t.units
		if t.pipe != nil && slices.Equal(t.pipeFor, addrs) {
			copy(out, t.pipe)
			units = nil
		}
		t.pipe, t.pipeFor = nil, nil
		for _, u := range units {
			var w walk
			r.Seek(dwarf.Offset(u.die))
			e, err := next(r, &w)
			if err != nil {
				return err
			}
			if e == nil {
				continue
			}
			if err := t.visit(r, e, &w, addrs, out); err != nil {
				return err
			}
			if t.bail != nil {
				return t.bail
			}
		}
		for _, fr := range out {
			if fr == nil {
				if t.rest() != nil {
					return errFull
				}
				break
			}
		}
		return nil
	}
	r := t.d.Reader()
	var w walk
	for {
		e, err := next(r, &w)
		if err != nil {
			return err
		}
		if e == nil {
			return nil
		}
		if err := t.visit(r, e, &w, addrs, out); err != nil {
			return err
		}
	}
}

// visit resolves the addresses unit entry e holds (r is just past it),
// or skips the unit.
func (t *Table) visit(r *dwarf.Reader, e *dwarf.Entry, w *walk, addrs []uint64, out [][]Frame) error {
	skip := func() {
		if !t.lazy { // a lazy table seeks to each unit it reads
			r.SkipChildren()
		}
	}
	if e.Tag != dwarf.TagCompileUnit && e.Tag != dwarf.TagPartialUnit {
		skip()
		return nil
	}
	ranges, _ := t.d.Ranges(e)
	var want []int // indexes into addrs of unresolved addresses in this unit
	for _, rg := range ranges {
		i := sort.Search(len(addrs), func(i int) bool { return addrs[i] >= rg[0] })
		for ; i < len(addrs) && addrs[i] < rg[1]; i++ {
			if out[i] == nil {
				want = append(want, i)
			}
		}
	}
	if len(want) == 0 || !e.Children {
		skip()
		return nil
	}
	return t.unit(r, e, w, addrs, want, out)
}

// unit reads one compilation unit's function tree (r is just past its
// entry) and line table, and resolves the addresses want.
func (t *Table) unit(r *dwarf.Reader, cu *dwarf.Entry, w *walk, addrs []uint64, want []int, out [][]Frame) error {
	var tr funcTree
	err := t.scanTree(cu, &tr)
	if err == errScan {
		// Entries the scanner does not take: the standard reader walks
		// them (r is still just past the unit's entry).
		tr = funcTree{}
		err = t.readTree(r, w, &tr)
	}
	if err != nil {
		return err
	}
	nodes, roots := tr.nodes, tr.roots

	// The addresses wanted, sorted and distinct (ranges may be unsorted
	// or overlap).
	slices.Sort(want)
	want = slices.Compact(want)
	wantAddrs := make([]uint64, len(want))
	for k, i := range want {
		wantAddrs[k] = addrs[i]
	}
	rows, files, err := t.lineTable(cu, wantAddrs)
	if err != nil {
		t.lineErr = err
	}
	sort.Slice(roots, func(i, j int) bool { return nodes[roots[i]].ranges[0][0] < nodes[roots[j]].ranges[0][0] })
	// The function, and each inlined call in it, that holds an address:
	// the first of a list whose ranges hold it, found by binary search
	// where the list is long (a unit's functions; a function's inlined
	// calls, in heavily inlined C++), else by a scan.
	rootIdx := newRangeIndex(nodes, roots)
	var childIdx map[int32]*rangeIndex
	for k, i := range want {
		a := addrs[i]
		var chain []int32
		if p := rootIdx.fit(a, roots); p >= 0 {
			chain = append(chain, roots[p])
		}
		if len(chain) == 0 {
			// In the unit's ranges and line table, yet in no function
			// it describes (a function folded into an identical one
			// keeps its entry but no code, and assembly has no
			// entries): the line, as addr2line gives it, without a
			// name (the caller names it after the symbol there).
			if rows != nil && rows[k] != nil {
				r := rows[k]
				out[i] = []Frame{{File: r.file, Line: r.line, Column: r.col}}
			}
			continue
		}
		for {
			ni := chain[len(chain)-1]
			last := &nodes[ni]
			next := int32(-1)
			if len(last.children) > scanMax {
				x := childIdx[ni]
				if x == nil {
					if childIdx == nil {
						childIdx = map[int32]*rangeIndex{}
					}
					x = newRangeIndex(nodes, last.children)
					childIdx[ni] = x
				}
				if p := x.find(a); p >= 0 {
					next = last.children[p]
				}
			} else {
				for _, c := range last.children {
					if inRanges(nodes[c].ranges, a) {
						next = c
						break
					}
				}
			}
			if next < 0 {
				break
			}
			chain = append(chain, next)
		}
		// chain runs outermost to innermost; frames innermost first.
		fr := make([]Frame, len(chain))
		var row *lineRow
		if rows != nil {
			row = rows[k]
		}
		for k := len(chain) - 1; k >= 0; k-- {
			n := &nodes[chain[k]]
			fn := t.funcName(n.die)
			f := Frame{Name: fn.name, StartLine: fn.startLine}
			if k == 0 {
				f.Linkage = fn.linkage
				// The first range is the function's entry part; a
				// split-off ".cold" part may lie below it.
				f.Low = n.ranges[0][0]
			}
			if k == len(chain)-1 {
				if row != nil {
					f.File, f.Line, f.Column = row.file, row.line, row.col
				}
			} else {
				c := &nodes[chain[k+1]]
				if c.callFile >= 0 && c.callFile < int64(len(files)) {
					f.File = files[c.callFile]
				}
				f.Line, f.Column = c.callLine, c.callCol
			}
			fr[len(chain)-1-k] = f
		}
		out[i] = fr
	}
	return nil
}

// funcTree is a unit's function bodies: the subprograms with code (roots)
// and the inlined subroutines inside them.
type funcTree struct {
	nodes []node
	roots []int32
}

// add adds the function body e is, a subprogram or an inlined subroutine,
// found inside node cur (-1: outside any function), and returns the node
// its children are inside.
func (t *Table) add(tr *funcTree, e *dwarf.Entry, cur int32) int32 {
	rs, _ := t.d.Ranges(e)
	if len(rs) == 0 {
		return -1 // a declaration or an abstract instance: no code
	}
	n := node{ranges: rs, die: e.Offset}
	if e.Tag == dwarf.TagInlinedSubroutine {
		if cur < 0 {
			return -1
		}
		n.callFile, _ = e.Val(dwarf.AttrCallFile).(int64)
		n.callLine, _ = e.Val(dwarf.AttrCallLine).(int64)
		n.callCol, _ = e.Val(dwarf.AttrCallColumn).(int64)
	}
	self := int32(len(tr.nodes))
	tr.nodes = append(tr.nodes, n)
	if e.Tag == dwarf.TagSubprogram {
		tr.roots = append(tr.roots, self)
	} else {
		tr.nodes[cur].children = append(tr.nodes[cur].children, self)
	}
	return self
}

// descends says whether a unit's function tree goes on inside entries of
// the tag: functions (their inlined subroutines), lexical, try and catch
// blocks (whose inlined subroutines belong to the enclosing function),
// namespaces and modules (where functions with code may be defined), and
// classes, structures and unions: a class local to a function has its
// member functions' code there (a C++ lambda's operator() inside the
// function that makes the lambda, in libstdc++'s fast_float).
func descends(tag dwarf.Tag) bool {
	switch tag {
	case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine,
		dwarf.TagLexDwarfBlock, dwarf.TagTryDwarfBlock, dwarf.TagCatchDwarfBlock,
		dwarf.TagNamespace, dwarf.TagModule,
		dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
		return true
	}
	return false
}

// readTree reads a unit's function tree with the standard reader (r is
// just past the unit's entry).
func (t *Table) readTree(r *dwarf.Reader, w *walk, tr *funcTree) error {
	// stack of open DIEs with children: the index of the node each one is
	// (or is inside), -1 outside any function.
	stack := []int32{-1}
	for len(stack) > 0 {
		e, err := next(r, w)
		if err != nil {
			return err
		}
		if e == nil {
			break
		}
		if e.Tag == 0 { // end of a list of children
			stack = stack[:len(stack)-1]
			continue
		}
		if !descends(e.Tag) {
			if e.Children {
				r.SkipChildren()
			}
			continue
		}
		self := stack[len(stack)-1]
		if e.Tag == dwarf.TagSubprogram || e.Tag == dwarf.TagInlinedSubroutine {
			self = t.add(tr, e, self)
		}
		if e.Children {
			stack = append(stack, self)
		}
	}
	return nil
}

// scanTree reads the same tree with a dieScanner, where the table has the
// unit's bytes (a lazy table): only functions are decoded whole (by the
// standard reader, t.er). errScan: entries it does not take.
func (t *Table) scanTree(cu *dwarf.Entry, tr *funcTree) error {
	if t.info == nil {
		return errScan
	}
	i := sort.Search(len(t.units), func(i int) bool { return t.units[i].die >= uint64(cu.Offset) })
	if i == len(t.units) || t.units[i].die != uint64(cu.Offset) {
		return errScan
	}
	s, err := newDieScanner(t.info, t.abbrev, t.units[i], t.order)
	if err != nil {
		return errScan
	}
	_, cuab, err := s.entry()
	if err != nil || cuab == nil || !cuab.children || cuab.tag != cu.Tag {
		return errScan
	}
	if _, err := s.skipAttrs(cuab); err != nil {
		return errScan
	}
	if t.er == nil {
		t.er = t.d.Reader()
	}
	stack := []int32{-1}
	for len(stack) > 0 {
		off, ab, err := s.entry()
		if err != nil {
			return errScan
		}
		if ab == nil {
			stack = stack[:len(stack)-1]
			continue
		}
		if !descends(ab.tag) {
			sib, err := s.skipAttrs(ab)
			if err == nil && ab.children {
				err = s.skipChildren(sib)
			}
			if err != nil {
				return errScan
			}
			continue
		}
		self := stack[len(stack)-1]
		if (ab.tag == dwarf.TagSubprogram || ab.tag == dwarf.TagInlinedSubroutine) && !ab.code {
			// No code (a member function's declaration, an abstract
			// instance): what add makes of it, without decoding it.
			self = -1
		} else if ab.tag == dwarf.TagSubprogram || ab.tag == dwarf.TagInlinedSubroutine {
			t.er.Seek(dwarf.Offset(off))
			e, err := t.er.Next()
			if err != nil || e == nil || e.Offset != dwarf.Offset(off) || e.Tag != ab.tag {
				return errScan
			}
			self = t.add(tr, e, self)
		}
		if _, err := s.skipAttrs(ab); err != nil {
			return errScan
		}
		if ab.children {
			stack = append(stack, self)
		}
	}
	return nil
}

// next reads the next entry, and checks that the reader moves forward: on
// some damaged units the standard reader returns empty (null) entries
// forever. Entries with a tag must come at growing offsets; null entries
// (which end lists of children, and carry no offset) may not follow one
// another more often than DIE trees are deep.
func next(r *dwarf.Reader, w *walk) (*dwarf.Entry, error) {
	e, err := r.Next()
	if err != nil || e == nil {
		return e, err
	}
	if e.Tag == 0 {
		if w.nulls++; w.nulls > maxNulls {
			return nil, fmt.Errorf("DWARF reader stuck after offset %#x", w.last)
		}
		return e, nil
	}
	w.nulls = 0
	if e.Offset <= w.last {
		return nil, fmt.Errorf("DWARF entries go back from offset %#x to %#x", w.last, e.Offset)
	}
	w.last = e.Offset
	return e, nil
}

const maxNulls = 1024

// walk is where a walk over the entries has got to.
type walk struct {
	last  dwarf.Offset
	nulls int
}

// funcName resolves the name of the function a DIE is, following
// abstract origins and specifications: the linkage (mangled) name where
// one is anywhere on that chain, else the plain name; and its declared line.
func (t *Table) funcName(off dwarf.Offset) funcName {
	if n, ok := t.names[off]; ok {
		return n
	}
	var name, linkage string
	var line int64
	cur := off
	for hops := 0; hops < 16; hops++ {
		if !t.loaded(cur) {
			t.bail = errFull
			break
		}
		t.rd.Seek(cur)
		e, err := t.rd.Next()
		if err != nil || e == nil {
			break
		}
		if linkage == "" {
			linkage = linkageName(e)
		}
		if name == "" {
			name, _ = e.Val(dwarf.AttrName).(string)
		}
		if line == 0 {
			line, _ = e.Val(dwarf.AttrDeclLine).(int64)
		}
		next, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if !ok {
			next, ok = e.Val(dwarf.AttrSpecification).(dwarf.Offset)
		}
		if !ok || next == cur {
			break
		}
		cur = next
	}
	n := funcName{name: name, startLine: line}
	if linkage != "" {
		n.name, n.linkage = linkage, true
	}
	t.names[off] = n
	return n
}

// loaded says whether the entry at off is in a unit that was read.
func (t *Table) loaded(off dwarf.Offset) bool {
	if !t.lazy {
		return true
	}
	o := uint64(off)
	i := sort.Search(len(t.units), func(i int) bool { return t.units[i].end > o })
	return i < len(t.units) && o >= t.units[i].die
}

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name, which GCC wrote before
// DWARF 4 named DW_AT_linkage_name.
const attrMIPSLinkageName dwarf.Attr = 0x2007

func linkageName(e *dwarf.Entry) string {
	if s, ok := e.Val(dwarf.AttrLinkageName).(string); ok {
		return s
	}
	s, _ := e.Val(attrMIPSLinkageName).(string)
	return s
}

// lineRow is the source position of the addresses [addr, end).
type lineRow struct {
	addr, end uint64
	file      string
	line, col int64
}

// lineTable reads a compilation unit's line table and returns the row
// covering each of the sorted, distinct addresses want (nil where none
// does). The answer is that of the whole table sorted by address (stably):
// the last row that starts at or below the address, if it reaches past it.
// Where several rows share an address, the last one holds the range, as
// binutils reads them. Only the rows that cover a wanted address are kept
// whole; of the others only their ranges, which the answer depends on.
func (t *Table) lineTable(cu *dwarf.Entry, want []uint64) ([]*lineRow, []string, error) {
	if t.line != nil {
		if err := t.readLines(cu); err != nil {
			t.bail = errFull
			return nil, nil, nil
		}
	}
	lr, err := t.d.LineReader(cu)
	if err != nil {
		return nil, nil, err
	}
	if lr == nil {
		return nil, nil, nil
	}
	var namer fileNamer
	if off, ok := cu.Val(dwarf.AttrStmtList).(int64); ok && off >= 0 {
		compDir, _ := cu.Val(dwarf.AttrCompDir).(string)
		if names, ok := t.lines.names(uint64(off), compDir); ok {
			namer = newFileNamer(lr.Files(), names)
		}
	}
	var keys [][2]uint64 // every row's [addr, end), in the table's order
	var kept []lineRow   // the rows covering a wanted address, in that order
	var keptAt []int     // their indexes in keys
	// Each entry but a sequence's last starts a row that ends at the next
	// entry's address; where the next entry has the same address (or a
	// lower one), the next one wins. The rows of the sequence read so far
	// start at keys[seqKeys], kept[seqKept].
	var prev dwarf.LineEntry
	inSeq := false
	seqKeys, seqKept := 0, 0
	var le dwarf.LineEntry
	for {
		if err = lr.Next(&le); err != nil {
			if err == io.EOF {
				err = nil
			} else {
				// Rows after a bad one are not trusted; those before are
				// whole sequences only.
				keys, kept, keptAt = keys[:seqKeys], kept[:seqKept], keptAt[:seqKept]
			}
			break
		}
		if inSeq && le.Address > prev.Address {
			a, end := prev.Address, le.Address
			if j := sort.Search(len(want), func(j int) bool { return want[j] >= a }); j < len(want) && want[j] < end {
				r := lineRow{addr: a, end: end, line: int64(prev.Line), col: int64(prev.Column)}
				r.file = namer.name(prev.File)
				kept = append(kept, r)
				keptAt = append(keptAt, len(keys))
			}
			keys = append(keys, [2]uint64{a, end})
		}
		prev, inSeq = le, !le.EndSequence
		if le.EndSequence {
			seqKeys, seqKept = len(keys), len(kept)
		}
	}
	// The rows' indexes by address, stably (the table's order where it is
	// sorted already, as it usually is).
	var order []int32
	if !slices.IsSortedFunc(keys, func(x, y [2]uint64) int { return cmp.Compare(x[0], y[0]) }) {
		order = make([]int32, len(keys))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(x, y int32) int { return cmp.Compare(keys[x][0], keys[y][0]) })
	}
	rows := make([]*lineRow, len(want))
	for k, a := range want {
		p := sort.Search(len(keys), func(p int) bool {
			if order != nil {
				p = int(order[p])
			}
			return keys[p][0] > a
		}) - 1
		if p < 0 {
			continue
		}
		if order != nil {
			p = int(order[p])
		}
		if a >= keys[p][1] {
			continue
		}
		if q, ok := slices.BinarySearch(keptAt, p); ok {
			rows[k] = &kept[q]
		}
	}
	files := lr.Files()
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = namer.name(f)
	}
	return rows, names, err
}
