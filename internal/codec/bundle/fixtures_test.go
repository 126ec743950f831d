package bundle

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// pprofRoundTrip checks unpack(merge(ps))[i] against the originals as
// google/pprof reads them: each input is decoded with pprof.Decode, all go
// into one bundle, each comes back out through pprof.Encode and is parsed by
// google/pprof, and must equal google/pprof's parse of the input, every
// field and sample order included.
//
// With sameIDs, the location and function tables must also come back
// identical, ids included: the unpacked tables are in order of first use,
// which is the order Go's runtime/pprof writes them in.
func pprofRoundTrip(t *testing.T, names []string, inputs [][]byte, sameIDs bool) {
	t.Helper()
	var ps []*model.Profile
	for i, data := range inputs {
		p, err := pprof.Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		ps = append(ps, p)
	}
	data, err := bundleOf(ps...)
	if err != nil {
		t.Fatal(err)
	}
	got := unpackAll(t, data)
	for i, p := range got {
		if d := diffProfiles(ps[i], p); d != "" {
			t.Errorf("%s: model: %s", names[i], d)
		}
		orig, err := profile.ParseData(inputs[i])
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := pprof.Encode(&buf, p, pprof.EncodeOptions{}); err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		back, err := profile.ParseData(buf.Bytes())
		if err != nil {
			t.Fatalf("%s: google/pprof cannot read the unpacked profile: %v", names[i], err)
		}
		if d := pprofcmp.Diff(orig, back); d != "" {
			t.Errorf("%s: %s", names[i], d)
		}
		if sameIDs {
			if d := diffTables(orig, back); d != "" {
				t.Errorf("%s: %s", names[i], d)
			}
		}
	}
}

func TestFixturesThroughPprof(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/go/*.pb.gz")
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/go")
	}
	var inputs [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, data)
	}
	pprofRoundTrip(t, files, inputs, true)
}

// TestPprofToolFixturesThroughPprof covers profiles the pprof tool wrote
// (merged, and with -lines): their tables are not in first-use order, so
// only their content must match.
func TestPprofToolFixturesThroughPprof(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/pprof/*.pb.gz")
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/pprof")
	}
	var inputs [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, data)
	}
	pprofRoundTrip(t, files, inputs, false)
}

func TestHandBuiltThroughPprof(t *testing.T) {
	_, a := handPprof(t, 0)
	_, b := handPprof(t, 1)
	pprofRoundTrip(t, []string{"hand-built A", "hand-built B"}, [][]byte{a, b, a}, false)
}

func TestCorpusThroughPprof(t *testing.T) {
	files := corpusFiles(t)
	var inputs [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, data)
	}
	pprofRoundTrip(t, files, inputs, true)
}

// diffTables compares the location and function tables entry by entry, ids
// included.
func diffTables(a, b *profile.Profile) string {
	if len(a.Location) != len(b.Location) || len(a.Function) != len(b.Function) {
		return fmt.Sprintf("%d locations, %d functions; want %d, %d", len(b.Location), len(b.Function), len(a.Location), len(a.Function))
	}
	for j := range a.Location {
		x, y := a.Location[j], b.Location[j]
		if x.ID != y.ID || pprofcmp.Location(x) != pprofcmp.Location(y) {
			return fmt.Sprintf("location[%d]: id %d %s, want id %d %s", j, y.ID, pprofcmp.Location(y), x.ID, pprofcmp.Location(x))
		}
	}
	for j := range a.Function {
		if *a.Function[j] != *b.Function[j] {
			return fmt.Sprintf("function[%d]: %+v, want %+v", j, *b.Function[j], *a.Function[j])
		}
	}
	return ""
}
