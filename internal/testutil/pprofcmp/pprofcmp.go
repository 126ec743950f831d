// Package pprofcmp compares two profiles as google/pprof reads them, field
// by field, with ids resolved: the yardstick of pprofx's lossless tests.
package pprofcmp

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// Diff returns "" when a and b are the same profile under google/pprof's
// reading, or a description of the first differences otherwise. It compares
// samples in order (stacks of resolved locations with their mappings,
// lines and functions, values, string and numeric labels with units), the
// mapping table in order, and every profile-level field. Ids are not
// compared: they are only names for table entries.
func Diff(a, b *profile.Profile) string {
	var d differ
	d.profile(a, b)
	return strings.Join(d.out, "\n")
}

type differ struct{ out []string }

func (d *differ) add(format string, args ...any) {
	if len(d.out) < 10 {
		d.out = append(d.out, fmt.Sprintf(format, args...))
	}
}

func (d *differ) eq(what string, x, y any) {
	if !reflect.DeepEqual(x, y) {
		d.add("%s: %v != %v", what, x, y)
	}
}

func vt(v *profile.ValueType) string {
	if v == nil {
		return "<nil>"
	}
	return v.Type + "/" + v.Unit
}

func (d *differ) profile(a, b *profile.Profile) {
	var as, bs []string
	for _, t := range a.SampleType {
		as = append(as, vt(t))
	}
	for _, t := range b.SampleType {
		bs = append(bs, vt(t))
	}
	d.eq("sample types", as, bs)
	d.eq("default sample type", a.DefaultSampleType, b.DefaultSampleType)
	pa, pb := vt(a.PeriodType), vt(b.PeriodType)
	if a.PeriodType == nil || b.PeriodType == nil {
		// pprof reads an absent period type as nil, an empty one as "/".
		if pa == "/" {
			pa = "<nil>"
		}
		if pb == "/" {
			pb = "<nil>"
		}
	}
	d.eq("period type", pa, pb)
	d.eq("period", a.Period, b.Period)
	d.eq("time", a.TimeNanos, b.TimeNanos)
	d.eq("duration", a.DurationNanos, b.DurationNanos)
	d.eq("comments", a.Comments, b.Comments)
	d.eq("drop frames", a.DropFrames, b.DropFrames)
	d.eq("keep frames", a.KeepFrames, b.KeepFrames)
	d.eq("doc url", a.DocURL, b.DocURL)
	d.eq("number of mappings", len(a.Mapping), len(b.Mapping))
	for i := 0; i < len(a.Mapping) && i < len(b.Mapping); i++ {
		d.eq(fmt.Sprintf("mapping[%d]", i), Mapping(a.Mapping[i]), Mapping(b.Mapping[i]))
	}
	d.eq("number of samples", len(a.Sample), len(b.Sample))
	for i := 0; i < len(a.Sample) && i < len(b.Sample); i++ {
		x, y := a.Sample[i], b.Sample[i]
		d.eq(fmt.Sprintf("sample[%d] values", i), x.Value, y.Value)
		d.eq(fmt.Sprintf("sample[%d] labels", i), labels(x), labels(y))
		d.eq(fmt.Sprintf("sample[%d] depth", i), len(x.Location), len(y.Location))
		for j := 0; j < len(x.Location) && j < len(y.Location); j++ {
			d.eq(fmt.Sprintf("sample[%d] frame %d", i, j), Location(x.Location[j]), Location(y.Location[j]))
		}
	}
}

// Mapping renders a mapping's content, id left out.
func Mapping(m *profile.Mapping) string {
	if m == nil {
		return "<none>"
	}
	return fmt.Sprintf("%#x-%#x@%#x %q build=%q fn=%v file=%v line=%v inl=%v",
		m.Start, m.Limit, m.Offset, m.File, m.BuildID, m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames)
}

// Location renders a location's content, ids left out.
func Location(l *profile.Location) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%#x folded=%v map=[%s]", l.Address, l.IsFolded, Mapping(l.Mapping))
	for _, ln := range l.Line {
		if f := ln.Function; f != nil {
			fmt.Fprintf(&sb, " {%q %q %q start=%d}", f.Name, f.SystemName, f.Filename, f.StartLine)
		} else {
			sb.WriteString(" {<no function>}")
		}
		fmt.Fprintf(&sb, ":%d:%d", ln.Line, ln.Column)
	}
	return sb.String()
}

// labels renders a sample's labels in a canonical order (pprof keeps them
// in maps, so their order is not part of what it reads).
func labels(s *profile.Sample) string {
	var parts []string
	for k, vs := range s.Label {
		parts = append(parts, fmt.Sprintf("%s=%q", k, vs))
	}
	for k, vs := range s.NumLabel {
		parts = append(parts, fmt.Sprintf("%s#%v%q", k, vs, s.NumUnit[k]))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
