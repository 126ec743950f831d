// Package otlptest holds test helpers for the OTLP codec that other test
// code (the nested official-bindings module among it) shares.
package otlptest

import (
	"fmt"
	"reflect"

	"github.com/google/pprof/profile"
)

// ComparePprof compares two profiles as google/pprof reads them and returns
// the first difference, or nil. It compares every field a pprof file holds
// except the ids: sample types, default sample type, period type and
// period, time, duration, comments, doc url, drop/keep frames, the mapping
// table in order (ranges, offset, file, build id, the four flags), and every
// sample in order: values, its stack location by location (address,
// mapping, folded, lines in inline order with function name, system name,
// file, start line, line and column), string labels and numeric labels
// with their units, values in order.
func ComparePprof(want, got *profile.Profile) error {
	vt := func(v *profile.ValueType) string {
		if v == nil {
			return "<nil>"
		}
		return v.Type + "/" + v.Unit
	}
	var wts, gts []string
	for _, t := range want.SampleType {
		wts = append(wts, vt(t))
	}
	for _, t := range got.SampleType {
		gts = append(gts, vt(t))
	}
	for _, c := range []struct {
		what      string
		want, got any
	}{
		{"sample types", wts, gts},
		{"default sample type", want.DefaultSampleType, got.DefaultSampleType},
		{"period type", vt(want.PeriodType), vt(got.PeriodType)},
		{"period", want.Period, got.Period},
		{"time", want.TimeNanos, got.TimeNanos},
		{"duration", want.DurationNanos, got.DurationNanos},
		{"comments", nonNil(want.Comments), nonNil(got.Comments)},
		{"doc url", want.DocURL, got.DocURL},
		{"drop frames", want.DropFrames, got.DropFrames},
		{"keep frames", want.KeepFrames, got.KeepFrames},
		{"number of mappings", len(want.Mapping), len(got.Mapping)},
		{"number of samples", len(want.Sample), len(got.Sample)},
	} {
		if !reflect.DeepEqual(c.want, c.got) {
			return fmt.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
	for i := range want.Mapping {
		if w, g := mapping(want.Mapping[i]), mapping(got.Mapping[i]); w != g {
			return fmt.Errorf("mapping[%d]: got %s, want %s", i, g, w)
		}
	}
	for i := range want.Sample {
		ws, gs := want.Sample[i], got.Sample[i]
		if !reflect.DeepEqual(nonNil64(ws.Value), nonNil64(gs.Value)) {
			return fmt.Errorf("sample[%d].value: got %v, want %v", i, gs.Value, ws.Value)
		}
		if len(ws.Location) != len(gs.Location) {
			return fmt.Errorf("sample[%d]: %d locations, want %d", i, len(gs.Location), len(ws.Location))
		}
		for j := range ws.Location {
			if w, g := location(ws.Location[j]), location(gs.Location[j]); w != g {
				return fmt.Errorf("sample[%d].location[%d]: got %s, want %s", i, j, g, w)
			}
		}
		if w, g := strLabels(ws.Label), strLabels(gs.Label); !reflect.DeepEqual(w, g) {
			return fmt.Errorf("sample[%d] string labels: got %v, want %v", i, g, w)
		}
		if w, g := numLabels(ws), numLabels(gs); !reflect.DeepEqual(w, g) {
			return fmt.Errorf("sample[%d] numeric labels: got %v, want %v", i, g, w)
		}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNil64(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}

func mapping(m *profile.Mapping) string {
	if m == nil {
		return "<none>"
	}
	return fmt.Sprintf("[%#x,%#x)+%#x %q %q functions=%v filenames=%v lines=%v inline=%v", m.Start, m.Limit, m.Offset, m.File, m.BuildID,
		m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames)
}

func location(l *profile.Location) string {
	s := fmt.Sprintf("%#x in %s folded=%v", l.Address, mapping(l.Mapping), l.IsFolded)
	for _, ln := range l.Line {
		f := ln.Function
		if f == nil {
			s += " | <no function>"
			continue
		}
		s += fmt.Sprintf(" | %q %q %q start %d line %d col %d", f.Name, f.SystemName, f.Filename, f.StartLine, ln.Line, ln.Column)
	}
	return s
}

func strLabels(m map[string][]string) map[string][]string {
	out := map[string][]string{}
	for k, v := range m {
		if len(v) > 0 {
			out[k] = v
		}
	}
	return out
}

// numLabels renders numeric labels with their units; a missing unit list
// and a list of empty units are the same.
func numLabels(s *profile.Sample) map[string][]string {
	out := map[string][]string{}
	for k, vs := range s.NumLabel {
		units := s.NumUnit[k]
		for i, v := range vs {
			u := ""
			if i < len(units) {
				u = units[i]
			}
			out[k] = append(out[k], fmt.Sprintf("%d[%s]", v, u))
		}
	}
	return out
}
