package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// TestEmptyEntriesEveryRoute: profiles holding entries with every field
// empty (Go's threadcreate profile and a gperftools profile pprof
// symbolized against a stripped binary, both with an all-empty function;
// the hand-built testdata/otlp/empty-entries.pb.gz with an all-zero
// mapping too) come back as google/pprof reads the source through every
// route: OTLP and OTLP JSON, a bundle of the pprof source and of the OTLP
// file, and unpack to OTLP; without a warning.
func TestEmptyEntriesEveryRoute(t *testing.T) {
	for _, name := range []string{"go/threadcreate.pb.gz", "pprof/gperftools-stripped.pb.gz", "otlp/empty-entries.pb.gz"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src := filepath.Join("..", "..", "testdata", name)
			want := parse(t, mustRead(t, src))
			dir := t.TempDir()
			f := func(n string) string { return filepath.Join(dir, n) }
			quiet := func(args ...string) {
				t.Helper()
				if s := run(t, nil, ExitOK, args...); s.err.Len() != 0 {
					t.Errorf("pprofx %v: stderr %q", args, s.err)
				}
			}
			quiet("convert", src, "-o", f("a.otlp"))
			quiet("convert", src, "-o", f("a.otlp.json"))
			quiet("convert", src, "-o", f("a.otlp.gz"))
			quiet("merge", "-o", f("b.ppxb"), src, f("a.otlp"), f("a.otlp.json"))
			quiet("unpack", f("b.ppxb"), "--index", "1", "--to", "otlp", "-o", f("u.otlp"))
			outs := []string{}
			for i, in := range []string{"a.otlp", "a.otlp.json", "a.otlp.gz", "u.otlp"} {
				o := f(fmt.Sprintf("c%d.pb.gz", i))
				quiet("convert", f(in), "-o", o)
				outs = append(outs, o)
			}
			for i := 0; i < 3; i++ {
				o := f(fmt.Sprintf("u%d.pb.gz", i))
				quiet("unpack", f("b.ppxb"), "--index", fmt.Sprint(i), "-o", o)
				outs = append(outs, o)
			}
			for _, o := range outs {
				data, err := os.ReadFile(o)
				if err != nil {
					t.Fatal(err)
				}
				if d := pprofcmp.Diff(want, parse(t, data)); d != "" {
					t.Errorf("%s:\n%s", filepath.Base(o), d)
				}
			}
		})
	}
}
