package sum

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

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
	for i := range p.Samples {
		src := &p.Samples[i]
		vals := make([]int64, nt)
		nonzero, scaledNonzero := false, false
		for j, v := range src.Values {
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
		k := s.sampleKey(p, src.LabelSet, link)
		if len(src.Timestamps) == 0 {
			if at, ok := s.samples[string(k)]; ok {
				for c, v := range vals {
					out.Samples[at].Values[c] += v
				}
				continue
			}
			s.samples[string(k)] = int32(len(out.Samples))
		}
		// A sample with timestamps stays one of its own, so that its
		// times keep their values.
		out.Samples = append(out.Samples, model.Sample{Stack: s.b.Stack(s.frames), Values: vals,
			LabelSet: s.labelSet(p, src.LabelSet), Link: link, Timestamps: append([]uint64(nil), src.Timestamps...)})
	}
}

func fill(b []int32, n int) []int32 {
	b = b[:0]
	for range n {
		b = append(b, unmapped)
	}
	return b
}

// sampleKey is profile.Merge's: the sum's locations, then the labels by
// sorted key, string then numeric (with units); then the link.
func (s *summer) sampleKey(p *model.Profile, ls, link int32) []byte {
	k := s.key[:0]
	for _, f := range s.frames {
		k = binary.AppendUvarint(k, uint64(f)+1)
	}
	k = binary.AppendUvarint(k, 0)
	labels := p.LabelSets[ls].Labels
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
	k = model.AppendAttributesKey(k, p.LabelSets[ls].Attributes)
	k = binary.AppendVarint(k, int64(link))
	s.key = k
	return k
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func (s *summer) labelSet(p *model.Profile, ls int32) int32 {
	src := p.LabelSets[ls].Labels
	if len(src) == 0 && len(p.LabelSets[ls].Attributes) == 0 {
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
	return s.b.LabelSetWith(out, p.LabelSets[ls].Attributes)
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
	loc := model.Location{Address: uint64(int64(src.Address) + mi.offset), Mapping: mi.m, IsFolded: src.IsFolded,
		Lines: make([]model.Line, len(src.Lines))}
	attrs := p.LocationAttrs(int(li))
	for i, ln := range src.Lines {
		f := int32(model.NoFunction)
		if ln.Function != model.NoFunction {
			f = s.function(p, ln.Function)
		}
		loc.Lines[i] = model.Line{Function: f, Line: ln.Line, Column: ln.Column}
	}
	addr := loc.Address
	if mi.m != model.NoMapping {
		addr -= out.Mappings[mi.m].Start
	}
	k := binary.AppendUvarint(nil, addr)
	k = binary.AppendVarint(k, int64(mi.m))
	if loc.IsFolded {
		k = append(k, 1)
	} else {
		k = append(k, 0)
	}
	for _, ln := range loc.Lines {
		k = binary.AppendVarint(k, int64(ln.Function))
		k = binary.AppendVarint(k, ln.Line)
		k = binary.AppendVarint(k, ln.Column)
	}
	if len(attrs) > 0 {
		k = fmt.Appendf(k, "%v", attrs)
	}
	if i, ok := s.locations[string(k)]; ok {
		s.locIdx[li] = i
		return i
	}
	i := int32(len(out.Locations))
	out.Locations = append(out.Locations, loc)
	out.SetLocationAttrs(int(i), cloneAttrs(attrs))
	s.locations[string(k)] = i
	s.locIdx[li] = i
	return i
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

func (s *summer) function(p *model.Profile, fi int32) int32 {
	if i := s.funcIdx[fi]; i != unmapped {
		return i
	}
	src := &p.Functions[fi]
	k := functionKey{src.StartLine, p.String(src.Name), p.String(src.SystemName), p.String(src.Filename)}
	if i, ok := s.functions[k]; ok {
		s.funcIdx[fi] = i
		return i
	}
	out := s.b.P
	i := int32(len(out.Functions))
	out.Functions = append(out.Functions, model.Function{Name: s.b.String(k.name), SystemName: s.b.String(k.systemName),
		Filename: s.b.String(k.fileName), StartLine: k.startLine})
	s.functions[k] = i
	s.funcIdx[fi] = i
	return i
}

func cloneAttrs(a []model.Attribute) []model.Attribute {
	if len(a) == 0 {
		return nil
	}
	return append([]model.Attribute(nil), a...)
}
