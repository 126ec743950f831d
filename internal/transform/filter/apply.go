package filter

import (
	"encoding/binary"
	"regexp"
	"slices"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
)

// stacks is the profile's stack table while filters work on it: each
// stack's frames (aliasing the table until a filter changes them) and
// whether filters dropped the stack, with the samples on it.
type stacks struct {
	frames  [][]int32
	dropped []bool
	changed bool
}

func newStacks(p *model.Profile) *stacks {
	n := p.Stacks.Len()
	st := &stacks{frames: make([][]int32, n), dropped: make([]bool, n)}
	// One copy of every frame, which set replaces stack by stack.
	all := make([]int32, 0, p.Stacks.NumFrames())
	for i := range n {
		lo := len(all)
		all = p.Stacks.Append(all, i)
		st.frames[i] = all[lo:len(all):len(all)]
	}
	return st
}

// set replaces stack i's frames; an empty stack is dropped.
func (st *stacks) set(i int, frames []int32) {
	st.changed = true
	if len(frames) == 0 {
		st.dropped[i] = true
		return
	}
	st.frames[i] = frames
}

func (st *stacks) drop(i int) {
	st.changed = true
	st.dropped[i] = true
}

// finish removes the samples of dropped stacks and, when stacks changed,
// rebuilds the stack table: distinct stacks, those samples use, in the
// order samples first use them.
func (st *stacks) finish(p *model.Profile) {
	if !st.changed {
		return
	}
	st.removeDropped(p)
	var out model.Stacks
	remap := make([]int32, len(st.frames))
	for i := range remap {
		remap[i] = -1
	}
	index := map[string]int32{}
	var key []byte
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Stack < 0 || int(s.Stack) >= len(remap) {
			continue
		}
		if r := remap[s.Stack]; r >= 0 {
			s.Stack = r
			continue
		}
		fr := st.frames[s.Stack]
		key = key[:0]
		for _, f := range fr {
			key = binary.AppendVarint(key, int64(f))
		}
		r, ok := index[string(key)]
		if !ok {
			r = out.Add(fr)
			index[string(key)] = r
		}
		remap[s.Stack] = r
		s.Stack = r
	}
	p.Stacks = out
}

// removeDropped removes the samples whose stacks were dropped.
func (st *stacks) removeDropped(p *model.Profile) {
	keep := p.Samples[:0]
	for _, s := range p.Samples {
		if s.Stack >= 0 && int(s.Stack) < len(st.dropped) && st.dropped[s.Stack] {
			continue
		}
		keep = append(keep, s)
	}
	clear(p.Samples[len(keep):])
	p.Samples = keep
}

// matchesName: any line's function name or file name, or the mapping's
// file, matches (pprof's Location.matchesName).
func matchesName(p *model.Profile, l *model.Location, re *regexp.Regexp) bool {
	for _, ln := range p.LinesOf(l) {
		if fn := function(p, ln); fn != nil && (re.MatchString(p.String(fn.Name)) || re.MatchString(p.String(fn.Filename))) {
			return true
		}
	}
	return mappingMatches(p, l, re)
}

func function(p *model.Profile, ln model.Line) *model.Function {
	if ln.Function < 0 || int(ln.Function) >= len(p.Functions) {
		return nil
	}
	return &p.Functions[ln.Function]
}

func mappingMatches(p *model.Profile, l *model.Location, re *regexp.Regexp) bool {
	return l.Mapping >= 0 && int(l.Mapping) < len(p.Mappings) && re.MatchString(p.String(p.Mappings[l.Mapping].File))
}

// lineMatches: the line has a function whose name or file matches.
func lineMatches(p *model.Profile, ln model.Line, re *regexp.Regexp) bool {
	fn := function(p, ln)
	return fn != nil && (re.MatchString(p.String(fn.Name)) || re.MatchString(p.String(fn.Filename)))
}

// byName is pprof's FilterSamplesByName.
func (f *Filter) byName(p *model.Profile, st *stacks) (fm, im, hm, hnm bool) {
	const (
		focused = 1
		ignored = 2
	)
	mark := make([]uint8, len(p.Locations))
	hidden := make([]bool, len(p.Locations))
	anyHidden := false
	var ed lineEdits
	ed.start(p)
	for i := range p.Locations {
		l := &p.Locations[i]
		if f.ignore != nil && matchesName(p, l, f.ignore) {
			im = true
			mark[i] = ignored
		} else if f.focus == nil || matchesName(p, l, f.focus) {
			fm = true
			mark[i] = focused
		}
		if f.hide == nil && f.show == nil {
			continue
		}
		// Hide, then show, each keep some of the location's lines: what
		// both keep is what it keeps.
		lines := p.LinesOf(l)
		keep := ed.keepAll(len(lines))
		n, changed := len(lines), false
		if f.hide != nil && matchesName(p, l, f.hide) {
			hm, changed = true, true
			hideMapping := mappingMatches(p, l, f.hide)
			for j, ln := range lines {
				if hideMapping || lineMatches(p, ln, f.hide) {
					keep[j] = false
					n--
				}
			}
			if n == 0 {
				hidden[i], anyHidden = true, true
			}
		}
		if f.show != nil {
			if !mappingMatches(p, l, f.show) {
				changed = true
				for j, ln := range lines {
					// A line without a function stays, as in pprof.
					if keep[j] && function(p, ln) != nil && !lineMatches(p, ln, f.show) {
						keep[j] = false
						n--
					}
				}
			}
			if n == 0 {
				hidden[i], anyHidden = true, true
			} else {
				hnm = true
			}
		}
		if changed {
			ed.keep(p, l, lines, keep, n)
		}
	}
	ed.finish(p)
	for i, fr := range st.frames {
		if st.dropped[i] {
			continue
		}
		keep := false
		for _, loc := range fr {
			m := markOf(mark, loc)
			if m == ignored {
				keep = false
				break
			}
			if m == focused {
				keep = true
			}
		}
		if !keep {
			st.drop(i)
			continue
		}
		if anyHidden && slices.ContainsFunc(fr, func(loc int32) bool { return hiddenOf(hidden, loc) }) {
			var out []int32
			for _, loc := range fr {
				if !hiddenOf(hidden, loc) {
					out = append(out, loc)
				}
			}
			st.set(i, out)
		}
	}
	return
}

// lineEdits gives locations some of their lines. Lines may be shared by
// locations and are never written: a location keeping one run of its
// lines has its range narrowed, one keeping others gets new lines, all
// added to the profile's table at once when the edits are done.
type lineEdits struct {
	base  int          // len(p.Lines) when the edits started
	extra []model.Line // the new lines, to be p.Lines[base:]
	cols  []int64      // their columns
	buf   []bool       // scratch
}

func (e *lineEdits) start(p *model.Profile) { e.base = len(p.Lines) }

// keepAll returns n trues, scratch until the next call.
func (e *lineEdits) keepAll(n int) []bool {
	if cap(e.buf) < n {
		e.buf = make([]bool, n)
	}
	k := e.buf[:n]
	for j := range k {
		k[j] = true
	}
	return k
}

// keep leaves l, whose lines are lines, the n of them keep says to keep.
func (e *lineEdits) keep(p *model.Profile, l *model.Location, lines []model.Line, keep []bool, n int) {
	if n == len(lines) {
		return
	}
	if n == 0 {
		l.FirstLine, l.NumLines = 0, 0
		return
	}
	first := 0
	for !keep[first] {
		first++
	}
	if first+n <= len(keep) && !slices.Contains(keep[first:first+n], false) {
		l.FirstLine += uint32(first)
		l.NumLines = uint32(n)
		return
	}
	old := *l
	l.FirstLine, l.NumLines = uint32(e.base+len(e.extra)), uint32(n)
	for j, ln := range lines {
		if keep[j] {
			e.extra = append(e.extra, ln)
			e.cols = append(e.cols, p.ColumnOf(&old, j))
		}
	}
}

// finish adds the new lines to p's table, which grows by them only.
func (e *lineEdits) finish(p *model.Profile) {
	if len(e.extra) == 0 {
		return
	}
	if cap(p.Lines)-len(p.Lines) < len(e.extra) {
		grown := make([]model.Line, len(p.Lines), len(p.Lines)+len(e.extra))
		copy(grown, p.Lines)
		p.Lines = grown
	}
	p.Lines = append(p.Lines, e.extra...)
	for j, c := range e.cols {
		p.SetColumn(uint32(e.base+j), c)
	}
	e.extra, e.cols = nil, nil
}

func markOf(mark []uint8, loc int32) uint8 {
	if loc < 0 || int(loc) >= len(mark) {
		return 0
	}
	return mark[loc]
}

func hiddenOf(hidden []bool, loc int32) bool {
	return loc >= 0 && int(loc) < len(hidden) && hidden[loc]
}

// showFromApply is pprof's ShowFrom: each location keeps its lines up to
// the last (outermost) matching one; each stack keeps its frames from the
// leaf up to the most rootward matching location, and a stack with none
// is dropped.
func (f *Filter) showFromApply(p *model.Profile, st *stacks) bool {
	matched := false
	locMatch := make([]bool, len(p.Locations))
	for i := range p.Locations {
		l := &p.Locations[i]
		if mappingMatches(p, l, f.showFrom) {
			locMatch[i], matched = true, true
			continue
		}
		lines := p.LinesOf(l)
		for j := len(lines) - 1; j >= 0; j-- {
			if lineMatches(p, lines[j], f.showFrom) {
				l.NumLines = uint32(j + 1)
				locMatch[i], matched = true, true
				break
			}
		}
	}
	for i, fr := range st.frames {
		if st.dropped[i] {
			continue
		}
		cut := -1
		for j := len(fr) - 1; j >= 0; j-- {
			if hiddenOf(locMatch, fr[j]) {
				cut = j
				break
			}
		}
		switch {
		case cut < 0:
			st.drop(i)
		case cut < len(fr)-1:
			st.set(i, fr[:cut+1])
		}
	}
	return matched
}

// bracketRx finds where a function name's argument list starts: the first
// "(" that does not begin one of the reserved names that hold one.
var (
	reservedNames = []string{"(anonymous namespace)", "operator()"}
	bracketRx     = regexp.MustCompile(regexp.QuoteMeta(reservedNames[0]) + "|" + regexp.QuoteMeta(reservedNames[1]) + `|\(`)
)

// simplifyFunc is the function name prune_from matches: without a
// leading "." (PPC64 ELF v1) and cut at its argument list.
func simplifyFunc(name string) string {
	name = strings.TrimPrefix(name, ".")
	for _, ix := range bracketRx.FindAllStringIndex(name, -1) {
		if !slices.Contains(reservedNames, name[ix[0]:ix[1]]) {
			return name[:ix[0]]
		}
	}
	return name
}

// pruneFromApply is pprof's PruneFrom: in each location, the lines inlined
// into the innermost matching function are removed, and each stack loses
// the frames leafward of its most leafward matching location. No sample
// is dropped.
func (f *Filter) pruneFromApply(p *model.Profile, st *stacks) {
	beneath := make([]bool, len(p.Locations))
	cache := map[int32]bool{}
	for i := range p.Locations {
		l := &p.Locations[i]
		for j, ln := range p.LinesOf(l) {
			fn := function(p, ln)
			if fn == nil || p.String(fn.Name) == "" {
				continue
			}
			m, ok := cache[fn.Name]
			if !ok {
				m = f.pruneFrom.MatchString(simplifyFunc(p.String(fn.Name)))
				cache[fn.Name] = m
			}
			if m {
				beneath[i] = true
				l.FirstLine += uint32(j)
				l.NumLines -= uint32(j)
				break
			}
		}
	}
	for i, fr := range st.frames {
		if st.dropped[i] {
			continue
		}
		for j, loc := range fr {
			if hiddenOf(beneath, loc) {
				if j > 0 {
					st.set(i, fr[j:])
				}
				break
			}
		}
	}
}

// labelsOf reads a label set as pprof reads a sample's labels.
func labelsOf(p *model.Profile, ls int32) *sampleLabels {
	out := &sampleLabels{}
	if ls < 0 || int(ls) >= len(p.LabelSets) {
		return out
	}
	for _, l := range p.LabelSets[ls].Labels() {
		switch {
		case l.Str != 0:
			out.str = append(out.str, strLabel{p.String(l.Key), p.String(l.Str)})
		case l.Num != 0 || l.NumUnit != 0:
			out.num = append(out.num, numLabel{p.String(l.Key), l.Num})
		}
	}
	return out
}

// numLabelUnits is pprof's Profile.NumLabelUnits: each numeric key's unit,
// the first one samples give it, else "bytes" for alignment and request,
// else the key itself.
func numLabelUnits(p *model.Profile) map[string]string {
	units := map[string]string{}
	keys := map[string]bool{}
	seen := map[int32]bool{}
	for _, s := range p.Samples {
		if seen[s.LabelSet] || s.LabelSet <= 0 || int(s.LabelSet) >= len(p.LabelSets) {
			continue
		}
		seen[s.LabelSet] = true
		for _, l := range p.LabelSets[s.LabelSet].Labels() {
			if l.Str != 0 || (l.Num == 0 && l.NumUnit == 0) {
				continue
			}
			k := p.String(l.Key)
			keys[k] = true
			if u := p.String(l.NumUnit); u != "" {
				if _, ok := units[k]; !ok {
					units[k] = u
				}
			}
		}
	}
	for k := range keys {
		if units[k] == "" {
			switch k {
			case "alignment", "request":
				units[k] = "bytes"
			default:
				units[k] = k
			}
		}
	}
	return units
}

// byTag is pprof's FilterSamplesByTag.
func (f *Filter) byTag(p *model.Profile, numUnits map[string]string) (fm, im bool) {
	type verdict struct{ focused, ignored bool }
	cache := map[int32]verdict{}
	keep := p.Samples[:0]
	for _, s := range p.Samples {
		v, ok := cache[s.LabelSet]
		if !ok {
			ls := labelsOf(p, s.LabelSet)
			v = verdict{focused: true}
			if f.tagFocus != nil {
				v.focused = f.tagFocus.match(ls, numUnits)
			}
			if f.tagIgnore != nil {
				v.ignored = f.tagIgnore.match(ls, numUnits)
			}
			cache[s.LabelSet] = v
		}
		fm = fm || v.focused
		im = im || v.ignored
		if v.focused && !v.ignored {
			keep = append(keep, s)
		}
	}
	clear(p.Samples[len(keep):])
	p.Samples = keep
	return
}
