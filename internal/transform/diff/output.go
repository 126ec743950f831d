package diff

import (
	"encoding/binary"

	"github.com/pprofx/pprofx/internal/model"
)

// header is the merged profile's own fields, as profile.Merge combines
// them.
type header struct {
	types                    []valueType
	period                   valueType
	periodVal                int64
	timeNanos, durationNanos int64
	comments                 []string
	defaultType, docURL      string
	dropFrames, keepFrames   string
}

// combine is pprof's combineHeaders: NEW's types and frame filters, the
// earliest time, the durations summed, the largest period, the comments
// of both once each, the first default sample type and doc URL set.
func combine(ps []*side) (*header, error) {
	for _, s := range ps[1:] {
		if err := ps[0].compatible(s); err != nil {
			return nil, err
		}
	}
	first := ps[0].p
	h := &header{
		types:      ps[0].types,
		period:     ps[0].period,
		dropFrames: first.String(first.DropFrames),
		keepFrames: first.String(first.KeepFrames),
	}
	seen := map[string]bool{}
	for _, s := range ps {
		p := s.p
		if h.timeNanos == 0 || p.TimeNanos < h.timeNanos {
			h.timeNanos = p.TimeNanos
		}
		h.durationNanos += p.DurationNanos
		if h.periodVal == 0 || h.periodVal < s.periodVal {
			h.periodVal = s.periodVal
		}
		for _, c := range p.Comments {
			if c := p.String(c); !seen[c] {
				seen[c] = true
				h.comments = append(h.comments, c)
			}
		}
		if h.defaultType == "" {
			h.defaultType = s.defaultTyp
		}
		if h.docURL == "" {
			h.docURL = p.String(p.DocURL)
		}
	}
	return h, nil
}

// profile makes the model of the merged profile as pprofx's pprof reader
// reads what pprof's library writes of it: the strings in the order the
// library's encoder first meets them, label sets and stacks in the order
// the samples first name them.
func (m *merger) profile(h *header) *model.Profile {
	p := &model.Profile{Strings: []string{""}, LabelSets: []model.LabelSet{{}}}
	idx := map[string]int32{"": 0}
	str := func(s string) int32 {
		if i, ok := idx[s]; ok {
			return i
		}
		i := int32(len(p.Strings))
		p.Strings = append(p.Strings, s)
		idx[s] = i
		return i
	}
	for _, t := range h.types {
		p.SampleTypes = append(p.SampleTypes, model.ValueType{Type: str(t.typ), Unit: str(t.unit)})
	}

	// Samples: their label sets, made as the library writes each sample's
	// labels, and kept once each as the reader keeps them.
	setOf := make([]int32, len(m.labelEnd))
	for i := range setOf {
		setOf[i] = -1
	}
	sets := map[string]int32{}
	var key []byte
	p.Samples = make([]model.Sample, len(m.samples))
	n := m.nTypes
	for i := range m.samples {
		s := &m.samples[i]
		ls := setOf[s.labels]
		if ls < 0 {
			labels := labelsOfKey(m.labelKey(s.labels), str)
			ls = 0
			if len(labels) > 0 {
				key = key[:0]
				for _, l := range labels {
					key = binary.AppendVarint(key, int64(l.Key))
					key = binary.AppendVarint(key, int64(l.Str))
					key = binary.AppendVarint(key, l.Num)
					key = binary.AppendVarint(key, int64(l.NumUnit))
				}
				var ok bool
				if ls, ok = sets[string(key)]; !ok {
					ls = int32(len(p.LabelSets))
					sets[string(key)] = ls
					p.LabelSets = append(p.LabelSets, model.NewLabelSet(labels, nil))
				}
			}
			setOf[s.labels] = ls
		}
		p.Samples[i] = model.NewSample(s.stack, m.vals[i*n:(i+1)*n:(i+1)*n])
		p.Samples[i].LabelSet = ls
	}
	// Each stack was made for the sample that first names it.
	p.Stacks = m.stacks.st
	m.stacks = stackTable{}

	p.Mappings = make([]model.Mapping, len(m.mappings))
	for i, mp := range m.mappings {
		p.Mappings[i] = model.Mapping{Start: mp.start, Limit: mp.limit, Offset: mp.offset,
			File: str(mp.file), BuildID: str(mp.buildID),
			HasFunctions: mp.flags[0], HasFilenames: mp.flags[1], HasLineNumbers: mp.flags[2], HasInlineFrames: mp.flags[3]}
	}
	p.Functions = make([]model.Function, len(m.funcs))
	for i, f := range m.funcs {
		p.Functions[i] = model.Function{Name: str(f.name), SystemName: str(f.systemName), Filename: str(f.filename), StartLine: f.startLine}
	}
	// The merge's lines are the profile's: each location's are
	// lines[off:end].
	p.Locations = make([]model.Location, len(m.locs))
	p.Lines, p.Columns, m.lines, m.cols = m.lines, m.cols, nil, nil
	for i, l := range m.locs {
		loc := model.Location{Address: l.address, Mapping: l.mapping, IsFolded: l.folded}
		if l.end > l.off {
			loc.FirstLine, loc.NumLines = uint32(l.off), uint32(l.end-l.off)
		}
		p.Locations[i] = loc
	}
	p.DropFrames, p.KeepFrames = str(h.dropFrames), str(h.keepFrames)
	p.PeriodType = model.ValueType{Type: str(h.period.typ), Unit: str(h.period.unit)}
	p.Period, p.TimeNanos, p.DurationNanos = h.periodVal, h.timeNanos, h.durationNanos
	for _, c := range h.comments {
		p.Comments = append(p.Comments, str(c))
	}
	p.DefaultSampleType, p.DocURL = str(h.defaultType), str(h.docURL)
	return p
}

// labelsOfKey returns the labels of a label set from pprof's key of it
// (merger.labelSet), as the library writes them: string labels, then
// numeric ones, each by key.
func labelsOfKey(k []byte, str func(string) int32) []model.Label {
	uv := func() uint64 {
		v, n := binary.Uvarint(k)
		k = k[n:]
		return v
	}
	text := func() string {
		n := uv()
		v := string(k[:n])
		k = k[n:]
		return v
	}
	var out []model.Label
	for range uv() {
		key := str(text())
		for range uv() {
			out = append(out, model.Label{Key: key, Str: str(text())})
		}
	}
	for range uv() {
		key := str(text())
		start := len(out)
		for range uv() {
			out = append(out, model.Label{Key: key, Num: int64(uv())})
		}
		for j := range uv() {
			out[start+int(j)].NumUnit = str(text())
		}
	}
	return out
}
