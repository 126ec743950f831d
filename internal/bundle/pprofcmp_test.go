package bundle

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/google/pprof/profile"
	"github.com/pprofx/pprofx/internal/model"
)

// diffPprof compares two google/pprof profiles field by field, samples in
// order, with locations, mappings and functions compared by value rather
// than by ID. It returns "" when they are equal.
func diffPprof(a, b *profile.Profile) string {
	ne := func(what string, x, y any) string { return fmt.Sprintf("%s: %v != %v", what, x, y) }
	vt := func(v *profile.ValueType) string {
		if v == nil {
			return "<nil>"
		}
		return v.Type + "/" + v.Unit
	}
	mp := func(m *profile.Mapping) string {
		if m == nil {
			return "<nil>"
		}
		return fmt.Sprintf("%#x-%#x@%#x %q build=%q f=%v,%v,%v,%v krs=%q", m.Start, m.Limit, m.Offset, m.File, m.BuildID,
			m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames, m.KernelRelocationSymbol)
	}
	loc := func(l *profile.Location) string {
		s := fmt.Sprintf("addr=%#x map=[%s] folded=%v", l.Address, mp(l.Mapping), l.IsFolded)
		for _, ln := range l.Line {
			f := ln.Function
			s += fmt.Sprintf(" {%q %q %q start=%d line=%d col=%d}", f.Name, f.SystemName, f.Filename, f.StartLine, ln.Line, ln.Column)
		}
		return s
	}
	if len(a.SampleType) != len(b.SampleType) {
		return ne("len(SampleType)", len(a.SampleType), len(b.SampleType))
	}
	for i := range a.SampleType {
		if x, y := vt(a.SampleType[i]), vt(b.SampleType[i]); x != y {
			return ne(fmt.Sprintf("SampleType[%d]", i), x, y)
		}
	}
	for _, f := range []struct {
		n    string
		x, y any
	}{
		{"DefaultSampleType", a.DefaultSampleType, b.DefaultSampleType},
		{"Comments", a.Comments, b.Comments},
		{"DocURL", a.DocURL, b.DocURL},
		{"DropFrames", a.DropFrames, b.DropFrames},
		{"KeepFrames", a.KeepFrames, b.KeepFrames},
		{"TimeNanos", a.TimeNanos, b.TimeNanos},
		{"DurationNanos", a.DurationNanos, b.DurationNanos},
		{"PeriodType", vt(a.PeriodType), vt(b.PeriodType)},
		{"Period", a.Period, b.Period},
		{"len(Mapping)", len(a.Mapping), len(b.Mapping)},
		{"len(Sample)", len(a.Sample), len(b.Sample)},
	} {
		if !reflect.DeepEqual(f.x, f.y) {
			return ne(f.n, f.x, f.y)
		}
	}
	for i := range a.Mapping {
		if x, y := mp(a.Mapping[i]), mp(b.Mapping[i]); x != y {
			return ne(fmt.Sprintf("Mapping[%d]", i), x, y)
		}
	}
	for i := range a.Sample {
		s, t := a.Sample[i], b.Sample[i]
		if !slices.Equal(s.Value, t.Value) {
			return ne(fmt.Sprintf("Sample[%d].Value", i), s.Value, t.Value)
		}
		if len(s.Location) != len(t.Location) {
			return ne(fmt.Sprintf("Sample[%d]: depth", i), len(s.Location), len(t.Location))
		}
		for j := range s.Location {
			if x, y := loc(s.Location[j]), loc(t.Location[j]); x != y {
				return ne(fmt.Sprintf("Sample[%d].Location[%d]", i, j), x, y)
			}
		}
		if !labelsEqual(s.Label, t.Label) {
			return ne(fmt.Sprintf("Sample[%d].Label", i), s.Label, t.Label)
		}
		if !labelsEqual(s.NumLabel, t.NumLabel) {
			return ne(fmt.Sprintf("Sample[%d].NumLabel", i), s.NumLabel, t.NumLabel)
		}
		if !labelsEqual(s.NumUnit, t.NumUnit) {
			return ne(fmt.Sprintf("Sample[%d].NumUnit", i), s.NumUnit, t.NumUnit)
		}
	}
	return ""
}

// labelsEqual compares label maps treating nil and empty alike.
func labelsEqual[V comparable](a, b map[string][]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || !slices.Equal(va, vb) {
			return false
		}
	}
	return true
}

// toPprof converts a model profile into a google/pprof profile, the inverse
// of fromPprof, for tests. Numeric labels of one key keep their units in
// order; label order across keys is pprof's (maps).
func toPprof(p *model.Profile) *profile.Profile {
	s := p.String
	vt := func(v model.ValueType) *profile.ValueType {
		return &profile.ValueType{Type: s(v.Type), Unit: s(v.Unit)}
	}
	pp := &profile.Profile{
		DefaultSampleType: s(p.DefaultSampleType), DocURL: s(p.DocURL), DropFrames: s(p.DropFrames), KeepFrames: s(p.KeepFrames),
		TimeNanos: p.TimeNanos, DurationNanos: p.DurationNanos, Period: p.Period,
	}
	if p.PeriodType != (model.ValueType{}) {
		pp.PeriodType = vt(p.PeriodType)
	}
	for _, st := range p.SampleTypes {
		pp.SampleType = append(pp.SampleType, vt(st))
	}
	for _, c := range p.Comments {
		pp.Comments = append(pp.Comments, s(c))
	}
	for i, m := range p.Mappings {
		pp.Mapping = append(pp.Mapping, &profile.Mapping{ID: uint64(i + 1), Start: m.Start, Limit: m.Limit, Offset: m.Offset, File: s(m.File), BuildID: s(m.BuildID),
			HasFunctions: m.HasFunctions, HasFilenames: m.HasFilenames, HasLineNumbers: m.HasLineNumbers, HasInlineFrames: m.HasInlineFrames})
	}
	for i, f := range p.Functions {
		pp.Function = append(pp.Function, &profile.Function{ID: uint64(i + 1), Name: s(f.Name), SystemName: s(f.SystemName), Filename: s(f.Filename), StartLine: f.StartLine})
	}
	for i, l := range p.Locations {
		loc := &profile.Location{ID: uint64(i + 1), Address: l.Address, IsFolded: l.IsFolded}
		if l.Mapping != model.NoMapping {
			loc.Mapping = pp.Mapping[l.Mapping]
		}
		for _, ln := range l.Lines {
			loc.Line = append(loc.Line, profile.Line{Function: pp.Function[ln.Function], Line: ln.Line, Column: ln.Column})
		}
		pp.Location = append(pp.Location, loc)
	}
	for _, sm := range p.Samples {
		ps := &profile.Sample{Value: slices.Clone(sm.Values)}
		for _, l := range p.Stacks.Get(int(sm.Stack)) {
			ps.Location = append(ps.Location, pp.Location[l])
		}
		for _, l := range p.LabelSets[sm.LabelSet].Labels {
			k := s(l.Key)
			if l.IsNumeric() {
				if ps.NumLabel == nil {
					ps.NumLabel, ps.NumUnit = map[string][]int64{}, map[string][]string{}
				}
				ps.NumLabel[k] = append(ps.NumLabel[k], l.Num)
				ps.NumUnit[k] = append(ps.NumUnit[k], s(l.NumUnit))
			} else {
				if ps.Label == nil {
					ps.Label = map[string][]string{}
				}
				ps.Label[k] = append(ps.Label[k], s(l.Str))
			}
		}
		pp.Sample = append(pp.Sample, ps)
	}
	return pp
}
