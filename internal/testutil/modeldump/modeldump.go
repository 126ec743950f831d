// Package modeldump renders a model profile as text with every index
// resolved, for tests that compare profiles whose tables may be laid out
// differently.
package modeldump

import (
	"fmt"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
)

// Describe renders everything a model profile holds with every index
// resolved: tables in any order, or with entries nothing uses, compare
// equal when they say the same.
func Describe(p *model.Profile) string {
	var b strings.Builder
	vt := func(v model.ValueType) string { return p.String(v.Type) + "/" + p.String(v.Unit) }
	mapping := func(i int32) string {
		if i == model.NoMapping {
			return "-"
		}
		m := p.Mappings[i]
		return fmt.Sprintf("[%#x-%#x@%#x %q build=%q/%d flags=%v%v%v%v attrs=%+v]", m.Start, m.Limit, m.Offset, p.String(m.File),
			p.String(m.BuildID), m.BuildIDKind, m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames, m.Attributes)
	}
	fmt.Fprintf(&b, "types")
	for _, t := range p.SampleTypes {
		fmt.Fprintf(&b, " %s", vt(t))
	}
	fmt.Fprintf(&b, " default=%q period=%s %d time=%d dur=%d\n", p.String(p.DefaultSampleType), vt(p.PeriodType), p.Period, p.TimeNanos, p.DurationNanos)
	for _, c := range p.Comments {
		fmt.Fprintf(&b, "comment %q\n", p.String(c))
	}
	fmt.Fprintf(&b, "drop=%q keep=%q doc=%q id=%x attrs=%+v dropped=%d\n", p.String(p.DropFrames), p.String(p.KeepFrames), p.String(p.DocURL),
		p.ProfileID, p.Attributes, p.DroppedAttributesCount)
	fmt.Fprintf(&b, "resource %+v\nscope %+v\n", p.Resource, p.Scope)
	for i := range p.Mappings {
		fmt.Fprintf(&b, "mapping %s\n", mapping(int32(i)))
	}
	for _, s := range p.Samples {
		fmt.Fprintf(&b, "sample %v", s.Values())
		for _, l := range p.LabelSets[s.LabelSet].Labels() {
			fmt.Fprintf(&b, " {%q %q %d %q}", p.String(l.Key), p.String(l.Str), l.Num, p.String(l.NumUnit))
		}
		if as := p.LabelSets[s.LabelSet].Attributes(); len(as) > 0 {
			fmt.Fprintf(&b, " attrs=%+v", as)
		}
		if s.Link != model.NoLink {
			fmt.Fprintf(&b, " link=%x/%x", p.Links[s.Link].TraceID, p.Links[s.Link].SpanID)
		}
		fmt.Fprintf(&b, " ts=%v\n", s.Timestamps())
		for _, li := range p.Stacks.Append(nil, int(s.Stack)) {
			l := p.Locations[li]
			fmt.Fprintf(&b, "  %#x %s folded=%v attrs=%+v", l.Address, mapping(l.Mapping), l.IsFolded, p.LocationAttrs(int(li)))
			for j, ln := range p.LinesOf(&l) {
				col := p.ColumnOf(&l, j)
				if ln.Function == model.NoFunction {
					fmt.Fprintf(&b, " {- %d %d}", ln.Line, col)
					continue
				}
				f := p.Functions[ln.Function]
				fmt.Fprintf(&b, " {%q %q %q %d %d %d}", p.String(f.Name), p.String(f.SystemName), p.String(f.Filename), f.StartLine, ln.Line, col)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// All describes each profile of ps.
func All(ps []*model.Profile) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = Describe(p)
	}
	return out
}
