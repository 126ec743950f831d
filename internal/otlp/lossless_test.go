package otlp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gp "github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/pprof"
	"github.com/pprofx/pprofx/internal/pprofcmp"
)

// pprofFixtures returns the real Go runtime profiles of testdata/go, the
// pprof tool's outputs of testdata/pprof and the hand-built
// testdata/otlp/rich.pb.gz.
func pprofFixtures(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "go", "*.pb.gz"))
	tool, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "pprof", "*.pb.gz"))
	files = append(files, tool...)
	files = append(files, filepath.Join("..", "..", "testdata", "otlp", "rich.pb.gz"))
	return files
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
				// The profile id is the OTLP writer's, not the source's: the
				// pprof writer drops it, and says so. Nothing else may go.
				warn := func(s string) {
					if !strings.Contains(s, "profile id") {
						t.Errorf("pprof.Encode warned: %s", s)
					}
				}
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
