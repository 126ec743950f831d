package otlp

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/modeldump"
)

func sameProfiles(t *testing.T, what string, want, got []*model.Profile) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d profiles, want %d", what, len(got), len(want))
	}
	w, g := modeldump.All(want), modeldump.All(got)
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
// and resource attributes, links and timestamps, and the pdata-built
// typed-attrs.otlp its attributes of every value type with their units,
// through OTLP -> OTLP (binary and JSON) and OTLP -> bundle -> OTLP, with
// no warning.
func TestAttributesSurvive(t *testing.T) {
	for _, f := range []string{"ebpf-v1.9.otlp", "typed-attrs.otlp"} {
		t.Run(f, func(t *testing.T) { attributesSurvive(t, "../../../testdata/otlp-dev/"+f) })
	}
}

func attributesSurvive(t *testing.T, file string) {
	data, err := os.ReadFile(file)
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

// TestTypedSampleAttributes: the reader keeps as labels exactly what
// pprof's labels hold as it is, and every other sample attribute, with
// its unit, as an attribute of the label set.
func TestTypedSampleAttributes(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/otlp-dev/typed-attrs.otlp")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Decode(data, DecodeOptions{Warn: func(s string) { t.Errorf("warned: %s", s) }})
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	labels, attrs := map[string]bool{}, map[string]string{}
	for _, s := range p.Samples {
		ls := p.LabelSets[s.LabelSet]
		for _, l := range ls.Labels() {
			labels[p.String(l.Key)] = true
		}
		for _, a := range ls.Attributes() {
			attrs[a.Key] = a.Unit
		}
	}
	for _, k := range []string{"workload", "tenant", "attr.int", "attr.int_array", "attr.string_array"} {
		if !labels[k] {
			t.Errorf("%s is not a label", k)
		}
	}
	want := map[string]string{"attr.bool": "", "attr.double": "s", "attr.bytes": "", "attr.map": "", "attr.empty": "",
		"attr.empty_string": "", "attr.mixed_array": "", "attr.one_element_array": "", "attr.empty_array": "",
		"attr.string_with_unit": "By", "attr.double_array": ""}
	if fmt.Sprint(attrs) != fmt.Sprint(want) {
		t.Errorf("attributes (key: unit) %v, want %v", attrs, want)
	}
	units := map[string]string{}
	for _, a := range p.Attributes {
		units[a.Key] = a.Unit
	}
	for _, a := range p.Mappings[0].Attributes {
		units[a.Key] = a.Unit
	}
	for _, as := range p.LocationAttributes {
		for _, a := range as {
			units[a.Key] = a.Unit
		}
	}
	for k, u := range map[string]string{"attr.profile.sampling_rate": "Hz", "attr.profile.note": "", "attr.mapping.size": "By", "attr.location.weight": "1"} {
		if got, ok := units[k]; !ok || got != u {
			t.Errorf("%s: unit %q (present %v), want %q", k, got, ok, u)
		}
	}
}
