package otlp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gp "github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// TestHasFunctionsConvention: pprof.mapping.has_functions is left out of a
// Go runtime profile (its value is what the reader infers), and every
// combination of flag and inference round trips, in one profile and in a
// message of two profiles sharing mappings.
func TestHasFunctionsConvention(t *testing.T) {
	if bytes.Contains(encodeFixture(t, "go", "goroutine.pb.gz"), []byte(AttrHasFunctions)) {
		t.Errorf("%s written for a Go runtime profile, whose flags are all inferred", AttrHasFunctions)
	}

	src, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "go", "goroutine.pb.gz"))
	if err != nil {
		t.Fatal(err)
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
			out := encodePprof(t, in.Bytes(), n)
			if got, w := strings.Count(string(out), AttrHasFunctions), map[bool]int{true: 1}[flip]; got != w {
				t.Errorf("%d profiles, flipped %v: key written %d times, want %d", n, flip, got, w)
			}
			sameAsPprof(t, out, in.Bytes(), n, fmt.Sprintf("%d profiles, flipped %v", n, flip))
		}
	}
}

// encodePprof decodes pprof bytes n times and writes the n profiles as one
// v1development message.
func encodePprof(t *testing.T, in []byte, n int) []byte {
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
	return buf.Bytes()
}

// encodeFixture writes a fixture under testdata (a pprof file) as
// v1development.
func encodeFixture(t *testing.T, elem ...string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(append([]string{"..", "..", "..", "testdata"}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return encodePprof(t, src, 1)
}

// sameAsPprof reads out back and requires n profiles, each the pprof bytes
// in under google/pprof's reading.
func sameAsPprof(t *testing.T, out, in []byte, n int, what string) {
	t.Helper()
	ps, err := Decode(out, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != n {
		t.Fatalf("%s: %d profiles read back, want %d", what, len(ps), n)
	}
	want, err := gp.ParseData(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if d := pprofcmp.Diff(want, toPprof(t, p)); d != "" {
			t.Errorf("%s: %s", what, d)
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

// TestSymbolizerFlagsConvention: has_filenames and has_line_numbers are
// left out of a profile google/pprof symbolized (has_inline_frames set on
// the mappings it symbolized, the other flags as some frame got them), and
// every combination of the four flags round trips, on a mapping whose
// lines have files and line numbers and on one whose lines have neither,
// in one profile and in a message of two.
func TestSymbolizerFlagsConvention(t *testing.T) {
	sym := encodeFixture(t, "pprof", "gperftools-symbolized.pb.gz")
	for _, k := range []string{AttrHasFunctions, AttrHasFilenames, AttrHasLineNumbers} {
		if bytes.Contains(sym, []byte(k)) {
			t.Errorf("%s written for a profile pprof symbolized, whose flags are all inferred", k)
		}
	}
	if !bytes.Contains(sym, []byte(AttrHasInlineFrames)) {
		t.Errorf("%s not written (it is never inferred)", AttrHasInlineFrames)
	}

	fn := &gp.Function{ID: 1, Name: "f", SystemName: "f", Filename: "f.c"}
	bare := &gp.Function{ID: 2, Name: "g"}
	full := &gp.Mapping{ID: 1, Start: 0x1000, Limit: 0x2000, File: "a"}
	none := &gp.Mapping{ID: 2, Start: 0x2000, Limit: 0x3000, File: "b"}
	locs := []*gp.Location{
		{ID: 1, Mapping: full, Address: 0x1010, Line: []gp.Line{{Function: fn, Line: 3}}},
		{ID: 2, Mapping: full, Address: 0x1020, Line: []gp.Line{{Function: bare}}}, // some line has no file: "some" is enough
		{ID: 3, Mapping: none, Address: 0x2010, Line: []gp.Line{{Function: bare}}},
	}
	for bits := 0; bits < 16; bits++ {
		want := &gp.Profile{
			SampleType: []*gp.ValueType{{Type: "samples", Unit: "count"}},
			Sample:     []*gp.Sample{{Location: locs[:2], Value: []int64{1}}, {Location: locs[2:], Value: []int64{2}}},
			Mapping:    []*gp.Mapping{full, none}, Location: locs, Function: []*gp.Function{fn, bare},
		}
		for _, mp := range want.Mapping {
			mp.HasFunctions, mp.HasFilenames = bits&1 != 0, bits&2 != 0
			mp.HasLineNumbers, mp.HasInlineFrames = bits&4 != 0, bits&8 != 0
		}
		var in bytes.Buffer
		if err := want.Write(&in); err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 2; n++ {
			out := encodePprof(t, in.Bytes(), n)
			// Inferred has_filenames: the mapping with a file, its
			// has_inline_frames; the other, false. The key is written
			// when a flag differs from that.
			fl, inl := bits&2 != 0, bits&8 != 0
			if wrote, w := bytes.Contains(out, []byte(AttrHasFilenames)), fl != inl || fl; wrote != w {
				t.Errorf("flags %04b: has_filenames written %v, want %v", bits, wrote, w)
			}
			sameAsPprof(t, out, in.Bytes(), n, fmt.Sprintf("flags %04b, %d profiles", bits, n))
		}
	}
}

// TestSystemNameConvention: a Go profile's functions (system name = name)
// are written without system names, and every combination of an empty,
// equal and different name and system name, with and without a file,
// round trips, in one profile and in a message of two.
func TestSystemNameConvention(t *testing.T) {
	msgs, err := Messages(encodeFixture(t, "go", "goroutine.pb.gz"), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range msgs[0].Dictionary.FunctionTable {
		if f.SystemNameStrindex != 0 {
			t.Errorf("function_table[%d]: system name written, the same as the name", i)
		}
	}

	var fns []*gp.Function
	var locs []*gp.Location
	var samples []*gp.Sample
	for _, name := range []string{"", "f"} {
		for _, sys := range []string{"", "f", "_Z1fv"} {
			for _, file := range []string{"", "f.c"} {
				id := uint64(len(fns) + 1)
				fn := &gp.Function{ID: id, Name: name, SystemName: sys, Filename: file}
				l := &gp.Location{ID: id, Address: 0x1000 * id, Line: []gp.Line{{Function: fn, Line: 1}}}
				fns, locs = append(fns, fn), append(locs, l)
				samples = append(samples, &gp.Sample{Location: []*gp.Location{l}, Value: []int64{int64(id)}})
			}
		}
	}
	want := &gp.Profile{SampleType: []*gp.ValueType{{Type: "samples", Unit: "count"}}, Sample: samples, Location: locs, Function: fns}
	var in bytes.Buffer
	if err := want.Write(&in); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 2; n++ {
		sameAsPprof(t, encodePprof(t, in.Bytes(), n), in.Bytes(), n, fmt.Sprintf("%d profiles", n))
	}
}
