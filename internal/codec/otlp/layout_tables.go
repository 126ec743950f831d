package otlp

// The writer's layout of the dictionary tables: which entries, in which
// order (chosen for gzip), and the attribute table.

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/model"
)

// layoutStrings builds the shared string table: the strings referenced by
// index (label and attribute string values are written inline), each once,
// sorted, "" first. Sorted strings put names with common prefixes side by
// side, which gzip compresses better. Past 128 strings, the names of
// functions go first (still sorted), so that more of them get one-byte
// indices.
func (e *encoder) layoutStrings() {
	e.thread = e.threadKeys()
	cs := e.profileStrings(e.cands[:0])
	cs = e.attributeKeys(cs)
	e.assignStrings(cs)
	e.cands = keep(cs)
	e.emptyName = 0
	for pi, p := range e.ps {
		sm := e.smap[pi]
		for i := range p.Functions {
			f := &p.Functions[i]
			if sm[f.Name] == 0 && sm[f.SystemName] == 0 && sm[f.Filename] == 0 {
				e.emptyName = -1
			}
		}
	}
	if len(e.strs) > 128 {
		e.namesFirst()
	}
	// A function whose every name is empty (google/pprof makes one for a
	// frame the symbolizer could not name) must still name something in
	// OTLP: its name_strindex points at an empty string after the zero
	// entry, the table's last. Every reader reads the empty name there is.
	if e.emptyName == -1 {
		e.emptyName = int32(len(e.strs))
		e.strs = append(e.strs, ref{strEmpty, 0})
	}
}

// strOf returns the string r stands for.
func (e *encoder) strOf(r ref) string {
	switch r.p {
	case strFixed:
		return fixedKeys[r.i]
	case strKey:
		return e.akeys[r.i]
	case strEmpty:
		return ""
	}
	return e.ps[r.p].Strings[r.i]
}

// profileStrings adds to cs every string the profiles reference by index.
func (e *encoder) profileStrings(cs []ref) []ref {
	// Sized once (the attribute keys are few): grown by append, the
	// candidates of millions of strings would be copied again and again,
	// old and new held at once.
	total := 0
	for _, p := range e.ps {
		total += len(p.Strings)
	}
	cs = slices.Grow(cs, total+nFixedKeys)
	for pi, p := range e.ps {
		used := resize(e.smap[pi], len(p.Strings))
		for i := range used {
			used[i] = 0
		}
		mark := func(i int32) {
			if i > 0 && used[i] == 0 {
				used[i] = -1
				cs = append(cs, ref{int32(pi), i})
			}
		}
		for i := range p.Mappings {
			mark(p.Mappings[i].File)
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
		for _, ls := range p.LabelSets {
			for _, l := range ls.Labels() {
				if _, ok := e.thread.renamed(p.String(l.Key)); !ok {
					mark(l.Key)
				}
				mark(l.NumUnit)
			}
		}
		e.smap[pi] = used
	}
	return cs
}

// attributeKeys adds to cs the attribute keys the writer will use, and
// only those: a small profile's string table is a good part of its size.
// The fixed keys are flags in an array (no map to build for each call);
// profile attribute keys, which only OTLP inputs have, go through a map.
func (e *encoder) attributeKeys(cs []ref) []ref {
	var need [nFixedKeys]bool
	if e.keys != nil {
		clear(e.keys)
	}
	clear(e.akeys)
	e.akeys = e.akeys[:0]
	key := func(k string) {
		if f := fixedKey(k); f >= 0 {
			need[f] = true
			return
		}
		if e.keys == nil {
			e.keys = map[string]int32{}
		}
		if _, ok := e.keys[k]; !ok {
			e.keys[k] = 0
			cs = append(cs, ref{strKey, int32(len(e.akeys))})
			e.akeys = append(e.akeys, k)
		}
	}
	keys := func(as []model.Attribute) {
		for _, a := range as {
			key(a.Key)
			if a.Unit != "" {
				key(a.Unit)
			}
		}
	}
	if e.thread.name {
		key(AttrThreadName)
	}
	if e.thread.id {
		key(AttrThreadID)
	}
	for _, p := range e.ps {
		keys(p.Attributes)
		for i := range p.Mappings {
			keys(p.Mappings[i].Attributes)
		}
		for _, as := range p.LocationAttributes {
			keys(as)
		}
		for i := range p.LabelSets {
			keys(p.LabelSets[i].Attributes())
		}
		need[kComment] = need[kComment] || len(p.Comments) > 0
		need[kDropFrames] = need[kDropFrames] || p.DropFrames != 0
		need[kKeepFrames] = need[kKeepFrames] || p.KeepFrames != 0
		need[kDocURL] = need[kDocURL] || p.DocURL != 0
		need[kMappings] = need[kMappings] || len(e.ps) > 1
		for i := range p.Mappings {
			m := &p.Mappings[i]
			need[kBuildIDGNU] = need[kBuildIDGNU] || (m.BuildID != 0 && m.BuildIDKind != 1)
			need[kBuildIDHTL] = need[kBuildIDHTL] || (m.BuildID != 0 && m.BuildIDKind == 1)
			need[kHasFunctions] = need[kHasFunctions] || m.HasFunctions
			need[kHasFilenames] = need[kHasFilenames] || m.HasFilenames
			need[kHasLineNumbers] = need[kHasLineNumbers] || m.HasLineNumbers
			need[kHasInlineFrames] = need[kHasInlineFrames] || m.HasInlineFrames
		}
		if !need[kIsFolded] {
			for i := range p.Locations {
				if p.Locations[i].IsFolded {
					need[kIsFolded] = true
					break
				}
			}
		}
	}
	for k, on := range need {
		if on {
			cs = append(cs, ref{strFixed, int32(k)})
		}
	}
	return cs
}

// assignStrings sorts the candidates into the string table, each once,
// "" first, and records each one's index.
func (e *encoder) assignStrings(cs []ref) {
	slices.SortFunc(cs, func(a, b ref) int { return strings.Compare(e.strOf(a), e.strOf(b)) })
	// Room for every candidate, "" first and the empty name last.
	e.strs = append(slices.Grow(e.strs[:0], len(cs)+2), ref{strEmpty, 0})
	e.fixed = [nFixedKeys]int32{}
	last := ""
	for _, c := range cs {
		if s := e.strOf(c); s != last {
			e.strs = append(e.strs, c)
			last = s
		}
		switch c.p {
		case strFixed:
			e.fixed[c.i] = int32(len(e.strs) - 1)
		case strKey:
			e.keys[e.akeys[c.i]] = int32(len(e.strs) - 1)
		default:
			e.smap[c.p][c.i] = int32(len(e.strs) - 1)
		}
	}
}

// namesFirst moves the names of functions to the front of the string
// table (still sorted), so that more of them get one-byte indices.
func (e *encoder) namesFirst() {
	isName := make([]bool, len(e.strs))
	for pi, p := range e.ps {
		for i := range p.Functions {
			f := &p.Functions[i]
			isName[e.smap[pi][f.Name]] = true
			isName[e.smap[pi][f.SystemName]] = true
		}
	}
	isName[0] = false
	remap := make([]int32, len(e.strs))
	n := 1
	for pass := 0; pass < 2; pass++ {
		for k := 1; k < len(e.strs); k++ {
			if isName[k] == (pass == 0) {
				remap[k] = int32(n)
				n++
			}
		}
	}
	for k, x := range e.keys {
		e.keys[k] = remap[x]
	}
	for k, x := range e.fixed {
		e.fixed[k] = remap[x]
	}
	for _, sm := range e.smap {
		for i, x := range sm {
			if x > 0 {
				sm[i] = remap[x]
			}
		}
	}
	// The table itself is moved in place, along the cycles of remap
	// (which this uses up), not copied.
	for k := range e.strs {
		for int(remap[k]) != k {
			t := remap[k]
			e.strs[k], e.strs[t] = e.strs[t], e.strs[k]
			remap[k], remap[t] = remap[t], t
		}
	}
}

// appendMappingRest appends what identifies a mapping after its addresses
// and file: its build id and kind, and its four has_* flags.
func appendMappingRest(k []byte, p *model.Profile, m *model.Mapping) []byte {
	k = append(k, p.String(m.BuildID)...)
	k = append(k, 0, byte(m.BuildIDKind))
	for _, f := range []bool{m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames} {
		if f {
			k = append(k, 1)
		} else {
			k = append(k, 0)
		}
	}
	return appendAttrsKey(k, m.Attributes)
}

// str returns the dictionary index of a fixed key or a profile attribute
// key, which layoutStrings put in the table.
func (e *encoder) str(s string) int32 {
	if k := fixedKey(s); k >= 0 && e.fixed[k] > 0 {
		return e.fixed[k]
	}
	if x, ok := e.keys[s]; ok {
		return x
	}
	panic("otlp: string not laid out: " + s)
}

// layoutMappings keeps the mappings in input order (the order pprof
// compares), one dictionary entry per distinct mapping.
func (e *encoder) layoutMappings() {
	e.maps = e.maps[:0]
	var index map[string]int32
	if len(e.ps) > 1 {
		index = map[string]int32{}
	}
	for pi, p := range e.ps {
		mm := resize(e.mmap[pi], len(p.Mappings))
		for i := range p.Mappings {
			if index != nil {
				k := e.mappingKey(pi, &p.Mappings[i])
				if x, ok := index[string(k)]; ok {
					mm[i] = x
					continue
				}
				index[string(k)] = int32(len(e.maps) + 1)
			}
			e.maps = append(e.maps, ref{int32(pi), int32(i)})
			mm[i] = int32(len(e.maps))
		}
		e.mmap[pi] = mm
	}
}

func (e *encoder) mappingKey(pi int, m *model.Mapping) []byte {
	p := e.ps[pi]
	k := binary.AppendUvarint(e.keybuf[:0], m.Start)
	k = binary.AppendUvarint(k, m.Limit)
	k = binary.AppendUvarint(k, m.Offset)
	k = binary.AppendUvarint(k, uint64(e.smap[pi][m.File]))
	k = appendMappingRest(k, p, m)
	e.keybuf = k
	return k
}

// layoutLocations orders the location table by mapping and address (input
// order among equals): neighbouring addresses share their high bytes, which
// gzip likes. Equal locations of different inputs are one entry.
func (e *encoder) layoutLocations() {
	total := 0
	for _, p := range e.ps {
		total += len(p.Locations)
	}
	if len(e.ps) == 1 && e.locationsInOrder(e.ps[0]) {
		// A decoded pprofx file, or the bundle's tables: the order is
		// kept, and no key is made.
		p := e.ps[0]
		lm := resize(e.lmap[0], len(p.Locations))
		e.locs.reset(total)
		for i := range p.Locations {
			e.locs.add(ref{0, int32(i)})
			lm[i] = int32(i + 1)
		}
		e.lmap[0] = lm
		return
	}
	// Sized once: grown by append, a table of millions would be copied
	// again and again, each copy 1.25 times the last.
	keys := slices.Grow(e.lkeys[:0], total)
	defer func() { e.lkeys = keep(keys) }()
	for pi, p := range e.ps {
		for i := range p.Locations {
			l := &p.Locations[i]
			m := int32(0)
			if l.Mapping != model.NoMapping {
				m = e.mmap[pi][l.Mapping]
			}
			keys = append(keys, locKey{m, l.Address, ref{int32(pi), int32(i)}})
		}
		e.lmap[pi] = resize(e.lmap[pi], len(p.Locations))
	}
	less := func(x, y locKey) int {
		if x.mapping != y.mapping {
			return int(x.mapping) - int(y.mapping)
		}
		if c := cmp.Compare(x.address, y.address); c != 0 {
			return c
		}
		if x.r.p != y.r.p {
			return int(x.r.p) - int(y.r.p)
		}
		return int(x.r.i) - int(y.r.i)
	}
	if !slices.IsSortedFunc(keys, less) {
		slices.SortFunc(keys, less)
	}
	e.locs.reset(total)
	var index map[string]int32
	if len(e.ps) > 1 {
		index = map[string]int32{}
	}
	for _, k := range keys {
		if index != nil {
			key := e.locationKey(k.mapping, k.r)
			if x, ok := index[string(key)]; ok {
				e.lmap[k.r.p][k.r.i] = x
				continue
			}
			index[string(key)] = int32(e.locs.len() + 1)
		}
		e.locs.add(k.r)
		e.lmap[k.r.p][k.r.i] = int32(e.locs.len())
	}
}

// locationsInOrder reports whether the locations of p, the one profile
// written, are in the table's order already: by mapping, then address.
func (e *encoder) locationsInOrder(p *model.Profile) bool {
	mm := e.mmap[0]
	prevMap, prevAddr := int32(-1), uint64(0)
	for i := range p.Locations {
		l := &p.Locations[i]
		m := int32(0)
		if l.Mapping != model.NoMapping {
			m = mm[l.Mapping]
		}
		if m < prevMap || (m == prevMap && l.Address < prevAddr) {
			return false
		}
		prevMap, prevAddr = m, l.Address
	}
	return true
}

// locationKey identifies a location across inputs; functions by content.
func (e *encoder) locationKey(mapping int32, r ref) []byte {
	p := e.ps[r.p]
	l := &p.Locations[r.i]
	k := binary.AppendUvarint(e.keybuf[:0], uint64(mapping))
	k = binary.AppendUvarint(k, l.Address)
	if l.IsFolded {
		k = append(k, 1)
	} else {
		k = append(k, 0)
	}
	k = appendAttrsKey(k, p.LocationAttrs(int(r.i)))
	for j, ln := range p.LinesOf(l) {
		k = binary.AppendVarint(k, ln.Line)
		k = binary.AppendVarint(k, p.ColumnOf(l, j))
		if ln.Function == model.NoFunction {
			k = append(k, 0)
			continue
		}
		f := &p.Functions[ln.Function]
		k = append(k, 1)
		k = binary.AppendUvarint(k, uint64(e.smap[r.p][f.Name]))
		k = binary.AppendUvarint(k, uint64(e.smap[r.p][f.SystemName]))
		k = binary.AppendUvarint(k, uint64(e.smap[r.p][f.Filename]))
		k = binary.AppendVarint(k, f.StartLine)
	}
	e.keybuf = k
	return k
}

// layoutFunctions orders the function table by first use when going through
// the locations in written order, each location's lines from the outermost
// caller in: functions follow their code's order in the binary. Functions no
// location uses follow, in input order.
func (e *encoder) layoutFunctions() {
	total := 0
	for _, p := range e.ps {
		total += len(p.Functions)
	}
	e.funcs.reset(total)
	var index map[[4]int64]int32
	if len(e.ps) > 1 {
		index = map[[4]int64]int32{}
	}
	add := func(pi int32, f int32) {
		fm := e.fmap[pi]
		if fm[f] != 0 {
			return
		}
		if index != nil {
			mf := &e.ps[pi].Functions[f]
			sm := e.smap[pi]
			k := [4]int64{int64(sm[mf.Name]), int64(sm[mf.SystemName]), int64(sm[mf.Filename]), mf.StartLine}
			if x, ok := index[k]; ok {
				fm[f] = x
				return
			}
			index[k] = int32(e.funcs.len() + 1)
		}
		e.funcs.add(ref{pi, f})
		fm[f] = int32(e.funcs.len())
	}
	for pi, p := range e.ps {
		fm := resize(e.fmap[pi], len(p.Functions))
		clear(fm)
		e.fmap[pi] = fm
	}
	for k := range e.locs.len() {
		r := e.locs.at(k)
		lines := e.ps[r.p].LocationLines(int(r.i))
		for k := len(lines) - 1; k >= 0; k-- {
			if f := lines[k].Function; f != model.NoFunction {
				add(r.p, f)
			}
		}
	}
	for pi, p := range e.ps {
		for i := range p.Functions {
			add(int32(pi), int32(i))
		}
	}
}

func (e *encoder) layoutLinks() {
	e.links = e.links[:0]
	var index map[string]int32
	for pi, p := range e.ps {
		if len(p.Links) > 0 && index == nil {
			index = map[string]int32{}
		}
		km := resize(e.kmap[pi], len(p.Links))
		for i, l := range p.Links {
			k := string(l.TraceID) + "\x00" + string(l.SpanID)
			if x, ok := index[k]; ok {
				km[i] = x
				continue
			}
			e.links = append(e.links, ref{int32(pi), int32(i)})
			km[i] = int32(len(e.links))
			index[k] = km[i]
		}
		e.kmap[pi] = km
	}
}

// layoutStacks gives every stack a sample uses a dictionary entry; identical
// stacks (of different inputs) share one, and the empty stack is the zero
// entry. The table is sorted root first by written location indices, so
// that neighbours share their callers, which gzip likes (gzipped size
// against order of first use: cpu -1.0%, heap -0.3%, deep stacks -8%;
// synthetic-20k +1.4%).
func (e *encoder) layoutStacks() {
	all := e.stAll[:0]
	defer func() { e.stAll = keep(all) }()
	for pi, p := range e.ps {
		sm := resize(e.stmap[pi], p.Stacks.Len())
		for i := range sm {
			sm[i] = -1
		}
		e.stmap[pi] = sm
		for si := range p.Samples {
			s := p.Samples[si].Stack
			if sm[s] != -1 {
				continue
			}
			if p.Stacks.StackLen(int(s)) == 0 {
				sm[s] = 0
				continue
			}
			sm[s] = -2
			all = append(all, ref{int32(pi), s})
		}
	}
	// Stacks compare root first by their written location indices, read
	// in place: a stack may hold millions of frames, too many to copy.
	cmpFrames := func(a, b ref) int {
		sa, sb := &e.ps[a.p].Stacks, &e.ps[b.p].Stacks
		la, lb := e.lmap[a.p], e.lmap[b.p]
		na, nb := sa.StackLen(int(a.i)), sb.StackLen(int(b.i))
		for j := 1; j <= min(na, nb); j++ {
			if c := cmp.Compare(la[sa.Frame(int(a.i), na-j)], lb[sb.Frame(int(b.i), nb-j)]); c != 0 {
				return c
			}
		}
		return cmp.Compare(na, nb)
	}
	cmpStacks := func(a, b ref) int {
		if c := cmpFrames(a, b); c != 0 {
			return c
		}
		if a.p != b.p {
			return int(a.p) - int(b.p)
		}
		return int(a.i) - int(b.i)
	}
	if !slices.IsSortedFunc(all, cmpStacks) {
		slices.SortFunc(all, cmpStacks)
	}
	e.stacks = e.stacks[:0]
	for k, x := range all {
		if k > 0 && cmpFrames(all[k-1], x) == 0 {
			e.stmap[x.p][x.i] = int32(len(e.stacks))
			continue
		}
		e.stacks = append(e.stacks, x)
		e.stmap[x.p][x.i] = int32(len(e.stacks))
	}
}

// attr adds a KeyValueAndUnit (its encoded body) to the attribute table and
// returns its provisional index.
func (e *encoder) attr(body []byte) int32 {
	x, slot, ok := e.aindex.Find(maphash.Bytes(e.aseed, body), func(v uint32) bool { return e.attrs[v] == string(body) })
	if ok {
		return int32(x)
	}
	x = uint32(len(e.attrs))
	e.attrs = append(e.attrs, string(body))
	e.aindex.Add(slot, x, func(v uint32) uint64 { return maphash.String(e.aseed, e.attrs[v]) })
	return int32(x)
}

func (e *encoder) attrString(key, v string) int32 {
	b := appendVarintField(e.scratch[:0], 1, uint64(e.str(key)))
	b, s := begin(b, 2)
	b = appendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, e.validUTF8(v))
	b = end(b, s)
	e.scratch = b
	return e.attr(b)
}

func (e *encoder) attrTrue(key string) int32 {
	b := appendVarintField(e.scratch[:0], 1, uint64(e.str(key)))
	b = append(b, 0x12, 2, 0x10, 1) // value: AnyValue{bool_value: true}
	e.scratch = b
	return e.attr(b)
}

func (e *encoder) attrModel(a model.Attribute) int32 {
	b := appendVarintField(e.scratch[:0], 1, uint64(e.str(a.Key)))
	b, s := begin(b, 2)
	b = e.appendAnyValue(b, a.Value)
	b = end(b, s)
	if a.Unit != "" {
		b = appendVarintField(b, 3, uint64(e.str(a.Unit)))
	}
	e.scratch = b
	return e.attr(b)
}

// layoutAttributes builds the attribute table: labels of the label sets
// samples use (a key with several values in one set becomes one array
// attribute), mapping, location and profile attributes. The table is then
// sorted by its encoded entries (so by key, then value): in a heap profile
// the numeric "bytes" values come out in increasing order, which gzip likes.
func (e *encoder) layoutAttributes() {
	e.mapAttrs = grow(e.mapAttrs, len(e.maps))
	for k, r := range e.maps {
		p := e.ps[r.p]
		m := &p.Mappings[r.i]
		as := e.mapAttrs[k][:0]
		if m.BuildID != 0 {
			key := AttrBuildIDGNU
			if m.BuildIDKind == 1 {
				key = AttrBuildIDHTL
			}
			as = append(as, e.attrString(key, p.Strings[m.BuildID]))
		}
		// Each flag that is true, as the semantic conventions write it
		// (absent reads false).
		if m.HasFunctions {
			as = append(as, e.attrTrue(AttrHasFunctions))
		}
		if m.HasFilenames {
			as = append(as, e.attrTrue(AttrHasFilenames))
		}
		if m.HasLineNumbers {
			as = append(as, e.attrTrue(AttrHasLineNumbers))
		}
		if m.HasInlineFrames {
			as = append(as, e.attrTrue(AttrHasInlineFrames))
		}
		for _, a := range m.Attributes {
			if e.mappingFieldKey(m, a.Key) {
				e.warn("otlp: mapping attributes whose keys the mapping's own fields write (build id, pprof.mapping.*) were dropped")
				continue
			}
			as = append(as, e.attrModel(a))
		}
		e.mapAttrs[k] = as
	}
	e.locAttrs.reset(e.locs.len())
	for k := range e.locs.len() {
		r := e.locs.at(k)
		l := &e.ps[r.p].Locations[r.i]
		if l.IsFolded {
			e.locAttrs.add(e.attrTrue(AttrIsFolded))
		}
		for _, a := range e.ps[r.p].LocationAttrs(int(r.i)) {
			if a.Key == AttrIsFolded {
				e.warn("otlp: location attributes named pprof.location.is_folded (which the location's own field writes) were dropped")
				continue
			}
			e.locAttrs.add(e.attrModel(a))
		}
		e.locAttrs.next()
	}
	for pi, p := range e.ps {
		as := e.profAttrs[pi][:0]
		for _, a := range p.Attributes {
			if a.Key == AttrDocURL && p.DocURL != 0 {
				continue // written from DocURL
			}
			as = append(as, e.attrModel(a))
		}
		if len(p.Comments) > 0 {
			v := model.Value{Kind: model.KindArray, Array: make([]model.Value, len(p.Comments))}
			for i, c := range p.Comments {
				v.Array[i] = model.Value{Kind: model.KindString, Str: p.String(c)}
			}
			as = append(as, e.attrModel(model.Attribute{Key: AttrComment, Value: v}))
		}
		if p.DropFrames != 0 {
			as = append(as, e.attrString(AttrDropFrames, p.String(p.DropFrames)))
		}
		if p.KeepFrames != 0 {
			as = append(as, e.attrString(AttrKeepFrames, p.String(p.KeepFrames)))
		}
		if p.DocURL != 0 {
			as = append(as, e.attrString(AttrDocURL, p.String(p.DocURL)))
		}
		if len(e.ps) > 1 {
			// Several profiles share the mapping table: say which are
			// this one's, in its order (pprof keeps mappings no location
			// uses, and compares the table). A profile with none lists
			// none: without the list a reader takes every mapping.
			v := model.Value{Kind: model.KindArray, Array: make([]model.Value, len(p.Mappings))}
			for i := range p.Mappings {
				v.Array[i] = model.Value{Kind: model.KindInt, Int: int64(e.mmap[pi][i])}
			}
			as = append(as, e.attrModel(model.Attribute{Key: AttrMappings, Value: v}))
		}
		e.profAttrs[pi] = as

		// Label sets that samples use, in one array (a perf script's
		// samples each have a set of their own).
		used := resize(e.done, len(p.LabelSets))
		clear(used)
		e.done = used
		for si := range p.Samples {
			used[p.Samples[si].LabelSet] = true
		}
		used[0] = false
		sets := &e.lsAttrs[pi]
		sets.reset(len(p.LabelSets))
		for ls := range p.LabelSets {
			if used[ls] {
				sets.vals = e.labelAttrs(pi, p.LabelSets[ls].Labels(), sets.vals)
				for _, a := range p.LabelSets[ls].Attributes() {
					sets.add(e.attrModel(a))
				}
			}
			sets.next()
		}
	}

	// Sort the table by its encoded entries.
	perm := resize(e.perm, len(e.attrs))
	defer func() { e.perm = keep(perm) }()
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(a, b int32) int { return strings.Compare(e.attrs[a], e.attrs[b]) })
	e.aperm = resize(e.aperm, len(perm))
	for k, i := range perm {
		e.aperm[i] = int32(k + 1)
	}
	sorted := resize(e.sorted, len(perm))
	defer func() { clear(sorted); e.sorted = keep(sorted) }()
	for k, i := range perm {
		sorted[k] = e.attrs[i]
	}
	copy(e.attrs, sorted)
	remap := func(as []int32) {
		for i, a := range as {
			as[i] = e.aperm[a]
		}
	}
	for _, as := range e.mapAttrs {
		remap(as)
	}
	remap(e.locAttrs.vals)
	for pi := range e.ps {
		remap(e.profAttrs[pi])
		remap(e.lsAttrs[pi].vals)
	}
}

// mappingFieldKey reports whether an attribute key of m is one the
// writer writes from m's fields: the key of its build id, and the has_*
// flags.
func (e *encoder) mappingFieldKey(m *model.Mapping, key string) bool {
	switch key {
	case AttrHasFunctions, AttrHasFilenames, AttrHasLineNumbers, AttrHasInlineFrames:
		return true
	case AttrBuildIDGNU:
		return m.BuildID != 0 && m.BuildIDKind != 1
	case AttrBuildIDHTL:
		return m.BuildID != 0 && m.BuildIDKind == 1
	}
	return false
}

// appendAttrsKey appends what identifies a list of attributes.
func appendAttrsKey(k []byte, as []model.Attribute) []byte {
	if len(as) == 0 {
		return append(k, 0)
	}
	return fmt.Appendf(append(k, 1), "%#v", as)
}

// labelAttrs appends the attribute indices of a label set to out: one
// attribute per key, in order of the key's first label; a key with several
// labels gets an array value.
func (e *encoder) labelAttrs(pi int, labels []model.Label, out []int32) []int32 {
	p := e.ps[pi]
	sm := e.smap[pi]
	for j, l := range labels {
		dup := false
		for _, m := range labels[:j] {
			if m.Key == l.Key {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		n := 0
		for _, m := range labels[j:] {
			if m.Key == l.Key {
				n++
			}
		}
		ki := sm[l.Key]
		if k, ok := e.thread.renamed(p.String(l.Key)); ok {
			ki = e.str(k)
		}
		b := appendVarintField(e.scratch[:0], 1, uint64(ki))
		b, s := begin(b, 2)
		unit := l.NumUnit
		if n == 1 {
			b = appendLabelValue(b, p, l)
		} else {
			var arr, el int
			b, arr = begin(b, 5)
			for _, m := range labels[j:] {
				if m.Key != l.Key {
					continue
				}
				if m.IsNumeric() && m.NumUnit != 0 {
					if unit != 0 && unit != m.NumUnit {
						e.warn("otlp: a label key with several numeric values in different units got the first one's unit")
					}
					if unit == 0 || !l.IsNumeric() {
						unit = m.NumUnit
					}
				}
				b, el = begin(b, 1)
				b = appendLabelValue(b, p, m)
				b = end(b, el)
			}
			b = end(b, arr)
		}
		b = end(b, s)
		b = appendVarintField(b, 3, uint64(sm[unit]))
		e.scratch = b
		out = append(out, e.attr(b))
	}
	return out
}

// appendLabelValue appends the body of the AnyValue of a label.
func appendLabelValue(b []byte, p *model.Profile, l model.Label) []byte {
	if l.IsNumeric() {
		b = appendTag(b, 3, protowire.VarintType)
		return appendVarint(b, uint64(l.Num))
	}
	b = appendTag(b, 1, protowire.BytesType)
	return protowire.AppendString(b, strings.ToValidUTF8(p.Strings[l.Str], "\uFFFD"))
}

// indexSets is a list of sets of indices (a location's attribute
// indices) as one array of the sets' indices back to back and the offset
// each set ends at: 4 bytes a set beside its indices, where a slice of
// its own takes 24, for a table of millions of locations that mostly
// have none.
type indexSets struct {
	vals []int32
	end  []uint32 // set k is vals[end[k-1]:end[k]], from 0 for k == 0
}

// reset empties s for n sets, added in order with add and next.
func (s *indexSets) reset(n int) {
	s.vals = s.vals[:0]
	s.end = slices.Grow(s.end[:0], n)
}

// add adds x to the set being made.
func (s *indexSets) add(x int32) { s.vals = append(s.vals, x) }

// next ends the set being made.
func (s *indexSets) next() { s.end = append(s.end, uint32(len(s.vals))) }

// at returns set k.
func (s *indexSets) at(k int) []int32 {
	start := uint32(0)
	if k > 0 {
		start = s.end[k-1]
	}
	return s.vals[start:s.end[k]]
}
