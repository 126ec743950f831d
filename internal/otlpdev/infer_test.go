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
