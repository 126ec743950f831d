package otlp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gp "github.com/google/pprof/profile"

	"google.golang.org/protobuf/proto"

	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// TestFlagsWritten: each pprof.mapping.has_* flag that is true is written
// (absent reads false), for every combination of the four flags, on a
// mapping whose lines have files and line numbers and on one whose lines
// have neither, in one profile and in a message of two; each round trips.
func TestFlagsWritten(t *testing.T) {
	fn := &gp.Function{ID: 1, Name: "f", SystemName: "f", Filename: "f.c"}
	bare := &gp.Function{ID: 2, Name: "g"}
	full := &gp.Mapping{ID: 1, Start: 0x1000, Limit: 0x2000, File: "a"}
	none := &gp.Mapping{ID: 2, Start: 0x2000, Limit: 0x3000, File: "b"}
	unused := &gp.Mapping{ID: 3, Start: 0x3000, Limit: 0x4000, File: "c"}
	locs := []*gp.Location{
		{ID: 1, Mapping: full, Address: 0x1010, Line: []gp.Line{{Function: fn, Line: 3}}},
		{ID: 2, Mapping: full, Address: 0x1020, Line: []gp.Line{{Function: bare}}},
		{ID: 3, Mapping: none, Address: 0x2010, Line: []gp.Line{{Function: bare}}},
	}
	keys := []string{AttrHasFunctions, AttrHasFilenames, AttrHasLineNumbers, AttrHasInlineFrames}
	for bits := 0; bits < 16; bits++ {
		want := &gp.Profile{
			SampleType: []*gp.ValueType{{Type: "samples", Unit: "count"}},
			Sample:     []*gp.Sample{{Location: locs[:2], Value: []int64{1}}, {Location: locs[2:], Value: []int64{2}}},
			Mapping:    []*gp.Mapping{full, none, unused}, Location: locs, Function: []*gp.Function{fn, bare},
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
			msgs, err := Messages(out, DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d := msgs[0].Dictionary
			for i, m := range d.MappingTable[1:] {
				var got []string
				for _, a := range m.AttributeIndices {
					kv := d.AttributeTable[a]
					if k := d.StringTable[kv.KeyStrindex]; strings.HasPrefix(k, "pprof.mapping.") {
						if !kv.Value.GetBoolValue() {
							t.Errorf("flags %04b: mapping %d: %s written false", bits, i+1, k)
						}
						got = append(got, k)
					}
				}
				var w []string
				for k, key := range keys {
					if bits&(1<<k) != 0 {
						w = append(w, key)
					}
				}
				if strings.Join(got, ",") != strings.Join(w, ",") {
					t.Errorf("flags %04b, %d profiles: mapping %d has %v, want %v", bits, n, i+1, got, w)
				}
			}
			sameAsPprof(t, out, in.Bytes(), n, fmt.Sprintf("flags %04b, %d profiles", bits, n))
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
	if d := diffPprof(t, out, in, n); d != "" {
		t.Errorf("%s: %s", what, d)
	}
}

// diffPprof is what differs between what pprofx reads from out (n
// profiles) and the pprof bytes in as google/pprof reads them.
func diffPprof(t *testing.T, out, in []byte, n int) string {
	t.Helper()
	ps, err := Decode(out, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != n {
		return fmt.Sprintf("%d profiles read back, want %d", len(ps), n)
	}
	want, err := gp.ParseData(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if d := pprofcmp.Diff(want, toPprof(t, p)); d != "" {
			return d
		}
	}
	return ""
}

// TestPlantedOmissionFails: the reader infers nothing, so a file that
// leaves out a function's system name (equal to its name) or a mapping's
// true has_functions reads as another profile than the source: the
// round-trip tests above would catch a writer that left them out.
func TestPlantedOmissionFails(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "go", "goroutine.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	out := encodePprof(t, src, 1)
	if d := diffPprof(t, out, src, 1); d != "" {
		t.Fatalf("the unplanted output differs already: %s", d)
	}
	plant := func(what string, edit func(d *pb.ProfilesDictionary) bool) {
		msgs, err := Messages(out, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !edit(msgs[0].Dictionary) {
			t.Fatalf("%s: nothing to plant in the fixture", what)
		}
		b, err := proto.Marshal(msgs[0])
		if err != nil {
			t.Fatal(err)
		}
		if diffPprof(t, b, src, 1) == "" {
			t.Errorf("%s: read as the source: the reader inferred what the file left out", what)
		}
	}
	plant("system name left out", func(d *pb.ProfilesDictionary) bool {
		for _, f := range d.FunctionTable[1:] {
			if f.SystemNameStrindex != 0 && f.SystemNameStrindex == f.NameStrindex {
				f.SystemNameStrindex = 0
				return true
			}
		}
		return false
	})
	plant("has_functions left out", func(d *pb.ProfilesDictionary) bool {
		for _, m := range d.MappingTable[1:] {
			for j, a := range m.AttributeIndices {
				if d.StringTable[d.AttributeTable[a].KeyStrindex] == AttrHasFunctions {
					m.AttributeIndices = append(m.AttributeIndices[:j:j], m.AttributeIndices[j+1:]...)
					return true
				}
			}
		}
		return false
	})
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

// TestSystemNameWritten: a Go profile's functions (system name = name)
// are written with their system names, and every combination of an empty,
// equal and different name and system name, with and without a file,
// round trips, in one profile and in a message of two.
func TestSystemNameWritten(t *testing.T) {
	msgs, err := Messages(encodeFixture(t, "go", "goroutine.pb.gz"), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := msgs[0].Dictionary
	for i, f := range d.FunctionTable[1:] {
		if f.SystemNameStrindex == 0 || d.StringTable[f.SystemNameStrindex] != d.StringTable[f.NameStrindex] {
			t.Errorf("function_table[%d]: system name %q, want the name %q", i+1, d.StringTable[f.SystemNameStrindex], d.StringTable[f.NameStrindex])
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
