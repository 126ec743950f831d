package bundle

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/fixture"
)

// decodeFile reads a pprof file with pprofx's own codec.
func decodeFile(t testing.TB, name string) *model.Profile {
	return fixture.DecodePprof(t, name)
}

// diffProfiles compares two model profiles with every index resolved to
// the value it names, so that tables in different orders, or with
// unreferenced entries, still compare. It returns "" when they are equal,
// else the first difference and where it is.
func diffProfiles(a, b *model.Profile) string {
	rvt := func(p *model.Profile, v model.ValueType) string {
		return fmt.Sprintf("%q/%q/%d", p.String(v.Type), p.String(v.Unit), v.AggregationTemporality)
	}
	rmap := func(p *model.Profile, i int32) string {
		if i == model.NoMapping {
			return "none"
		}
		m := p.Mappings[i]
		return fmt.Sprintf("%#x-%#x@%#x %q build=%q kind=%d f=%v,%v,%v,%v attrs=%+v", m.Start, m.Limit, m.Offset, p.String(m.File), p.String(m.BuildID), m.BuildIDKind,
			m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames, m.Attributes)
	}
	rloc := func(p *model.Profile, i int32) string {
		l := p.Locations[i]
		s := fmt.Sprintf("addr=%#x map=[%s] folded=%v attrs=%+v", l.Address, rmap(p, l.Mapping), l.IsFolded, p.LocationAttrs(int(i)))
		for j, ln := range p.LinesOf(&l) {
			f := p.Functions[ln.Function]
			s += fmt.Sprintf(" {%q %q %q start=%d line=%d col=%d}", p.String(f.Name), p.String(f.SystemName), p.String(f.Filename), f.StartLine, ln.Line, p.ColumnOf(&l, j))
		}
		return s
	}
	rlabels := func(p *model.Profile, i int32) string {
		s := ""
		for _, l := range p.LabelSets[i].Labels() {
			s += fmt.Sprintf("{%q %q %d %q}", p.String(l.Key), p.String(l.Str), l.Num, p.String(l.NumUnit))
		}
		if as := p.LabelSets[i].Attributes(); len(as) > 0 {
			s += fmt.Sprintf(" attrs=%#v", normAttrs(as))
		}
		return s
	}
	rlink := func(p *model.Profile, i int32) string {
		if i == model.NoLink {
			return "none"
		}
		return fmt.Sprintf("%x/%x", p.Links[i].TraceID, p.Links[i].SpanID)
	}
	ne := func(what string, x, y any) string { return fmt.Sprintf("%s: %v != %v", what, x, y) }

	if len(a.SampleTypes) != len(b.SampleTypes) {
		return ne("len(sample_types)", len(a.SampleTypes), len(b.SampleTypes))
	}
	for i := range a.SampleTypes {
		if x, y := rvt(a, a.SampleTypes[i]), rvt(b, b.SampleTypes[i]); x != y {
			return ne(fmt.Sprintf("sample_type[%d]", i), x, y)
		}
	}
	type kv struct {
		n    string
		x, y any
	}
	for _, f := range []kv{
		{"default_sample_type", a.String(a.DefaultSampleType), b.String(b.DefaultSampleType)},
		{"period_type", rvt(a, a.PeriodType), rvt(b, b.PeriodType)},
		{"period", a.Period, b.Period},
		{"time_nanos", a.TimeNanos, b.TimeNanos},
		{"duration_nanos", a.DurationNanos, b.DurationNanos},
		{"drop_frames", a.String(a.DropFrames), b.String(b.DropFrames)},
		{"keep_frames", a.String(a.KeepFrames), b.String(b.KeepFrames)},
		{"doc_url", a.String(a.DocURL), b.String(b.DocURL)},
		{"profile_id", fmt.Sprintf("%x", a.ProfileID), fmt.Sprintf("%x", b.ProfileID)},
		{"start_time_unix_nano", a.StartTimeUnixNano, b.StartTimeUnixNano},
		{"end_time_unix_nano", a.EndTimeUnixNano, b.EndTimeUnixNano},
		{"dropped_attributes_count", a.DroppedAttributesCount, b.DroppedAttributesCount},
		{"original_payload_format", a.OriginalPayloadFormat, b.OriginalPayloadFormat},
		{"original_payload", fmt.Sprintf("%x", a.OriginalPayload), fmt.Sprintf("%x", b.OriginalPayload)},
		{"len(comments)", len(a.Comments), len(b.Comments)},
		{"len(mappings)", len(a.Mappings), len(b.Mappings)},
		{"len(samples)", len(a.Samples), len(b.Samples)},
	} {
		if !reflect.DeepEqual(f.x, f.y) {
			return ne(f.n, f.x, f.y)
		}
	}
	for i := range a.Comments {
		if x, y := a.String(a.Comments[i]), b.String(b.Comments[i]); x != y {
			return ne(fmt.Sprintf("comment[%d]", i), x, y)
		}
	}
	for i := range a.Mappings {
		if x, y := rmap(a, int32(i)), rmap(b, int32(i)); x != y {
			return ne(fmt.Sprintf("mapping[%d]", i), x, y)
		}
	}
	if x, y := fmt.Sprintf("%#v", normAttrs(a.Attributes)), fmt.Sprintf("%#v", normAttrs(b.Attributes)); x != y {
		return ne("attributes", x, y)
	}
	ra, rb := a.Resource, b.Resource
	ra.Attributes, rb.Attributes = normAttrs(ra.Attributes), normAttrs(rb.Attributes)
	if x, y := fmt.Sprintf("%#v", ra), fmt.Sprintf("%#v", rb); x != y {
		return ne("resource", x, y)
	}
	sa, sb := a.Scope, b.Scope
	sa.Attributes, sb.Attributes = normAttrs(sa.Attributes), normAttrs(sb.Attributes)
	if x, y := fmt.Sprintf("%#v", sa), fmt.Sprintf("%#v", sb); x != y {
		return ne("scope", x, y)
	}
	for i := range a.Samples {
		s, t := &a.Samples[i], &b.Samples[i]
		fa, fb := a.Stacks.Append(nil, int(s.Stack)), b.Stacks.Append(nil, int(t.Stack))
		if len(fa) != len(fb) {
			return ne(fmt.Sprintf("sample[%d]: stack depth", i), len(fa), len(fb))
		}
		for j := range fa {
			if x, y := rloc(a, fa[j]), rloc(b, fb[j]); x != y {
				return ne(fmt.Sprintf("sample[%d].stack[%d]", i, j), x, y)
			}
		}
		if !slices.Equal(s.Values(), t.Values()) {
			return ne(fmt.Sprintf("sample[%d].values", i), s.Values(), t.Values())
		}
		if x, y := rlabels(a, s.LabelSet), rlabels(b, t.LabelSet); x != y {
			return ne(fmt.Sprintf("sample[%d].labels", i), x, y)
		}
		if x, y := rlink(a, s.Link), rlink(b, t.Link); x != y {
			return ne(fmt.Sprintf("sample[%d].link", i), x, y)
		}
		if !slices.Equal(s.Timestamps(), t.Timestamps()) {
			return ne(fmt.Sprintf("sample[%d].timestamps", i), s.Timestamps(), t.Timestamps())
		}
	}
	return ""
}

// normAttrs makes empty and nil slices alike, so that %#v compares values.
func normAttrs(as []model.Attribute) []model.Attribute {
	if len(as) == 0 {
		return nil
	}
	out := make([]model.Attribute, len(as))
	for i, a := range as {
		out[i] = model.Attribute{Key: a.Key, Value: normValue(a.Value), Unit: a.Unit}
	}
	return out
}

func normValue(v model.Value) model.Value {
	if len(v.Bytes) == 0 {
		v.Bytes = nil
	}
	if len(v.Array) == 0 {
		v.Array = nil
	} else {
		arr := make([]model.Value, len(v.Array))
		for i, x := range v.Array {
			arr[i] = normValue(x)
		}
		v.Array = arr
	}
	v.Map = normAttrs(v.Map)
	return v
}

// openBundleOf writes ps into a bundle (bundleOf) and opens it.
func openBundleOf(t testing.TB, ps ...*model.Profile) *Reader {
	t.Helper()
	data, err := bundleOf(ps...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// bundleOf writes ps into a bundle, named p0, p1, ...
func bundleOf(ps ...*model.Profile) ([]byte, error) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	for i, p := range ps {
		if err := w.Add(Entry{Name: fmt.Sprintf("p%d", i), SourceFormat: "pprof"}, p); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
