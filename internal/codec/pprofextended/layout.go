// The encoder's layout pass: which strings, functions, locations,
// stacks and attributes the tables hold, in which order.

package pprofextended

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/pprofx/pprofx/internal/hashindex"
	"github.com/pprofx/pprofx/internal/model"
)

// layoutStacks fills e.written, e.nli and e.stStart: every stack used by a
// sample gets a slice of location_indices, whose e.nli entries are the
// frames of the stacks of e.written, one after the other. Identical stacks share one slice, and a
// stack that is the caller part (the root end) of a longer one reuses that
// one's tail.
//
// The distinct stacks are sorted root first, lexicographically: a stack that
// is the caller part of others then sorts just before them, so it is the
// caller part of its successor if of any. Going through the sorted stacks
// backwards, a stack either reuses its successor's tail or is written out.
// Neighbours in location_indices then share callers, which gzip likes.
//
// Tried and dropped: stacks in order of first use by the samples (so that
// start indices rise), sharing a slice whenever the whole stack is the
// caller part of one written before (a trie of suffixes, O(frames)): block
// -0.2%, but cpu +0.5%, synthetic-20k +1.8%, deep-stacks +9% and
// deep-unique +18% (a stack written before its callers' shorter stacks
// cannot share with them). Cost of the sorted layout: one sort of the
// distinct stacks, comparisons walking common callers.
func (e *encoder) layoutStacks() {
	p := e.p
	ns := p.Stacks.Len()
	e.stStart = slices.Grow(e.stStart[:0], ns)[:ns]
	for i := range e.stStart {
		e.stStart[i] = -1
	}
	// Distinct used stacks (by table index).
	ss := e.sortStacks[:0]
	for i := range p.Samples {
		s := p.Samples[i].Stack
		if e.stStart[s] == -1 {
			e.stStart[s] = -2
			ss = append(ss, seq{s, int32(p.Stacks.StackLen(int(s)))})
		}
	}
	seqs{&p.Stacks, e.lmap}.sort(ss)
	defer func() { e.sortStacks = keep(ss) }()
	e.written, e.nli = e.written[:0], 0
	for k := len(ss) - 1; k >= 0; k-- {
		s, n := ss[k].i, int(ss[k].n)
		if n == 0 {
			e.stStart[s] = 0
			continue
		}
		if k+1 < len(ss) {
			next := ss[k+1]
			if d := int(next.n) - n; d >= 0 && callerPart(&p.Stacks, int(s), int(next.i), d) {
				e.stStart[s] = e.stStart[next.i] + int32(d)
				continue
			}
		}
		e.stStart[s] = int32(e.nli)
		e.nli += n
		e.written = append(e.written, s)
	}
}

// callerPart reports whether stack s is stack t from frame d on (leaf
// first): its caller part.
func callerPart(st *model.Stacks, s, t, d int) bool {
	for j := range st.StackLen(s) {
		if st.Frame(s, j) != st.Frame(t, d+j) {
			return false
		}
	}
	return true
}

// layoutAttributes fills the attribute table and units and, per label set
// used by a sample, its attribute indices (or -2 in lsStart when it must be
// written with the deprecated Sample.label because one of its numeric
// labels has a unit other than its key's in attribute_units).
func (e *encoder) layoutAttributes() {
	p := e.p
	nl := len(p.LabelSets)
	e.lsStart = slices.Grow(e.lsStart[:0], nl)[:nl]
	e.lsEnd = slices.Grow(e.lsEnd[:0], nl)[:nl]
	for i := range e.lsStart {
		e.lsStart[i], e.lsEnd[i] = -1, -1
	}
	e.attrs, e.kv, e.units = e.attrs[:0], e.kv[:0], e.units[:0]
	if e.keyUnit == nil {
		e.keyUnit, e.kvSeed = map[int32]int32{}, maphash.MakeSeed()
	}
	// The attribute table's entries are found by an index of their
	// numbers: a perf script's samples each have a time of their own.
	e.kvIndex = hashindex.Index{}
	clear(e.keyUnit)
	keyUnit := e.keyUnit // numeric key -> its unit (0: none)
	rehash := func(v uint32) uint64 { return maphash.Comparable(e.kvSeed, e.kv[v]) }
	conflict := false
	for i := range p.Samples {
		ls := p.Samples[i].LabelSet
		if e.lsStart[ls] != -1 {
			continue
		}
		labels := p.LabelSets[ls].Labels()
		ok := true
		for j, l := range labels {
			if !l.IsNumeric() {
				continue
			}
			if u, seen := keyUnit[l.Key]; seen && u != l.NumUnit {
				ok = false
				break
			}
			for _, m := range labels[:j] { // same key, other unit, in this set
				if m.IsNumeric() && m.Key == l.Key && m.NumUnit != l.NumUnit {
					ok = false
				}
			}
		}
		if !ok {
			e.lsStart[ls] = -2
			conflict = true
			continue
		}
		e.lsStart[ls] = int32(len(e.attrs))
		for _, l := range labels {
			k := kvKey{key: l.Key}
			if l.IsNumeric() {
				k.numeric, k.num = true, l.Num
				if _, seen := keyUnit[l.Key]; !seen {
					keyUnit[l.Key] = l.NumUnit
					if l.NumUnit != 0 {
						e.units = append(e.units, [2]int32{l.Key, l.NumUnit})
					}
				}
			} else {
				k.str = l.Str
			}
			x, slot, seen := e.kvIndex.Find(maphash.Comparable(e.kvSeed, k), func(v uint32) bool { return e.kv[v] == k })
			if !seen {
				x = uint32(len(e.kv))
				e.kv = append(e.kv, k)
				e.kvIndex.Add(slot, x, rehash)
			}
			e.attrs = append(e.attrs, x)
		}
		e.lsEnd[ls] = int32(len(e.attrs))
	}
	e.sortAttributes()
	if conflict {
		e.warn("otlp: some numeric labels have a unit other than their key's first unit; those samples carry their labels in the deprecated Sample.label field")
	}
}

// sortAttributes sorts the attribute table by key, then kind (strings
// first), then value, and renumbers e.attrs. In a Go heap profile the
// table is mostly the numeric "bytes" label, one entry per allocation size;
// in increasing order its values compress better than in order of first
// use (0.2% of the heap fixture's gzipped size, no change elsewhere). Cost:
// one sort of the table, O(k log k).
func (e *encoder) sortAttributes() {
	if len(e.kv) < 2 {
		return
	}
	p := e.p
	perm := make([]int32, len(e.kv))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(a, b int32) int {
		x, y := &e.kv[a], &e.kv[b]
		if c := strings.Compare(p.String(x.key), p.String(y.key)); c != 0 {
			return c
		}
		if x.numeric != y.numeric {
			if x.numeric {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(x.num, y.num); c != 0 {
			return c
		}
		if c := strings.Compare(p.String(x.str), p.String(y.str)); c != 0 {
			return c
		}
		return int(a) - int(b) // a total order: the result is deterministic
	})
	if slices.IsSorted(perm) {
		return
	}
	inv := make([]uint32, len(perm))
	kv := make([]kvKey, len(perm))
	for k, i := range perm {
		inv[i] = uint32(k)
		kv[k] = e.kv[i]
	}
	copy(e.kv, kv)
	for i, a := range e.attrs {
		e.attrs[i] = inv[a]
	}
}

// layoutFunctions orders the function table by first use when going through
// the locations in written (address) order, each location's lines from the
// outermost caller in: functions then follow their code's order in the
// binary, and a location's function index is mostly its predecessor's or
// one more, which gzip likes. Against input order this saves 1.1% of the
// gzipped size of the cpu fixtures, 0.5% of rich, 0.2% of heap, mutex and
// block; a sort by name was worse than input order for block and goroutine
// (+0.7%). Functions no location uses follow, in input order. Cost:
// O(locations + lines).
func (e *encoder) layoutFunctions() {
	p := e.p
	n := len(p.Functions)
	e.forder = slices.Grow(e.forder[:0], n)
	e.fmap = slices.Grow(e.fmap[:0], n)[:n]
	for i := range e.fmap {
		e.fmap[i] = -1
	}
	for _, li := range e.lorder {
		lines := p.LocationLines(int(li))
		for k := len(lines) - 1; k >= 0; k-- {
			if f := lines[k].Function; f != model.NoFunction && e.fmap[f] == -1 {
				e.fmap[f] = int32(len(e.forder))
				e.forder = append(e.forder, f)
			}
		}
	}
	for i := range e.fmap {
		if e.fmap[i] == -1 {
			e.fmap[i] = int32(len(e.forder))
			e.forder = append(e.forder, int32(i))
		}
	}
}

// sx returns the written string index of model string index i.
func (e *encoder) sx(i int32) uint64 { return uint64(e.smap[i]) }

// layoutStrings chooses the string table written: the strings referenced
// by index (label keys and values in attribute_table are written inline, so
// strings only they use are left out), each once, sorted, with "" first.
// Sorted strings put names with common prefixes side by side, which gzip
// compresses better (about 1.5% of a Go profile's gzipped size; order of
// first use through the functions was 0.6% to 1% worse than sorted).
// Cost: one sort of the strings used.
func (e *encoder) layoutStrings() {
	p := e.p
	n := len(p.Strings)
	e.smap = slices.Grow(e.smap[:0], n)[:n]
	for i := range e.smap {
		e.smap[i] = -1
	}
	idx := make([]int32, 0, n)
	mark := func(i int32) {
		if i > 0 && e.smap[i] == -1 {
			e.smap[i] = 0
			idx = append(idx, i)
		}
	}
	for i := range p.Mappings {
		mark(p.Mappings[i].File)
		mark(p.Mappings[i].BuildID)
	}
	for i := range p.Functions {
		f := &p.Functions[i]
		mark(f.Name)
		mark(f.SystemName)
		mark(f.Filename)
	}
	for _, t := range p.SampleTypes {
		mark(t.Type)
		mark(t.Unit)
	}
	mark(p.PeriodType.Type)
	mark(p.PeriodType.Unit)
	for _, c := range p.Comments {
		mark(c)
	}
	mark(p.DropFrames)
	mark(p.KeepFrames)
	mark(p.DefaultSampleType)
	for _, u := range e.units {
		mark(u[0])
		mark(u[1])
	}
	for ls, st := range e.lsStart {
		if st == -2 {
			for _, l := range p.LabelSets[ls].Labels() {
				mark(l.Key)
				mark(l.Str)
				mark(l.NumUnit)
			}
		}
	}
	// (A multikey quicksort, as for stacks, walks the long shared
	// prefixes of package paths byte by byte and was slower here than
	// comparisons, which compare many bytes at a time.)
	slices.SortFunc(idx, func(a, b int32) int { return strings.Compare(p.Strings[a], p.Strings[b]) })
	e.strs = slices.Grow(e.strs[:0], len(idx)+1)
	e.strs = append(e.strs, 0)
	e.smap[0] = 0
	for _, i := range idx {
		if p.Strings[i] != p.String(e.strs[len(e.strs)-1]) {
			e.strs = append(e.strs, i)
		}
		e.smap[i] = int32(len(e.strs) - 1)
	}
	if len(e.strs) <= 128 {
		return // every index is a one-byte varint already
	}
	// Function names are the most referenced strings (name and
	// system_name of each function): put them first, still sorted, so
	// that more of them get one-byte indices. Equal strings were merged
	// above, so a string is a name by its content, whatever its model
	// index. Gain: 1.4% of the heap fixture's gzipped size, 0.3% for cpu;
	// profiles with 128 strings or fewer are left as they are (there the
	// split made block and goroutine 0.5% bigger). Cost: O(strings).
	isName := make([]bool, len(e.strs))
	for i := range p.Functions {
		f := &p.Functions[i]
		isName[e.smap[f.Name]] = true
		isName[e.smap[f.SystemName]] = true
	}
	isName[0] = false // "" stays first
	remap := make([]int32, len(e.strs))
	strs := make([]int32, 1, len(e.strs))
	for pass := 0; pass < 2; pass++ {
		for k := 1; k < len(e.strs); k++ {
			if isName[k] == (pass == 0) {
				remap[k] = int32(len(strs))
				strs = append(strs, e.strs[k])
			}
		}
	}
	copy(e.strs, strs)
	for i, x := range e.smap {
		if x > 0 {
			e.smap[i] = remap[x]
		}
	}
}

// layoutLocations orders the location table by mapping and address (input
// order among equals). Neighbouring addresses then share their high bytes,
// which gzip compresses better (about 1.5% of a Go profile's gzipped size).
// Cost: one sort, skipped when the input is in order already (a decoded
// pprofx OTLP file).
//
// Tried and dropped: order of first appearance when walking the samples'
// stacks, as Go's runtime numbers pprof locations (leaf first: cpu +1.5%,
// heap +1.7%, mutex +1.5%; root first: cpu +1.5%, heap +1.5%, mutex
// +1.1%); the 127 locations most used by stacks first (one-byte indices in
// location_indices), each part in address order: cpu +1.2%, heap +0.3%.
func (e *encoder) layoutLocations() {
	locs := e.p.Locations
	n := len(locs)
	e.lmap = slices.Grow(e.lmap[:0], n)[:n]
	e.lorder = slices.Grow(e.lorder[:0], n)[:n]
	less := func(x, y locKey) int {
		if x.mapping != y.mapping {
			return int(x.mapping) - int(y.mapping)
		}
		if c := cmp.Compare(x.address, y.address); c != 0 {
			return c
		}
		return int(x.i) - int(y.i) // a total order: the result is deterministic
	}
	sorted := true
	for i := 1; i < n && sorted; i++ {
		sorted = less(locKey{locs[i-1].Address, locs[i-1].Mapping, int32(i - 1)}, locKey{locs[i].Address, locs[i].Mapping, int32(i)}) < 0
	}
	if sorted {
		for i := range n {
			e.lorder[i], e.lmap[i] = int32(i), int32(i)
		}
		return
	}
	// The keys sort beside the indices: no indirection per compare.
	keys := slices.Grow(e.lkeys[:0], n)
	for i := range locs {
		keys = append(keys, locKey{locs[i].Address, locs[i].Mapping, int32(i)})
	}
	if !radixSortLocKeys(keys, &e.lkeys2) {
		slices.SortFunc(keys, less)
	}
	for k, x := range keys {
		e.lorder[k] = x.i
		e.lmap[x.i] = int32(k)
	}
	e.lkeys, e.lkeys2 = keep(keys), keep(e.lkeys2)
}

// maxKeptScratch is the most entries a scratch array of one step keeps
// for the next call (or the next step of this one) once the step is done:
// a larger one, made for a table of millions, is let go at once rather
// than held beside the arrays and the output the later steps make.
const maxKeptScratch = 1 << 16

// keep returns s emptied, to be reused, or nil when it is too large to
// keep (maxKeptScratch).
func keep[T any](s []T) []T {
	if cap(s) > maxKeptScratch {
		return nil
	}
	return s[:0]
}

type locKey struct {
	address uint64
	mapping int32
	i       int32
}

// radixSortLocKeys sorts keys (in index order) by mapping then address,
// stably, with a least-significant-byte-first radix sort over the bytes in
// which the keys differ, when both fit one 64-bit key (addresses below
// 2^48, fewer than 2^15 mappings). It reports false, sorting nothing, when
// they do not. tmp is scratch. Locations have a few varying address bytes,
// so this is a few linear passes, against n·log n comparisons.
func radixSortLocKeys(keys []locKey, tmp *[]locKey) bool {
	or, and := uint64(0), ^uint64(0)
	for _, x := range keys {
		if x.address >= 1<<48 || x.mapping >= 1<<15-1 {
			return false
		}
		k := packLocKey(x)
		or, and = or|k, and&k
	}
	buf := slices.Grow((*tmp)[:0], len(keys))[:len(keys)]
	*tmp = buf
	src, dst := keys, buf
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		if (or^and)>>shift&0xff == 0 {
			continue // every key has the same byte here
		}
		count = [256]int{}
		for _, x := range src {
			count[packLocKey(x)>>shift&0xff]++
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, x := range src {
			b := packLocKey(x) >> shift & 0xff
			dst[count[b]] = x
			count[b]++
		}
		src, dst = dst, src
	}
	if len(keys) > 0 && &src[0] != &keys[0] {
		copy(keys, src)
	}
	return true
}

// packLocKey is mapping+1 (none is -1) over the address.
func packLocKey(x locKey) uint64 { return uint64(x.mapping+1)<<48 | x.address }
