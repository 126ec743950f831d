package sum

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"sort"

	"github.com/pprofx/pprofx/internal/hashindex"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/mergekey"
)

const unmapped = -2

// add adds p's samples; cols and ratios say where its sample types go and
// how their values scale.
func (s *summer) add(p *model.Profile, cols []int, ratios []float64) {
	s.mapIdx = make([]mapInfo, len(p.Mappings))
	s.funcIdx = fill(s.funcIdx, len(p.Functions))
	s.locIdx = fill(s.locIdx, len(p.Locations))
	out := s.b.P
	if len(out.Mappings) == 0 && len(p.Mappings) > 0 {
		// profile.Merge puts the first input's first mapping (the main
		// binary) first.
		s.mapping(p, 0)
	}
	scaled := false
	for _, r := range ratios {
		scaled = scaled || r != 1
	}
	nt := len(s.ty.names)
	if cap(s.vals) < nt {
		s.vals = make([]int64, nt)
	}
	vals := s.vals[:nt]
	// Samples with timestamps are each added as one of the sum's own: room
	// is made for them at once, as grown by append the samples would be
	// copied a quarter larger at a time, the old array and the new held
	// together each time.
	stamped := 0
	for i := range p.Samples {
		if len(p.Samples[i].Timestamps()) > 0 {
			stamped++
		}
	}
	if n := len(out.Samples) + stamped; n > cap(out.Samples) {
		g := make([]model.Sample, len(out.Samples), n)
		copy(g, out.Samples)
		out.Samples = g
	}
	for i := range p.Samples {
		src := &p.Samples[i]
		clear(vals)
		nonzero, scaledNonzero := false, false
		for j, v := range src.Values() {
			if j >= len(cols) {
				break
			}
			if ratios[j] != 1 {
				v = int64(math.Round(float64(v) * ratios[j]))
				scaledNonzero = scaledNonzero || v != 0
			}
			vals[cols[j]] += v
			nonzero = nonzero || v != 0
		}
		// pprof's ScaleN drops a sample whose scaled values are all zero
		// (its other values are not looked at); Merge drops a sample whose
		// values are all zero.
		if (scaled && !scaledNonzero) || !nonzero {
			continue
		}
		s.frames = p.Stacks.Append(s.frames[:0], int(src.Stack))
		for k, li := range s.frames {
			s.frames[k] = s.location(p, li)
		}
		link := int32(model.NoLink)
		if src.Link != model.NoLink {
			link = s.link(p.Links[src.Link])
		}
		// The sum's stack stands for the frames in the sample's key: a
		// stack of millions of frames is not copied into keys again.
		stack := s.b.Stack(s.frames)
		// A sample with timestamps stays one of its own, so that its
		// times keep their values.
		if len(src.Timestamps()) > 0 {
			s.addSample(p, src, stack, vals, link)
			continue
		}
		s.key = sampleKey(s.key[:0], p, stack, src.LabelSet, link)
		k := s.key
		at, slot, found := s.smps.Find(maphash.Bytes(s.seed, k), func(v uint32) bool { return bytes.Equal(s.sumSampleKey(v), k) })
		if found {
			for c, v := range vals {
				out.Samples[at].Values()[c] += v
			}
			continue
		}
		s.addSample(p, src, stack, vals, link)
		s.smps.Add(slot, uint32(len(out.Samples)-1), func(v uint32) uint64 { return maphash.Bytes(s.seed, s.sumSampleKey(v)) })
	}
}

// addSample adds a sample of the sum's stack stack to the sum.
func (s *summer) addSample(p *model.Profile, src *model.Sample, stack int32, vals []int64, link int32) {
	out := s.b.P
	var row []int64
	if len(src.Timestamps()) > 0 && slices.Equal(s.lastRow, vals) {
		row = s.lastRow
	} else {
		row = cut(&s.valSlab, vals)
	}
	s.lastRow = nil
	if len(src.Timestamps()) > 0 {
		s.lastRow = row
	}
	ns := model.NewSample(stack, row)
	ns.LabelSet, ns.Link = s.labelSet(p, src.LabelSet), link
	ns.SetTimestamps(cut(&s.tsSlab, src.Timestamps()))
	out.Samples = append(out.Samples, ns)
}

// cut returns a copy of v from the array at slab, making a new array when
// it is full.
func cut[E any](slab *[]E, v []E) []E {
	if len(v) == 0 {
		return nil
	}
	if cap(*slab)-len(*slab) < len(v) {
		*slab = make([]E, 0, max(4096, len(v)))
	}
	n := len(*slab)
	*slab = append(*slab, v...)
	return (*slab)[n:len(*slab):len(*slab)]
}

// sumSampleKey returns the key of the sum's sample v, made again.
func (s *summer) sumSampleKey(v uint32) []byte {
	out := s.b.P
	smp := &out.Samples[v]
	s.key2 = sampleKey(s.key2[:0], out, smp.Stack, smp.LabelSet, smp.Link)
	return s.key2
}

func fill(b []int32, n int) []int32 {
	b = b[:0]
	for range n {
		b = append(b, unmapped)
	}
	return b
}

// sampleKey appends to k profile.Merge's key of a sample of p: the sum's
// locations (its stack of them), then the labels of p's label set ls by sorted key,
// string then numeric (with units); then the link. The key of a sum's
// sample, made from the sum, is the key of the input samples added into
// it.
func sampleKey(k []byte, p *model.Profile, stack, ls, link int32) []byte {
	k = binary.AppendUvarint(k, uint64(stack))
	labels := p.LabelSets[ls].Labels()
	for _, numeric := range []bool{false, true} {
		var keys []string
		byKey := map[string][]model.Label{}
		for _, l := range labels {
			if l.IsNumeric() != numeric {
				continue
			}
			name := p.String(l.Key)
			if _, ok := byKey[name]; !ok {
				keys = append(keys, name)
			}
			byKey[name] = append(byKey[name], l)
		}
		sort.Strings(keys)
		for _, name := range keys {
			k = appendString(k, name)
			vs := byKey[name]
			k = binary.AppendUvarint(k, uint64(len(vs)))
			for _, l := range vs {
				if numeric {
					k = binary.AppendUvarint(k, uint64(l.Num))
					k = appendString(k, p.String(l.NumUnit))
				} else {
					k = appendString(k, p.String(l.Str))
				}
			}
		}
		k = binary.AppendUvarint(k, 0)
	}
	// Attributes pprof's labels cannot hold keep samples apart as labels
	// do (profile.Merge has none).
	k = model.AppendAttributesKey(k, p.LabelSets[ls].Attributes())
	return binary.AppendVarint(k, int64(link))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func (s *summer) labelSet(p *model.Profile, ls int32) int32 {
	src := p.LabelSets[ls].Labels()
	if len(src) == 0 && len(p.LabelSets[ls].Attributes()) == 0 {
		return 0
	}
	out := make([]model.Label, len(src))
	for i, l := range src {
		out[i] = model.Label{Key: s.b.String(p.String(l.Key)), Num: l.Num}
		if l.Str != 0 {
			out[i].Str = s.b.String(p.String(l.Str))
		}
		if l.NumUnit != 0 {
			out[i].NumUnit = s.b.String(p.String(l.NumUnit))
		}
	}
	return s.b.LabelSetWith(out, p.LabelSets[ls].Attributes())
}

func (s *summer) link(l model.Link) int32 {
	k := string(l.TraceID) + "\x00" + string(l.SpanID)
	if i, ok := s.links[k]; ok {
		return i
	}
	out := s.b.P
	i := int32(len(out.Links))
	out.Links = append(out.Links, model.Link{TraceID: append([]byte(nil), l.TraceID...), SpanID: append([]byte(nil), l.SpanID...)})
	s.links[k] = i
	return i
}

// location is profile.Merge's mapLocation: the address moved into the
// sum's mapping of the binary, lines' functions mapped, an equal location
// (address within the mapping, mapping, lines, folded, attributes)
// stored once.
func (s *summer) location(p *model.Profile, li int32) int32 {
	if i := s.locIdx[li]; i != unmapped {
		return i
	}
	src := &p.Locations[li]
	mi := mapInfo{m: model.NoMapping}
	if src.Mapping != model.NoMapping {
		mi = s.mapping(p, src.Mapping)
	}
	out := s.b.P
	loc := model.Location{Address: uint64(int64(src.Address) + mi.offset), Mapping: mi.m, IsFolded: src.IsFolded}
	attrs := p.LocationAttrs(int(li))
	lines, cols := s.lines[:0], s.cols[:0]
	for j, ln := range p.LinesOf(src) {
		f := int32(model.NoFunction)
		if ln.Function != model.NoFunction {
			f = s.function(p, ln.Function)
		}
		lines = append(lines, model.Line{Function: f, Line: ln.Line})
		cols = append(cols, p.ColumnOf(src, j))
	}
	s.lines, s.cols = lines, cols
	s.key = locationKey(s.key[:0], out, &loc, lines, cols, attrs)
	k := s.key
	i, slot, found := s.locations.Find(maphash.Bytes(s.seed, k), func(v uint32) bool { return bytes.Equal(s.sumLocationKey(v), k) })
	if !found {
		i = uint32(len(out.Locations))
		out.SetLines(&loc, lines...)
		for j, c := range cols {
			out.SetColumn(loc.FirstLine+uint32(j), c)
		}
		out.Locations = append(out.Locations, loc)
		out.SetLocationAttrs(int(i), cloneAttrs(attrs))
		s.locations.Add(slot, i, func(v uint32) uint64 { return maphash.Bytes(s.seed, s.sumLocationKey(v)) })
	}
	s.locIdx[li] = int32(i)
	return int32(i)
}

// locationKey appends to k profile.Merge's key of a location of the sum
// (its mapping the sum's, and its lines' functions): its address within
// its mapping, its mapping, whether it is folded, its lines (cols[j] the
// column of lines[j]), and the attributes pprof has no field for.
func locationKey(k []byte, out *model.Profile, loc *model.Location, lines []model.Line, cols []int64, attrs []model.Attribute) []byte {
	addr := loc.Address
	if loc.Mapping != model.NoMapping {
		addr -= out.Mappings[loc.Mapping].Start
	}
	k = binary.AppendUvarint(k, addr)
	k = binary.AppendVarint(k, int64(loc.Mapping))
	if loc.IsFolded {
		k = append(k, 1)
	} else {
		k = append(k, 0)
	}
	for j, ln := range lines {
		k = binary.AppendVarint(k, int64(ln.Function))
		k = binary.AppendVarint(k, ln.Line)
		k = binary.AppendVarint(k, cols[j])
	}
	if len(attrs) > 0 {
		k = fmt.Appendf(k, "%v", attrs)
	}
	return k
}

// sumLocationKey returns the key of the sum's location v, made again.
func (s *summer) sumLocationKey(v uint32) []byte {
	out := s.b.P
	loc := &out.Locations[v]
	lines := out.LinesOf(loc)
	cols := s.cols2[:0]
	for j := range lines {
		cols = append(cols, out.ColumnOf(loc, j))
	}
	s.cols2 = cols
	s.key2 = locationKey(s.key2[:0], out, loc, lines, cols, out.LocationAttrs(int(v)))
	return s.key2
}

// mapping is profile.Merge's mapMapping: a mapping of the same size
// (rounded up to 4 KiB), offset and build id (else file) as one the sum
// has is that one, the input's addresses moved by the difference.
func (s *summer) mapping(p *model.Profile, mi int32) mapInfo {
	if m := s.mapIdx[mi]; m.done {
		return m
	}
	src := &p.Mappings[mi]
	k := mergekey.MappingOf(src.Start, src.Limit, src.Offset, p.String(src.BuildID), p.String(src.File))
	out := s.b.P
	if i, ok := s.mappings[k]; ok {
		m := mapInfo{m: i, offset: int64(out.Mappings[i].Start) - int64(src.Start), done: true}
		s.mapIdx[mi] = m
		return m
	}
	i := int32(len(out.Mappings))
	m := *src
	m.File, m.BuildID = s.b.String(p.String(src.File)), s.b.String(p.String(src.BuildID))
	m.Attributes = cloneAttrs(src.Attributes)
	out.Mappings = append(out.Mappings, m)
	s.mappings[k] = i
	s.mapIdx[mi] = mapInfo{m: i, done: true}
	return s.mapIdx[mi]
}

// function returns the sum's function for p's function fi: one of the
// same name, system name, file name and start line, added when the sum
// has none (its strings are the sum's, each stored once).
func (s *summer) function(p *model.Profile, fi int32) int32 {
	if i := s.funcIdx[fi]; i != unmapped {
		return i
	}
	src := &p.Functions[fi]
	f := model.Function{Name: s.b.String(p.String(src.Name)), SystemName: s.b.String(p.String(src.SystemName)),
		Filename: s.b.String(p.String(src.Filename)), StartLine: src.StartLine}
	i, _ := hashindex.Intern(&s.functions, &s.b.P.Functions, func(f model.Function) uint64 { return maphash.Comparable(s.seed, f) }, f)
	s.funcIdx[fi] = int32(i)
	return int32(i)
}

func cloneAttrs(a []model.Attribute) []model.Attribute {
	if len(a) == 0 {
		return nil
	}
	return append([]model.Attribute(nil), a...)
}
