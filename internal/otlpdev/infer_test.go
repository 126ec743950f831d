package otlpdev

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gp "github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/pprof"
	"github.com/pprofx/pprofx/internal/pprofcmp"
)

// TestHasFunctionsConvention: pprof.mapping.has_functions is left out of a
// Go runtime profile (its value is what the reader infers), and every
// combination of flag and inference round trips, in one profile and in a
// message of two profiles sharing mappings.
func TestHasFunctionsConvention(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "go", "goroutine.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := pprof.Decode(src)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, []*model.Profile{m}, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte(AttrHasFunctions)) {
		t.Errorf("%s written for a Go runtime profile, whose flags are all inferred", AttrHasFunctions)
	}

	want, err := gp.ParseData(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Mapping) < 2 || !want.Mapping[0].HasFunctions || want.Mapping[1].HasFunctions {
		t.Fatalf("fixture changed: mappings %v", want.Mapping)
	}
	for _, flip := range []bool{false, true} {
		if flip {
			// A named binary without the flag, a mapping with no
			// location with it: both written explicitly.
			want.Mapping[0].HasFunctions = false
			want.Mapping[1].HasFunctions = true
		}
		var in bytes.Buffer
		if err := want.Write(&in); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2} {
			roundTrip(t, want, in.Bytes(), n, flip)
		}
	}
}

func roundTrip(t *testing.T, want *gp.Profile, in []byte, n int, flip bool) {
	t.Helper()
	ms := make([]*model.Profile, n)
	for i := range ms {
		var err error
		if ms[i], err = pprof.Decode(in); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := Encode(&buf, ms, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, w := strings.Count(buf.String(), AttrHasFunctions), map[bool]int{true: 1}[flip]; got != w {
		t.Errorf("%d profiles, flipped %v: key written %d times, want %d", n, flip, got, w)
	}
	ps, err := Decode(buf.Bytes(), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != n {
		t.Fatalf("%d profiles read back, want %d", len(ps), n)
	}
	for _, p := range ps {
		if d := pprofcmp.Diff(want, toPprof(t, p)); d != "" {
			t.Errorf("%d profiles, flipped %v: %s", n, flip, d)
		}
	}
}

// TestZeroSamplesLeftOut: a profile after the first leaves out the samples
// whose value is 0 there and whose key (stack, attributes, link) is the
// only one of its kind; samples with a repeated key stay, so that the j-th
// still matches the j-th; the round trip gives every value back.
func TestZeroSamplesLeftOut(t *testing.T) {
	fn := &gp.Function{ID: 1, Name: "f"}
	var locs []*gp.Location
	for i := 1; i <= 3; i++ {
		locs = append(locs, &gp.Location{ID: uint64(i), Address: uint64(0x1000 * i), Line: []gp.Line{{Function: fn, Line: int64(i)}}})
	}
	s := func(l *gp.Location, label string, v ...int64) *gp.Sample {
		x := &gp.Sample{Location: []*gp.Location{l}, Value: v}
		if label != "" {
			x.Label = map[string][]string{"k": {label}}
		}
		return x
	}
	want := &gp.Profile{
		SampleType: []*gp.ValueType{{Type: "alloc", Unit: "count"}, {Type: "inuse", Unit: "count"}},
		Sample: []*gp.Sample{
			s(locs[0], "", 1, 0),  // key repeated below: stays
			s(locs[1], "", 3, 0),  // unique, zero: left out
			s(locs[0], "", 2, 0),  // repeated: stays
			s(locs[2], "", 0, 5),  // the first profile keeps every sample
			s(locs[0], "x", 4, 0), // unique by its label: left out
			s(locs[1], "x", 6, 7),
		},
		Location: locs, Function: []*gp.Function{fn},
	}
	var in bytes.Buffer
	if err := want.Write(&in); err != nil {
		t.Fatal(err)
	}
	m, err := pprof.Decode(in.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, []*model.Profile{m}, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	msgs, err := Messages(buf.Bytes(), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	profs := msgs[0].ResourceProfiles[0].ScopeProfiles[0].Profiles
	if len(profs) != 2 || len(profs[0].Samples) != 6 || len(profs[1].Samples) != 4 {
		t.Fatalf("profiles %d, samples %d and %d; want 2 profiles of 6 and 4 samples", len(profs), len(profs[0].Samples), len(profs[1].Samples))
	}
	ps, err := Decode(buf.Bytes(), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 {
		t.Fatalf("%d profiles read back, want 1 (joined)", len(ps))
	}
	want, _ = gp.ParseData(in.Bytes())
	if d := pprofcmp.Diff(want, toPprof(t, ps[0])); d != "" {
		t.Error(d)
	}
}
