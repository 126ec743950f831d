// Package callstacks turns a profile's samples into what every stack view
// shows (folded stacks, speedscope, the HTML flame graph): root-first
// stacks of frame names, identical ones summed. It is a helper of those
// codecs, not a codec: it reads a model.Profile and returns plain tables.
package callstacks

import (
	"fmt"
	"hash/maphash"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pprofx/pprofx/internal/hashindex"
	"github.com/pprofx/pprofx/internal/model"
)

// Options control how frames are named.
type Options struct {
	// Lines names a frame "function file:line" instead of "function".
	Lines bool
	// Rename, when set, is applied to every frame name (a format's
	// escaping); names it makes equal are merged.
	Rename func(string) string
	// FuncName, when set, names a function from its name and system name
	// (both non-empty or the name empty); default: the name, else the
	// system name.
	FuncName func(name, systemName string) string
	// Suffix, when set, returns what is appended to the name of line k
	// (innermost first) of a location (async-profiler's frame types).
	Suffix func(p *model.Profile, loc int32, k int) string
}

// Set is a profile's stacks of frame names, aggregated.
type Set struct {
	// The distinct frame names, sorted (Name): a name that is one of the
	// model's strings is its index there (4 bytes, where a string header
	// takes 16), another is built[-1-ref].
	p     *model.Profile
	refs  []int32
	built []string
	// The stacks, in the order they were found: stack j is
	// frames[offsets[j]:offsets[j+1]]; order lists them sorted.
	frames, offsets, order []int32
	// Values[t][i] is stack i's total for the t-th requested sample type.
	Values [][]int64
	// Types are the sample type indices (of the profile) Values holds.
	Types []int
}

// Len returns the number of stacks.
func (s *Set) Len() int { return len(s.order) }

// NumNames returns the number of distinct frame names.
func (s *Set) NumNames() int { return len(s.refs) }

// Name returns frame name i; names are sorted.
func (s *Set) Name(i int32) string { return nameOf(s.p, s.refs, s.built, i) }

func nameOf(p *model.Profile, refs []int32, built []string, i int32) string {
	if r := refs[i]; r >= 0 {
		return p.String(r)
	}
	return built[-1-refs[i]]
}

// Stack returns stack i, root first, as name indices (Name). Stacks are
// distinct and sorted frame by frame (so by name), which puts every
// subtree of the call tree in one run.
func (s *Set) Stack(i int) []int32 {
	j := s.order[i]
	return s.frames[s.offsets[j]:s.offsets[j+1]]
}

// Total returns the sum of the t-th type's values.
func (s *Set) Total(t int) int64 {
	var sum int64
	for _, v := range s.Values[t] {
		sum += v
	}
	return sum
}

// SampleIndex picks a sample type of p the way pprof's -sample_index does:
// "" is the default sample type, else the last; otherwise a type name
// ("inuse_space"), a type/unit pair ("cpu/nanoseconds") or an index.
func SampleIndex(p *model.Profile, name string) (int, error) {
	n := len(p.SampleTypes)
	if n == 0 {
		return 0, fmt.Errorf("the profile has no sample types")
	}
	if name == "" {
		if p.DefaultSampleType != 0 {
			dst := p.String(p.DefaultSampleType)
			for i, st := range p.SampleTypes {
				if p.String(st.Type) == dst {
					return i, nil
				}
			}
		}
		return n - 1, nil
	}
	for i, st := range p.SampleTypes {
		if t := p.String(st.Type); t == name || t+"/"+p.String(st.Unit) == name {
			return i, nil
		}
	}
	if i, err := strconv.Atoi(name); err == nil && i >= 0 && i < n {
		return i, nil
	}
	return 0, fmt.Errorf("--sample-type %q: the profile has %s", name, strings.Join(TypeNames(p), ", "))
}

// TypeNames lists p's sample types as "type/unit".
func TypeNames(p *model.Profile) []string {
	var out []string
	for _, st := range p.SampleTypes {
		out = append(out, p.String(st.Type)+"/"+p.String(st.Unit))
	}
	return out
}

// Aggregate sums p's samples by their stacks of frame names for the sample
// types types (indices into p.SampleTypes). Inline frames are expanded,
// outermost caller first. Stacks whose values are all zero are left out.
func Aggregate(p *model.Profile, types []int, opts Options) *Set {
	nt := len(types)
	nstacks := p.Stacks.Len()
	// Sum by the model's own stacks first: few string keys to build.
	sums := make([]int64, nstacks*nt)
	used := make([]bool, nstacks)
	for _, s := range p.Samples {
		if s.Stack < 0 || int(s.Stack) >= nstacks {
			continue
		}
		row := sums[int(s.Stack)*nt : int(s.Stack)*nt+nt]
		for t, ti := range types {
			if ti < len(s.Values()) {
				row[t] += s.Values()[ti]
			}
		}
		used[s.Stack] = true
	}

	// Room for every frame once (inline frames may add more), made at once:
	// grown by append, the frames of millions of stacks are copied again
	// and again, each copy 1.25 times the last.
	nused, nframes := 0, 0
	for si := 0; si < nstacks; si++ {
		if used[si] {
			nused++
			nframes += p.Stacks.StackLen(si)
		}
	}
	nm := newNamer(p, opts, used)
	var (
		// Stacks of names are found by a hash of their names; stacks of
		// one hash are chained (chain[id]: the one before, or -1).
		seed    = maphash.MakeSeed()
		byHash  = make(map[uint64]int32, nused)
		chain   = make([]int32, 0, nused)
		frames  = make([]int32, 0, nframes)
		offsets = make([]int32, 1, nused+1)
		values  = make([]int64, 0, nused*nt)
	)
	for si := 0; si < nstacks; si++ {
		if !used[si] {
			continue
		}
		row := sums[si*nt : si*nt+nt]
		zero := true
		for _, v := range row {
			if v != 0 {
				zero = false
			}
		}
		if zero {
			continue
		}
		// The stack's names go where a new stack's would, read from the
		// model's stack in place, and are taken back when the stack was
		// seen: a stack of millions of frames is held once more, not
		// three times (a copy of its frames, its names, a key of them).
		start := len(frames)
		for j := p.Stacks.StackLen(si) - 1; j >= 0; j-- {
			names := nm.location(p.Stacks.Frame(si, j))
			for k := len(names) - 1; k >= 0; k-- {
				frames = append(frames, names[k])
			}
		}
		seq := frames[start:]
		h := model.HashFrames(seed, seq)
		id := int32(-1)
		head, seen := byHash[h]
		if seen {
			for c := head; c >= 0; c = chain[c] {
				if slices.Equal(frames[offsets[c]:offsets[c+1]], seq) {
					id = c
					break
				}
			}
		}
		if id < 0 {
			id = int32(len(offsets) - 1)
			if !seen {
				head = -1
			}
			chain = append(chain, head)
			byHash[h] = id
			offsets = append(offsets, int32(len(frames)))
			values = append(values, row...)
		} else {
			frames = frames[:start]
			for t, v := range row {
				values[int(id)*nt+t] += v
			}
		}
	}
	byHash, chain = nil, nil
	refs, built := nm.refs, nm.built
	nm = nil // its index of the names and its spans of them

	// Names sorted; stacks renumbered and sorted by them.
	order := make([]int32, len(refs))
	for i := range order {
		order[i] = int32(i)
	}
	// A comparison through the references reads the model's string table
	// at random: up to 64k names are sorted from a table of their strings
	// made for the sort (10 to 25% faster, BenchmarkAggregate); more are
	// sorted through the references, since that table, made as the index
	// of the names and the locations' spans become garbage, took the run
	// of the 1M-entry bundle's stacks 6 MiB past its bound.
	if len(refs) <= 1<<16 {
		byName := make([]string, len(refs))
		for i := range byName {
			byName[i] = nameOf(p, refs, built, int32(i))
		}
		slices.SortFunc(order, func(a, b int32) int { return strings.Compare(byName[a], byName[b]) })
	} else {
		strs := p.Strings
		name := func(i int32) string {
			if r := refs[i]; r >= 0 {
				return strs[r]
			}
			return built[-1-refs[i]]
		}
		slices.SortFunc(order, func(a, b int32) int { return strings.Compare(name(a), name(b)) })
	}
	remap := order // order[newID] = old becomes remap[old] = newID, in place
	invert(remap)
	for i, f := range frames {
		frames[i] = remap[f]
	}
	sortByRemap(refs, remap) // remap is used up
	n := len(offsets) - 1
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	get := func(i int32) []int32 { return frames[offsets[i]:offsets[i+1]] }
	slices.SortFunc(idx, func(a, b int32) int { return slices.Compare(get(a), get(b)) })

	// The frames stay where they are (a copy in sorted order would hold
	// them twice): the set lists the stacks in sorted order.
	out := &Set{p: p, refs: refs, built: built, Types: append([]int(nil), types...), frames: frames, offsets: offsets,
		order: idx, Values: make([][]int64, nt)}
	for t := range out.Values {
		out.Values[t] = make([]int64, n)
	}
	for k, i := range idx {
		for t := 0; t < nt; t++ {
			out.Values[t][k] = values[int(i)*nt+t]
		}
	}
	return out
}

// invert replaces the permutation p of 0 to len(p)-1 by its inverse, in
// place: it follows each cycle, marking the entries done by their sign
// (p[i] = -1 - v), which it then restores.
func invert(p []int32) {
	for i := range p {
		if p[i] < 0 {
			continue
		}
		// On the cycle i -> p[i] -> ..., set p[p[j]] = j.
		prev, j := int32(i), p[i]
		for j >= 0 {
			next := p[j]
			p[j] = -1 - prev
			prev, j = j, next
		}
	}
	for i, v := range p {
		p[i] = -1 - v
	}
}

// sortByRemap moves names[i] to names[to[i]], for to a permutation of 0 to
// len(names)-1, in place; to ends as the identity.
func sortByRemap(names []int32, to []int32) {
	for i := range names {
		for int(to[i]) != i {
			k := to[i]
			names[i], names[k] = names[k], names[i]
			to[i], to[k] = to[k], to[i]
		}
	}
}

// namer names the frames of locations, each name interned once. A
// profile may hold millions of locations: a location's name is a number
// (or its names a span of one array), and the names are found by an index
// of their numbers, not kept again as the keys of a map.
type namer struct {
	p    *model.Profile
	opts Options
	// The names, by number: name v is the model's string refs[v] when
	// that is 0 or more, else built[-1-refs[v]] (a name made of more than
	// a function's name). 4 bytes a name where a string header took 16.
	refs  []int32
	built []string
	idx   hashindex.Index // of names
	seed  maphash.Seed
	// The names of location li, innermost first: span[li] is 0 until it
	// is named, v+1 when it has the one name v (most locations: 4 bytes
	// each), and -1-i for the names all[multi[i]>>32:][:multi[i]&0xffffffff]
	// of a location of none or several.
	span  []int32
	multi []uint64
	all   []int32
	one   [1]int32 // location's result for a location of one name
	buf   []string // frameNames' output, used again
	bufs  []int32  // and the model strings its names are, or -1
}

// newNamer returns a namer of p's locations, with room made at once for
// the names of those the used stacks reach: grown by append, the names of
// a million functions were copied again and again, each copy 1.25 times
// the last, and their index doubled as often.
func newNamer(p *model.Profile, opts Options, used []bool) *namer {
	n := &namer{p: p, opts: opts, seed: maphash.MakeSeed(), span: make([]int32, len(p.Locations))}
	reached := make([]bool, len(p.Locations))
	for si, u := range used {
		if !u {
			continue
		}
		for j := range p.Stacks.StackLen(si) {
			if li := p.Stacks.Frame(si, j); li >= 0 && int(li) < len(reached) {
				reached[li] = true
			}
		}
	}
	// A location has a name for each line of a function (frameNames), or
	// its address; without lines or suffixes, a function has one name.
	// Only the names of locations of several go to all.
	frames, addrs, several := 0, 0, 0
	for li, r := range reached {
		if !r {
			continue
		}
		k := 0
		for _, ln := range p.LinesOf(&p.Locations[li]) {
			if ln.Function >= 0 && int(ln.Function) < len(p.Functions) {
				k++
			}
		}
		if k == 0 {
			k, addrs = 1, addrs+1
		}
		frames += k
		if k > 1 {
			several += k
		}
	}
	names := frames
	if !opts.Lines && opts.Suffix == nil {
		names = min(names, len(p.Functions)+addrs)
	}
	n.all = make([]int32, 0, several)
	n.refs = make([]int32, 0, names+1) // and "[bad location]"
	n.idx.Reserve(names + 1)
	return n
}

// name returns name v.
func (n *namer) name(v int32) string { return nameOf(n.p, n.refs, n.built, v) }

// intern returns the number of name s, which is the model's string ref
// when ref is 0 or more.
func (n *namer) intern(s string, ref int32) int32 {
	if n.opts.Rename != nil {
		if r := n.opts.Rename(s); r != s {
			s, ref = r, -1
		}
	}
	v, slot, ok := n.idx.Find(maphash.String(n.seed, s), func(v uint32) bool { return n.name(int32(v)) == s })
	if !ok {
		v = uint32(len(n.refs))
		if ref < 0 {
			ref = -1 - int32(len(n.built))
			n.built = append(n.built, s)
		}
		n.refs = append(n.refs, ref)
		n.idx.Add(slot, v, n.hash)
	}
	return int32(v)
}

func (n *namer) hash(v uint32) uint64 { return maphash.String(n.seed, n.name(int32(v))) }

// location returns the frame names of location li, innermost first. The
// slice is valid until the next call.
func (n *namer) location(li int32) []int32 {
	if li < 0 || int(li) >= len(n.span) {
		return []int32{n.intern("[bad location]", -1)}
	}
	switch sp := n.span[li]; {
	case sp > 0:
		n.one[0] = sp - 1
		return n.one[:]
	case sp < 0:
		m := n.multi[-1-sp]
		start := m >> 32
		return n.all[start : start+m&0xffffffff]
	}
	n.buf, n.bufs = frameNames(n.buf[:0], n.bufs[:0], n.p, li, n.opts.Lines, n.opts.FuncName, n.opts.Suffix)
	if len(n.buf) == 1 {
		n.one[0] = n.intern(n.buf[0], n.bufs[0])
		n.span[li] = n.one[0] + 1
		return n.one[:]
	}
	start := len(n.all)
	for i, s := range n.buf {
		n.all = append(n.all, n.intern(s, n.bufs[i]))
	}
	n.multi = append(n.multi, uint64(start)<<32|uint64(len(n.all)-start))
	n.span[li] = int32(-len(n.multi))
	return n.all[start:]
}

// FrameNames names the frames of location li, innermost first: one per
// line (inlined functions expanded), "function" or, with lines,
// "function file:line" (as pprof -traces -lines prints it); a location without a named function is its
// address with the base name of its mapping, "0x4011a6 [burn]".
func FrameNames(p *model.Profile, li int32, lines bool) []string {
	names, _ := frameNames(nil, nil, p, li, lines, nil, nil)
	return names
}

// frameNames appends the names FrameNames returns to out and, for each,
// to refs the model string it is, or -1 for a name made of more.
func frameNames(out []string, refs []int32, p *model.Profile, li int32, lines bool, funcName func(string, string) string, suffix func(*model.Profile, int32, int) string) ([]string, []int32) {
	loc := &p.Locations[li]
	n0 := len(out)
	for k, ln := range p.LinesOf(loc) {
		if ln.Function < 0 || int(ln.Function) >= len(p.Functions) {
			continue
		}
		fn := &p.Functions[ln.Function]
		name, ref := p.String(fn.Name), fn.Name
		if funcName != nil {
			sys := p.String(fn.SystemName)
			switch name = funcName(name, sys); name {
			case p.String(fn.Name):
			case sys:
				ref = fn.SystemName
			default:
				ref = -1
			}
		} else if name == "" {
			name, ref = p.String(fn.SystemName), fn.SystemName
		}
		if name == "" {
			continue
		}
		if lines {
			// As pprof -lines prints it: the file cleaned, no ":0".
			file := p.String(fn.Filename)
			if file != "" {
				file = filepath.Clean(file)
			}
			switch {
			case ln.Line != 0:
				name, ref = name+" "+file+":"+strconv.FormatInt(ln.Line, 10), -1
			case file != "":
				name, ref = name+" "+file, -1
			}
		}
		if suffix != nil {
			if x := suffix(p, li, k); x != "" {
				name, ref = name+x, -1
			}
		}
		out, refs = append(out, name), append(refs, ref)
	}
	if len(out) == n0 {
		out, refs = append(out, AddressName(p, loc)), append(refs, -1)
	}
	return out, refs
}

// AddressName names an unsymbolized location: "0x4011a6 [burn]", or
// "0x4011a6" without a named mapping.
func AddressName(p *model.Profile, loc *model.Location) string {
	s := "0x" + strconv.FormatUint(loc.Address, 16)
	if m := MappingName(p, loc); m != "" {
		s += " [" + m + "]"
	}
	return s
}

// MappingName is the base name of a location's mapping file, or "".
func MappingName(p *model.Profile, loc *model.Location) string {
	if loc.Mapping < 0 || int(loc.Mapping) >= len(p.Mappings) {
		return ""
	}
	f := p.String(p.Mappings[loc.Mapping].File)
	if f == "" {
		return ""
	}
	return path.Base(f)
}
