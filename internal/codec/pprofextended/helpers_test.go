package pprofextended

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/otlpcommon"

	"github.com/pprofx/pprofx/internal/model"
)

// flat is a profile with every reference resolved to values, so that two
// profiles with different table layouts but the same content compare equal.
type flat struct {
	SampleTypes []string
	Period      string
	Time, Dur   int64
	Comments    []string
	Drop, Keep  string
	DocURL      string
	Default     string
	Samples     []string
	ProfileID   string
	Start, End  uint64
	Attributes  string
	Resource    string
	Scope       string
	Original    string
}

func vt(p *model.Profile, v model.ValueType) string {
	return fmt.Sprintf("%s/%s/%d", p.String(v.Type), p.String(v.Unit), v.AggregationTemporality)
}

func loc(p *model.Profile, i int32) string {
	l := p.Locations[i]
	var sb strings.Builder
	fmt.Fprintf(&sb, "%#x", l.Address)
	if l.Mapping != model.NoMapping {
		m := p.Mappings[l.Mapping]
		fmt.Fprintf(&sb, "@[%x-%x+%x %s %s k%d %v%v%v%v]", m.Start, m.Limit, m.Offset, p.String(m.File), p.String(m.BuildID), m.BuildIDKind,
			m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames)
	}
	for j, ln := range p.LinesOf(&l) {
		if ln.Function == model.NoFunction {
			fmt.Fprintf(&sb, " <no function>:%d:%d", ln.Line, p.ColumnOf(&l, j))
			continue
		}
		f := p.Functions[ln.Function]
		fmt.Fprintf(&sb, " %s|%s|%s|%d:%d:%d", p.String(f.Name), p.String(f.SystemName), p.String(f.Filename), f.StartLine, ln.Line, p.ColumnOf(&l, j))
	}
	if l.IsFolded {
		sb.WriteString(" folded")
	}
	return sb.String()
}

func labelsOf(p *model.Profile, ls int32) string {
	var parts []string
	for _, l := range p.LabelSets[ls].Labels() {
		if l.IsNumeric() {
			parts = append(parts, fmt.Sprintf("%s=%d[%s]", p.String(l.Key), l.Num, p.String(l.NumUnit)))
		} else {
			parts = append(parts, fmt.Sprintf("%s=%q", p.String(l.Key), p.String(l.Str)))
		}
	}
	return strings.Join(parts, ",")
}

func attrs(as []model.Attribute) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, a.Key+"="+otlpcommon.ValueText(a.Value)+fmt.Sprintf("(%d)", a.Value.Kind))
	}
	return strings.Join(parts, ";")
}

func flatten(p *model.Profile) flat {
	f := flat{Period: vt(p, p.PeriodType) + fmt.Sprintf(" %d", p.Period), Time: p.TimeNanos, Dur: p.DurationNanos,
		Drop: p.String(p.DropFrames), Keep: p.String(p.KeepFrames), DocURL: p.String(p.DocURL),
		Default: p.String(p.DefaultSampleType), ProfileID: hex.EncodeToString(p.ProfileID),
		Start: p.StartTimeUnixNano, End: p.EndTimeUnixNano, Attributes: attrs(p.Attributes),
		Resource: attrs(p.Resource.Attributes) + " " + p.Resource.SchemaURL,
		Scope:    fmt.Sprintf("%s %s %s %s", p.Scope.Name, p.Scope.Version, attrs(p.Scope.Attributes), p.Scope.SchemaURL),
		Original: p.OriginalPayloadFormat + " " + hex.EncodeToString(p.OriginalPayload)}
	for _, t := range p.SampleTypes {
		f.SampleTypes = append(f.SampleTypes, vt(p, t))
	}
	for _, c := range p.Comments {
		f.Comments = append(f.Comments, p.String(c))
	}
	for _, s := range p.Samples {
		var sb strings.Builder
		fmt.Fprintf(&sb, "%v {%s}", s.Values(), labelsOf(p, s.LabelSet))
		for _, l := range p.Stacks.Append(nil, int(s.Stack)) {
			sb.WriteString(" <" + loc(p, l) + ">")
		}
		if s.Link != model.NoLink {
			fmt.Fprintf(&sb, " link %x/%x", p.Links[s.Link].TraceID, p.Links[s.Link].SpanID)
		}
		if len(s.Timestamps()) > 0 {
			fmt.Fprintf(&sb, " ts %v", s.Timestamps())
		}
		f.Samples = append(f.Samples, sb.String())
	}
	return f
}

// sameFlat reports the first difference between two flattened profiles.
func sameFlat(t *testing.T, want, got flat) {
	t.Helper()
	wv, gv := reflect.ValueOf(want), reflect.ValueOf(got)
	for i := 0; i < wv.NumField(); i++ {
		name := wv.Type().Field(i).Name
		w, g := wv.Field(i).Interface(), gv.Field(i).Interface()
		if reflect.DeepEqual(w, g) {
			continue
		}
		if ws, ok := w.([]string); ok {
			gs := g.([]string)
			if len(ws) != len(gs) {
				t.Errorf("%s: %d entries, want %d", name, len(gs), len(ws))
				continue
			}
			for j := range ws {
				if ws[j] != gs[j] {
					t.Errorf("%s[%d]:\n got %s\nwant %s", name, j, gs[j], ws[j])
					break
				}
			}
			continue
		}
		t.Errorf("%s:\n got %v\nwant %v", name, g, w)
	}
}

// richModel builds a profile using everything the model and the schema
// share: several sample types, string and numeric labels with units, a key
// with two units, multi-valued labels, comments, drop/keep frames, doc url,
// mappings with build ids, kinds and flags, unmapped locations, inlined
// lines with columns, links (and samples without), timestamps, attributes.
func richModel() *model.Profile {
	b := model.NewBuilder()
	p := b.P
	s := b.String
	p.SampleTypes = []model.ValueType{{Type: s("samples"), Unit: s("count")}, {Type: s("cpu"), Unit: s("nanoseconds"), AggregationTemporality: 1}}
	p.PeriodType = model.ValueType{Type: s("cpu"), Unit: s("nanoseconds")}
	p.Period = 10000000
	p.TimeNanos, p.DurationNanos = 1700000000123456789, 5000000000
	p.Comments = []int32{s("first comment"), s("second, with ünïcode")}
	p.DropFrames, p.KeepFrames = s("runtime\\..*"), s("runtime\\.main")
	p.DocURL = s("https://example.com/doc")
	p.DefaultSampleType = s("cpu")
	p.Mappings = []model.Mapping{
		{Start: 0x400000, Limit: 0x800000, Offset: 0x1000, File: s("/bin/app"), BuildID: s("abcdef0123"), HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true},
		{Start: 0x7f0000000000, Limit: 0x7f0000100000, File: s("libc.so.6"), BuildID: s("c0ffee"), BuildIDKind: 1, HasFunctions: true},
	}
	p.Functions = []model.Function{
		{Name: s("main.main"), SystemName: s("main.main"), Filename: s("main.go"), StartLine: 10},
		{Name: s("main.work"), SystemName: s("main.work"), Filename: s("work.go"), StartLine: 20},
		{Name: s("main.inlined"), SystemName: s("main.inlined"), Filename: s("work.go"), StartLine: 30},
		{Name: s("memcpy"), Filename: s("memcpy.S")},
		{Name: s("[unmapped]")},
	}
	p.SetColumns(&p.Locations[p.AddLocation(model.Location{Address: 0x401000, Mapping: 0}, model.Line{Function: 0, Line: 12})], 3)
	p.SetColumns(&p.Locations[p.AddLocation(model.Location{Address: 0x402000, Mapping: 0}, model.Line{Function: 2, Line: 33}, model.Line{Function: 1, Line: 25})], 7, 2)
	p.AddLocation(model.Location{Address: 0x7f0000001000, Mapping: 1, IsFolded: true}, model.Line{Function: 3})
	p.AddLocation(model.Location{Address: 0xdead, Mapping: model.NoMapping}, model.Line{Function: 4})
	p.AddLocation(model.Location{Address: 0xbeef, Mapping: model.NoMapping})
	p.AddLocation(model.Location{Address: 0xf00d, Mapping: 0}, model.Line{Function: model.NoFunction, Line: 99}, model.Line{Function: 0, Line: 3})
	p.Links = []model.Link{{TraceID: bytes.Repeat([]byte{1}, 16), SpanID: bytes.Repeat([]byte{2}, 8)}}
	lab := func(ls ...model.Label) int32 { return b.LabelSet(ls) }
	str := func(k, v string) model.Label { return model.Label{Key: s(k), Str: s(v)} }
	num := func(k string, n int64, u string) model.Label {
		return model.Label{Key: s(k), Num: n, NumUnit: map[bool]int32{true: 0, false: s(u)}[u == ""]}
	}
	add := func(stack []int32, ls int32, link int32, ts []uint64, v ...int64) {
		s := model.NewSample(b.Stack(stack), v)
		s.LabelSet, s.Link = ls, link
		s.SetTimestamps(ts)
		p.Samples = append(p.Samples, s)
	}
	add([]int32{2, 1, 0}, lab(str("goroutine", "worker"), num("bytes", 1024, "bytes")), 0, []uint64{1700000000200000000}, 1, 10000000)
	add([]int32{1, 0}, lab(str("goroutine", "worker"), str("goroutine", "second value")), model.NoLink, nil, 2, 20000000)
	add([]int32{2, 1, 0}, 0, model.NoLink, []uint64{1700000000300000000, 1700000000400000000}, 3, 30000000)
	add([]int32{3, 4, 0}, lab(num("bytes", 2, "kilobytes"), num("bytes", 3, "kilobytes")), 0, nil, 4, 40000000)
	add([]int32{0}, lab(num("count", 7, "")), model.NoLink, nil, 5, 50000000)
	add([]int32{5, 0}, 0, model.NoLink, nil, 9, 90000000)
	add([]int32{4}, lab(num("bytes", -5, "bytes"), str("", "empty key")), model.NoLink, nil, -6, 0)
	add([]int32{1, 0}, lab(str("goroutine", "worker"), str("goroutine", "second value")), model.NoLink, nil, 7, 70000000)
	add(nil, 0, model.NoLink, nil, 8, 80000000)
	p.ProfileID = []byte("0123456789abcdef")
	p.StartTimeUnixNano, p.EndTimeUnixNano = 1700000000000000000, 1700000009000000000
	p.Attributes = []model.Attribute{{Key: "profile.kind", Value: model.Value{Kind: model.KindString, Str: "cpu"}}}
	p.Resource.Attributes = []model.Attribute{
		{Key: "service.name", Value: model.Value{Kind: model.KindString, Str: "app"}},
		{Key: "host.cpus", Value: model.Value{Kind: model.KindInt, Int: 8}},
		{Key: "flags", Value: model.Value{Kind: model.KindArray, Array: []model.Value{{Kind: model.KindBool, Bool: true}, {Kind: model.KindDouble, Double: 1.5}}}},
		{Key: "nested", Value: model.Value{Kind: model.KindMap, Map: []model.Attribute{{Key: "b", Value: model.Value{Kind: model.KindBytes, Bytes: []byte{0, 1}}}}}},
	}
	p.Resource.SchemaURL = "https://opentelemetry.io/schemas/1.26.0"
	p.OriginalPayloadFormat, p.OriginalPayload = "gperftools", []byte("original bytes")
	return p
}

func encodeOne(t testing.TB, p *model.Profile, opts EncodeOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, []*model.Profile{p}, opts); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return buf.Bytes()
}

func decodeOne(t testing.TB, data []byte) *model.Profile {
	t.Helper()
	ps, err := Decode(data, DecodeOptions{})
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if len(ps) != 1 {
		t.Fatalf("Decode: %d profiles, want 1", len(ps))
	}
	return ps[0]
}

func singleton(p *model.Profile) []*model.Profile { return []*model.Profile{p} }
