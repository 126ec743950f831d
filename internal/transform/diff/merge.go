package diff

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"sort"

	"github.com/pprofx/pprofx/internal/hashindex"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/mergekey"
)

// The merge is google/pprof's profile.Merge on the model: mappings,
// functions, locations and samples that pprof's keys call equal are made
// one, in the order pprof's merge makes them, so that the result is the
// profile pprof writes. Nothing of the inputs is copied but what the
// result holds.

// mapping is a mapping of the result.
type mapping struct {
	start, limit, offset uint64
	file, buildID        string
	flags                [4]bool // functions, filenames, line numbers, inline frames
}

// keyOf returns pprof's key of m.
func keyOf(m *mapping) mergekey.Mapping {
	return mergekey.MappingOf(m.start, m.limit, m.offset, m.buildID, m.file)
}

// function is a function of the result, and pprof's key of it.
type function struct {
	startLine                  int64
	name, systemName, filename string
}

// location is a location of the result: its lines are lines[off:end],
// their functions indices into the result's functions.
type location struct {
	address  uint64
	mapping  int32 // or model.NoMapping
	folded   bool
	off, end int32
}

// sample is a sample of the result: a stack of its stacks, a label set
// of its label keys, and values at vals[i*nTypes:].
type sample struct {
	stack, labels int32
}

// memo maps one input's tables to the result's, as pprof's merger does
// by id; -1 is not yet mapped.
type memo struct {
	mappings []int32
	offsets  []int64 // what a mapping's addresses move by
	funcs    []int32 // one more than the input's: its lines without a function
	locs     []int32
	stacks   []int32
	labels   []int32
}

func newMemo(p *model.Profile) *memo {
	fill := func(n int) []int32 {
		s := make([]int32, n)
		for i := range s {
			s[i] = -1
		}
		return s
	}
	return &memo{
		mappings: fill(len(p.Mappings)),
		offsets:  make([]int64, len(p.Mappings)),
		funcs:    fill(len(p.Functions) + 1),
		locs:     fill(len(p.Locations)),
		stacks:   fill(p.Stacks.Len()),
		labels:   fill(len(p.LabelSets)),
	}
}

type merger struct {
	nTypes int
	seed   maphash.Seed

	mappings   []mapping
	mappingIdx map[mergekey.Mapping]int32
	funcs      []function
	funcIdx    hashindex.Index // functions by their value
	locs       []location
	lines      []model.Line
	cols       []int64         // lines[j]'s column is cols[j], 0 past its end (colAt)
	locIdx     hashindex.Index // locations by a hash of pprof's key

	stacks stackTable

	// Label sets by pprof's key of them (labels, then numeric labels,
	// each by sorted key), which holds all they are: set r's key is
	// labelKeys[labelEnd[r-1]:labelEnd[r]] (from 0 for the first).
	labelIdx  hashindex.Index
	labelKeys []byte
	labelEnd  []uint32

	samples   []sample
	sampleIdx map[uint64]int32 // stack<<32 | labels
	vals      []int64

	frames  []int32      // scratch
	key     []byte       // scratch
	lineBuf []model.Line // scratch: a location's lines
	colBuf  []int64      // and their columns
}

// newMerger returns a merger sized for the larger of the inputs, and for
// the samples of both (BASE's are labelled apart from NEW's): two
// profiles compared are mostly alike, and growing by copies would hold
// each table twice.
func newMerger(nTypes int, ps []*side) *merger {
	var funcs, locs, lines, stacks, frames, samples int
	for _, s := range ps {
		p := s.p
		n := 0
		for i := range p.Locations {
			n += len(p.LinesOf(&p.Locations[i]))
		}
		funcs = max(funcs, len(p.Functions))
		locs, lines = max(locs, len(p.Locations)), max(lines, n)
		stacks, frames = max(stacks, p.Stacks.Len()), max(frames, p.Stacks.NumFrames())
		// The merged samples are distinct stacks and label sets: no more
		// than the side has of those (one for a text of equal records).
		samples += min(len(s.samples), p.Stacks.Len()*max(len(p.LabelSets), 1))
	}
	seed := maphash.MakeSeed()
	m := &merger{
		nTypes:     nTypes,
		seed:       seed,
		mappingIdx: map[mergekey.Mapping]int32{},
		funcs:      make([]function, 0, funcs),
		locs:       make([]location, 0, locs),
		lines:      make([]model.Line, 0, lines),
		samples:    make([]sample, 0, samples),
		sampleIdx:  make(map[uint64]int32, samples),
		vals:       make([]int64, 0, samples*nTypes),
	}
	m.stacks.seed = seed
	m.stacks.st.Fit(locs)
	m.stacks.st.Grow(stacks, frames)
	return m
}

// add merges the samples of s, in order, as profile.Merge merges one
// source: the first mapping of the first source that has mappings is the
// result's first; samples whose values are all zero are left out.
func (m *merger) add(s *side, labelBase bool) {
	p, mm := s.p, newMemo(s.p)
	if len(m.mappings) == 0 && len(p.Mappings) > 0 {
		m.mapping(p, mm, 0)
	}
	for j, si := range s.samples {
		v := s.values(j)
		if isZero(v) {
			continue
		}
		ps := &p.Samples[si]
		st := mm.stacks[ps.Stack]
		if st < 0 {
			st = m.stack(p, mm, int(ps.Stack))
			mm.stacks[ps.Stack] = st
		}
		ls := mm.labels[ps.LabelSet]
		if ls < 0 {
			ls = m.labelSet(p, ps.LabelSet, labelBase)
			mm.labels[ps.LabelSet] = ls
		}
		k := uint64(uint32(st))<<32 | uint64(uint32(ls))
		if i, ok := m.sampleIdx[k]; ok {
			sum := m.vals[int(i)*m.nTypes : (int(i)+1)*m.nTypes]
			for t, x := range v {
				sum[t] += x
			}
			continue
		}
		m.sampleIdx[k] = int32(len(m.samples))
		m.samples = append(m.samples, sample{stack: st, labels: ls})
		m.vals = append(m.vals, v...)
	}
}

func isZero(v []int64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// mapping returns the result's mapping for mapping i of p.
func (m *merger) mapping(p *model.Profile, mm *memo, i int32) int32 {
	if i == model.NoMapping {
		return model.NoMapping
	}
	if r := mm.mappings[i]; r >= 0 {
		return r
	}
	src := &p.Mappings[i]
	nm := mapping{
		start: src.Start, limit: src.Limit, offset: src.Offset,
		file: p.String(src.File), buildID: p.String(src.BuildID),
		flags: [4]bool{src.HasFunctions, src.HasFilenames, src.HasLineNumbers, src.HasInlineFrames},
	}
	k := keyOf(&nm)
	r, found := m.mappingIdx[k]
	if found {
		mm.offsets[i] = int64(m.mappings[r].start) - int64(src.Start)
	} else {
		r = int32(len(m.mappings))
		m.mappings = append(m.mappings, nm)
		m.mappingIdx[k] = r
	}
	mm.mappings[i] = r
	return r
}

// function returns the result's function for function i of p; a line
// without one (NoFunction) names the empty function, as pprofx's pprof
// writer writes it.
func (m *merger) function(p *model.Profile, mm *memo, i int32) int32 {
	slot := int(i)
	if i == model.NoFunction {
		slot = len(p.Functions)
	}
	if r := mm.funcs[slot]; r >= 0 {
		return r
	}
	var f function
	if i != model.NoFunction {
		src := &p.Functions[i]
		f = function{src.StartLine, p.String(src.Name), p.String(src.SystemName), p.String(src.Filename)}
	}
	v, _ := hashindex.Intern(&m.funcIdx, &m.funcs, func(f function) uint64 { return maphash.Comparable(m.seed, f) }, f)
	mm.funcs[slot] = int32(v)
	return int32(v)
}

// location returns the result's location for location i of p: its
// mapping's, its address moved with its mapping, its lines' functions
// the result's; pprof's key is the address within the mapping, the
// mapping, the lines and IsFolded.
func (m *merger) location(p *model.Profile, mm *memo, i int32) int32 {
	if r := mm.locs[i]; r >= 0 {
		return r
	}
	src := &p.Locations[i]
	l := location{mapping: m.mapping(p, mm, src.Mapping), folded: src.IsFolded}
	l.address = src.Address
	if src.Mapping != model.NoMapping {
		l.address = uint64(int64(src.Address) + mm.offsets[src.Mapping])
	}
	// The lines are made in scratch and added only for a new location:
	// added first and taken back when found, the lines of the second of
	// two like profiles grew the table past the room made for it, a copy
	// of it 1.25 times as large held beside it.
	lines, cols := m.lineBuf[:0], m.colBuf[:0]
	for j, ln := range p.LinesOf(src) {
		lines = append(lines, model.Line{Function: m.function(p, mm, ln.Function), Line: ln.Line})
		cols = append(cols, p.ColumnOf(src, j))
	}
	m.lineBuf, m.colBuf = lines, cols
	h := m.keyHash(l.address, l.mapping, l.folded, lines, func(k int) int64 { return cols[k] })
	v, at, found := m.locIdx.Find(h, func(v uint32) bool { return m.sameLocation(&m.locs[v], &l, lines, cols) })
	if !found {
		l.off = int32(len(m.lines))
		m.lines = append(m.lines, lines...)
		l.end = int32(len(m.lines))
		for k, c := range cols {
			m.setCol(int(l.off)+k, c)
		}
		v = uint32(len(m.locs))
		m.locs = append(m.locs, l)
		m.locIdx.Add(at, v, func(v uint32) uint64 { return m.locationHash(&m.locs[v]) })
	}
	mm.locs[i] = int32(v)
	return int32(v)
}

// locationHash hashes pprof's key of l, a location of the merge's.
func (m *merger) locationHash(l *location) uint64 {
	return m.keyHash(l.address, l.mapping, l.folded, m.lines[l.off:l.end], func(k int) int64 { return m.colAt(int(l.off) + k) })
}

// keyHash hashes pprof's key of a location with these fields, lines and
// columns (col(k): line k's).
func (m *merger) keyHash(address uint64, mapping int32, folded bool, lines []model.Line, col func(int) int64) uint64 {
	k := m.key[:0]
	k = binary.LittleEndian.AppendUint64(k, address)
	k = binary.LittleEndian.AppendUint32(k, uint32(mapping))
	if folded {
		k = append(k, 1)
	}
	for j, ln := range lines {
		k = binary.LittleEndian.AppendUint32(k, uint32(ln.Function))
		k = binary.LittleEndian.AppendUint64(k, uint64(ln.Line))
		k = binary.LittleEndian.AppendUint64(k, uint64(col(j)))
	}
	m.key = k
	return maphash.Bytes(m.seed, k)
}

// sameLocation reports whether a, a location of the merge's, is b with
// these lines and columns.
func (m *merger) sameLocation(a, b *location, lines []model.Line, cols []int64) bool {
	if a.address != b.address || a.mapping != b.mapping || a.folded != b.folded || int(a.end-a.off) != len(lines) {
		return false
	}
	for k, ln := range m.lines[a.off:a.end] {
		if ln != lines[k] || m.colAt(int(a.off)+k) != cols[k] {
			return false
		}
	}
	return true
}

// colAt returns the column of line j of the merge's.
func (m *merger) colAt(j int) int64 {
	if j >= len(m.cols) {
		return 0
	}
	return m.cols[j]
}

// setCol sets the column of line j, the last, making room for columns
// only when c is not 0.
func (m *merger) setCol(j int, c int64) {
	if c == 0 && j >= len(m.cols) {
		return
	}
	if n := len(m.cols); j >= n {
		m.cols = slices.Grow(m.cols, j+1-n)[:j+1]
		clear(m.cols[n:]) // what a found location's lines left there
	}
	m.cols[j] = c
}

// stack returns the result's stack for stack i of p: its frames mapped,
// leaf first, each location mapped as it is met.
func (m *merger) stack(p *model.Profile, mm *memo, i int) int32 {
	f := m.frames[:0]
	for j := range p.Stacks.StackLen(i) {
		f = append(f, m.location(p, mm, p.Stacks.Frame(i, j)))
	}
	m.frames = f
	return m.stacks.add(f)
}

// stackTable is a table of distinct stacks.
type stackTable struct {
	st   model.Stacks
	seed maphash.Seed
	idx  hashindex.Index
	key  []byte  // scratch
	buf  []int32 // scratch
}

// add returns the index of the stack of these frames, adding it when the
// table does not hold it.
func (t *stackTable) add(frames []int32) int32 {
	v, at, found := t.idx.Find(t.hash(frames), func(v uint32) bool { return t.st.Equal(int(v), frames) })
	if found {
		return int32(v)
	}
	r := t.st.Add(frames)
	t.idx.Add(at, uint32(r), func(v uint32) uint64 {
		t.buf = t.st.Append(t.buf[:0], int(v))
		return t.hash(t.buf)
	})
	return r
}

// hash hashes a stack's frames.
func (t *stackTable) hash(frames []int32) uint64 {
	k := t.key[:0]
	for _, f := range frames {
		k = binary.LittleEndian.AppendUint32(k, uint32(f))
	}
	t.key = k
	return maphash.Bytes(t.seed, k)
}

// labelSet is a sample's labels as pprof's library holds them: string
// labels by key, then numeric labels by key, keys sorted, each key's
// values in the order read.
type labelSet struct {
	strs []labelGroup
	nums []labelGroup
}

type labelGroup struct {
	key   string
	strs  []string
	nums  []int64
	units []string // none, or one a value
}

// labelSet returns the result's label key for label set i of p. pprof's
// reader keeps a label with a string, and a numeric one whose value or
// unit is not zero; BASE's samples are given pprof::base=true in place of
// any string label of that key (SetLabel).
func (m *merger) labelSet(p *model.Profile, i int32, base bool) int32 {
	var ls labelSet
	group := func(gs *[]labelGroup, key string) *labelGroup {
		for k := range *gs {
			if (*gs)[k].key == key {
				return &(*gs)[k]
			}
		}
		*gs = append(*gs, labelGroup{key: key})
		return &(*gs)[len(*gs)-1]
	}
	for _, l := range p.LabelSets[i].Labels() {
		key := p.String(l.Key)
		switch {
		case l.Str != 0:
			g := group(&ls.strs, key)
			g.strs = append(g.strs, p.String(l.Str))
		case l.Num != 0 || l.NumUnit != 0:
			g := group(&ls.nums, key)
			if l.NumUnit != 0 {
				g.units = pad(g.units, len(g.nums))
				g.units = append(g.units, p.String(l.NumUnit))
			}
			g.nums = append(g.nums, l.Num)
		}
	}
	for k := range ls.nums {
		if g := &ls.nums[k]; len(g.units) > 0 {
			g.units = pad(g.units, len(g.nums))
		}
	}
	if base {
		group(&ls.strs, baseLabel).strs = []string{"true"}
	}
	sort.Slice(ls.strs, func(a, b int) bool { return ls.strs[a].key < ls.strs[b].key })
	sort.Slice(ls.nums, func(a, b int) bool { return ls.nums[a].key < ls.nums[b].key })

	// pprof's sampleKey, after the locations, with the number of groups
	// of each kind: all the set is (labelsOfKey reads it back).
	k := m.key[:0]
	str := func(s string) {
		k = binary.AppendUvarint(k, uint64(len(s)))
		k = append(k, s...)
	}
	k = binary.AppendUvarint(k, uint64(len(ls.strs)))
	for _, g := range ls.strs {
		str(g.key)
		k = binary.AppendUvarint(k, uint64(len(g.strs)))
		for _, v := range g.strs {
			str(v)
		}
	}
	k = binary.AppendUvarint(k, uint64(len(ls.nums)))
	for _, g := range ls.nums {
		str(g.key)
		k = binary.AppendUvarint(k, uint64(len(g.nums)))
		for _, v := range g.nums {
			k = binary.AppendUvarint(k, uint64(v))
		}
		k = binary.AppendUvarint(k, uint64(len(g.units)))
		for _, u := range g.units {
			str(u)
		}
	}
	m.key = k
	r, slot, found := m.labelIdx.Find(maphash.Bytes(m.seed, k), func(v uint32) bool { return bytes.Equal(m.labelKey(int32(v)), k) })
	if found {
		return int32(r)
	}
	r = uint32(len(m.labelEnd))
	m.labelKeys = append(m.labelKeys, k...)
	m.labelEnd = append(m.labelEnd, uint32(len(m.labelKeys)))
	m.labelIdx.Add(slot, r, func(v uint32) uint64 { return maphash.Bytes(m.seed, m.labelKey(int32(v))) })
	return int32(r)
}

// labelKey returns pprof's key of the result's label set r.
func (m *merger) labelKey(r int32) []byte {
	start := uint32(0)
	if r > 0 {
		start = m.labelEnd[r-1]
	}
	return m.labelKeys[start:m.labelEnd[r]]
}

const baseLabel = "pprof::base"

func pad(s []string, n int) []string {
	for len(s) < n {
		s = append(s, "")
	}
	return s
}

// compact is what profile.Merge does when a merged sample's values are
// all zero: it merges the result again, which keeps the samples that are
// not and what they reach, in the order met: the first mapping, then
// each location's mapping and functions before it.
func (m *merger) compact() bool {
	n := m.nTypes
	kept := 0
	for i := range m.samples {
		v := m.vals[i*n : (i+1)*n]
		if isZero(v) {
			continue
		}
		m.samples[kept] = m.samples[i]
		copy(m.vals[kept*n:(kept+1)*n], v)
		kept++
	}
	if kept == len(m.samples) {
		return false
	}
	m.samples, m.vals = m.samples[:kept], m.vals[:kept*n]

	fill := func(k int) []int32 {
		s := make([]int32, k)
		for i := range s {
			s[i] = -1
		}
		return s
	}
	newMap, newFn, newLoc := fill(len(m.mappings)), fill(len(m.funcs)), fill(len(m.locs))
	var maps []mapping
	var fns []function
	var locs []location
	var lines []model.Line
	var cols []int64
	if len(m.mappings) > 0 {
		newMap[0] = 0
		maps = append(maps, m.mappings[0])
	}
	st := stackTable{seed: m.seed}
	for i := range m.samples {
		s := &m.samples[i]
		f := m.frames[:0]
		for j := range m.stacks.st.StackLen(int(s.stack)) {
			li := m.stacks.st.Frame(int(s.stack), j)
			if newLoc[li] < 0 {
				l := m.locs[li]
				if l.mapping != model.NoMapping {
					if newMap[l.mapping] < 0 {
						newMap[l.mapping] = int32(len(maps))
						maps = append(maps, m.mappings[l.mapping])
					}
					l.mapping = newMap[l.mapping]
				}
				off := int32(len(lines))
				for j, ln := range m.lines[l.off:l.end] {
					if newFn[ln.Function] < 0 {
						newFn[ln.Function] = int32(len(fns))
						fns = append(fns, m.funcs[ln.Function])
					}
					ln.Function = newFn[ln.Function]
					lines = append(lines, ln)
					if c := m.colAt(int(l.off) + j); c != 0 {
						cols = append(cols, make([]int64, len(lines)-len(cols))...)
						cols[len(lines)-1] = c
					}
				}
				l.off, l.end = off, int32(len(lines))
				newLoc[li] = int32(len(locs))
				locs = append(locs, l)
			}
			f = append(f, newLoc[li])
		}
		m.frames = f
		s.stack = st.add(f)
	}
	m.mappings, m.funcs, m.locs, m.lines, m.cols, m.stacks = maps, fns, locs, lines, cols, st
	m.done()
	return true
}

// done drops what only adding samples needs.
func (m *merger) done() {
	m.mappingIdx, m.sampleIdx = nil, nil
	m.funcIdx, m.locIdx, m.stacks.idx, m.labelIdx = hashindex.Index{}, hashindex.Index{}, hashindex.Index{}, hashindex.Index{}
}
