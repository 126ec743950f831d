package otlp

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/model"
)

// describe renders everything a model profile holds with every index
// resolved: tables in any order, or with entries nothing uses, compare
// equal when they say the same.
func describe(p *model.Profile) string {
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
		fmt.Fprintf(&b, "sample %v", s.Values)
		for _, l := range p.LabelSets[s.LabelSet].Labels {
			fmt.Fprintf(&b, " {%q %q %d %q}", p.String(l.Key), p.String(l.Str), l.Num, p.String(l.NumUnit))
		}
		if s.Link != model.NoLink {
			fmt.Fprintf(&b, " link=%x/%x", p.Links[s.Link].TraceID, p.Links[s.Link].SpanID)
		}
		fmt.Fprintf(&b, " ts=%v\n", s.Timestamps)
		for _, li := range p.Stacks.Get(int(s.Stack)) {
			l := p.Locations[li]
			fmt.Fprintf(&b, "  %#x %s folded=%v attrs=%+v", l.Address, mapping(l.Mapping), l.IsFolded, l.Attributes)
			for _, ln := range l.Lines {
				if ln.Function == model.NoFunction {
					fmt.Fprintf(&b, " {- %d %d}", ln.Line, ln.Column)
					continue
				}
				f := p.Functions[ln.Function]
				fmt.Fprintf(&b, " {%q %q %q %d %d %d}", p.String(f.Name), p.String(f.SystemName), p.String(f.Filename), f.StartLine, ln.Line, ln.Column)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func describeAll(ps []*model.Profile) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = describe(p)
	}
	return out
}

func sameProfiles(t *testing.T, what string, want, got []*model.Profile) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d profiles, want %d", what, len(got), len(want))
	}
	w, g := describeAll(want), describeAll(got)
	for i := range w {
		if w[i] != g[i] {
			wl, gl := strings.Split(w[i], "\n"), strings.Split(g[i], "\n")
			for j := range wl {
				if j >= len(gl) || wl[j] != gl[j] {
					t.Errorf("%s: profile %d, line %d:\n got %s\nwant %s", what, i, j, at(gl, j), wl[j])
					break
				}
			}
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(end)"
}

// TestAttributesSurvive: the eBPF profiler's file keeps its sample,
// location (profile.frame.type), mapping (both build ids), profile, scope
// and resource attributes, links and timestamps through OTLP -> OTLP
// (binary and JSON) and OTLP -> bundle -> OTLP.
func TestAttributesSurvive(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/otlp-dev/ebpf-v1.9.otlp")
	if err != nil {
		t.Fatal(err)
	}
	quiet := DecodeOptions{Warn: func(string) {}}
	want, err := Decode(data, quiet)
	if err != nil {
		t.Fatal(err)
	}
	strict := DecodeOptions{Warn: func(s string) { t.Errorf("reader warned: %s", s) }}
	eo := EncodeOptions{Warn: func(s string) { t.Errorf("writer warned: %s", s) }}
	for _, c := range codecs {
		var buf bytes.Buffer
		if err := c.enc(&buf, want, eo); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(buf.Bytes(), strict)
		if err != nil {
			t.Fatal(err)
		}
		sameProfiles(t, "otlp -> "+c.name, want, got)
	}

	var bb bytes.Buffer
	w := bundle.NewWriter(&bb, bundle.WriterOptions{})
	for i, p := range want {
		if err := w.Add(bundle.Entry{Name: fmt.Sprint(i), SourceFormat: "otlp"}, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := bundle.Open(bytes.NewReader(bb.Bytes()), int64(bb.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var unpacked []*model.Profile
	for i := 0; i < r.Len(); i++ {
		p, err := r.Profile(i)
		if err != nil {
			t.Fatal(err)
		}
		unpacked = append(unpacked, p)
	}
	sameProfiles(t, "otlp -> bundle", want, unpacked)
	var buf bytes.Buffer
	if err := Encode(&buf, unpacked, eo); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(buf.Bytes(), strict)
	if err != nil {
		t.Fatal(err)
	}
	sameProfiles(t, "otlp -> bundle -> otlp", want, got)
}
