package pprofextended

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gp "github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/testutil/fixture"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// pprofFixtures returns the real Go runtime profiles of testdata/go, the
// pprof tool's outputs of testdata/pprof and the hand-built
// testdata/otlp/rich.pb.gz.
func pprofFixtures(t testing.TB) []string {
	return fixture.PprofFiles(t, "otlp/rich.pb.gz")
}

// TestLosslessPprof: pprof -> OTLP (binary and JSON, plain and gzip) ->
// pprof is identical under google/pprof's reading, sample order included.
func TestLosslessPprof(t *testing.T) {
	for _, name := range pprofFixtures(t) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := gp.ParseData(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []EncodeOptions{{}, {JSON: true}, {Gzip: true}, {JSON: true, Gzip: true}} {
			t.Run(filepath.Base(name)+map[bool]string{false: "/binary", true: "/json"}[o.JSON]+map[bool]string{false: "", true: "-gzip"}[o.Gzip], func(t *testing.T) {
				m, err := pprof.Decode(src)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := Encode(&buf, singleton(m), o); err != nil {
					t.Fatal(err)
				}
				back := decodeOne(t, buf.Bytes())
				FoldForPprof(back, func(s string) { t.Errorf("FoldForPprof warned: %s", s) })
				var out bytes.Buffer
				// The profile id is the one the OTLP writer derived from the
				// content: FoldForPprof clears it, so nothing at all is lost
				// and nothing is warned about.
				if back.ProfileID != nil {
					t.Errorf("derived profile id %x not recognised", back.ProfileID)
				}
				warn := func(s string) { t.Errorf("pprof.Encode warned: %s", s) }
				if err := pprof.Encode(&out, back, pprof.EncodeOptions{Warn: warn}); err != nil {
					t.Fatal(err)
				}
				got, err := gp.ParseData(out.Bytes())
				if err != nil {
					t.Fatal(err)
				}
				if d := pprofcmp.Diff(want, got); d != "" {
					t.Error(d)
				}
			})
		}
	}
}

// TestEncodeFixedPoint: the OTLP written for a profile read back from
// pprofx's own OTLP is byte for byte the same (which is what lets
// FoldForPprof recognise a derived profile id).
func TestEncodeFixedPoint(t *testing.T) {
	for _, name := range pprofFixtures(t) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := pprof.Decode(src)
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		if err := Encode(&a, singleton(m), EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&b, singleton(decodeOne(t, a.Bytes())), EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: encode(decode(encode(p))) differs from encode(p)", filepath.Base(name))
		}
	}
}

// TestFoldKeepsForeignProfileID: an id pprofx did not derive is real data;
// FoldForPprof leaves it for the pprof writer, which warns that it drops it.
func TestFoldKeepsForeignProfileID(t *testing.T) {
	src, err := os.ReadFile(pprofFixtures(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	m, err := pprof.Decode(src)
	if err != nil {
		t.Fatal(err)
	}
	set := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	var buf bytes.Buffer
	if err := Encode(&buf, singleton(m), EncodeOptions{ProfileID: set}); err != nil {
		t.Fatal(err)
	}
	back := decodeOne(t, buf.Bytes())
	FoldForPprof(back, func(s string) { t.Errorf("FoldForPprof warned: %s", s) })
	if !bytes.Equal(back.ProfileID, set) {
		t.Fatalf("profile id %x, want %x kept", back.ProfileID, set)
	}
	var warned []string
	if err := pprof.Encode(&bytes.Buffer{}, back, pprof.EncodeOptions{Warn: func(s string) { warned = append(warned, s) }}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "profile id") {
		t.Fatalf("warnings %q, want one about the profile id", warned)
	}
}
