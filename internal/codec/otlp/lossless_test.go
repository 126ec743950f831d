package otlp

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	gp "github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/fixture"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// pprofFixtures returns the real Go runtime profiles of testdata/go, the
// pprof tool's outputs of testdata/pprof (gperftools profiles symbolized,
// merged, with lines) and the hand-built testdata/otlp/rich.pb.gz and
// empty-entries.pb.gz.
func pprofFixtures(t testing.TB) []string {
	return fixture.PprofFiles(t, "otlp/rich.pb.gz", "otlp/empty-entries.pb.gz")
}

// decodedPprofFixtures returns pprofFixtures as pprofx's own pprof
// decoder reads them.
func decodedPprofFixtures(t testing.TB) []*model.Profile {
	t.Helper()
	var ps []*model.Profile
	for _, name := range pprofFixtures(t) {
		ps = append(ps, fixture.DecodePprof(t, name))
	}
	return ps
}

type codec struct {
	name string
	enc  func(w *bytes.Buffer, ps []*model.Profile, o EncodeOptions) error
}

var codecs = []codec{
	{"binary", func(w *bytes.Buffer, ps []*model.Profile, o EncodeOptions) error { return Encode(w, ps, o) }},
	{"json", func(w *bytes.Buffer, ps []*model.Profile, o EncodeOptions) error { return EncodeJSON(w, ps, o) }},
	{"jsonl", func(w *bytes.Buffer, ps []*model.Profile, o EncodeOptions) error { return EncodeJSONLines(w, ps, o) }},
	{"framed", func(w *bytes.Buffer, ps []*model.Profile, o EncodeOptions) error { return EncodeFramed(w, ps, o) }},
}

// toPprof writes a decoded profile as pprof (folding what pprof has no
// field for, as the CLI does) and reads it with google/pprof.
func toPprof(t testing.TB, p *model.Profile) *gp.Profile {
	t.Helper()
	pprofextended.FoldForPprof(p, func(s string) { t.Errorf("FoldForPprof warned: %s", s) })
	var out bytes.Buffer
	if err := pprof.Encode(&out, p, pprof.EncodeOptions{Warn: func(s string) { t.Errorf("pprof.Encode warned: %s", s) }}); err != nil {
		t.Fatal(err)
	}
	got, err := gp.ParseData(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestLosslessPprof: pprof -> v1development (binary, JSON, JSON lines,
// framed; plain and gzip) -> pprof is the same profile under google/pprof's
// reading, sample order included, with no warning on the way.
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
		for _, c := range codecs {
			for _, gz := range []bool{false, true} {
				t.Run(filepath.Base(name)+"/"+c.name+map[bool]string{true: "-gzip"}[gz], func(t *testing.T) {
					m, err := pprof.Decode(src)
					if err != nil {
						t.Fatal(err)
					}
					var buf bytes.Buffer
					warn := func(s string) { t.Errorf("writer warned: %s", s) }
					if err := c.enc(&buf, []*model.Profile{m}, EncodeOptions{Gzip: gz, Warn: warn}); err != nil {
						t.Fatal(err)
					}
					ps, err := Decode(buf.Bytes(), DecodeOptions{Warn: func(s string) { t.Errorf("reader warned: %s", s) }})
					if err != nil {
						t.Fatal(err)
					}
					if len(ps) != 1 {
						t.Fatalf("%d profiles read back, want 1", len(ps))
					}
					if d := pprofcmp.Diff(want, toPprof(t, ps[0])); d != "" {
						t.Error(d)
					}
				})
			}
		}
	}
}

// TestDeterministic: the same input gives byte-identical output, and
// encoding what was read gives the same bytes again.
func TestDeterministic(t *testing.T) {
	for _, name := range pprofFixtures(t) {
		src, _ := os.ReadFile(name)
		enc := func(p *model.Profile) []byte {
			var buf bytes.Buffer
			if err := Encode(&buf, []*model.Profile{p}, EncodeOptions{}); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}
		m1, _ := pprof.Decode(src)
		m2, _ := pprof.Decode(src)
		a, b := enc(m1), enc(m2)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two encodings differ", name)
		}
		ps, err := Decode(a, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c := enc(ps[0]); !bytes.Equal(a, c) {
			t.Errorf("%s: re-encoding what was read differs (%d vs %d bytes)", name, len(a), len(c))
		}
	}
}
