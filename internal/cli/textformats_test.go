package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// textInputs are real files of the legacy text, V8 .cpuprofile and
// speedscope formats, with the --index each needs.
func textInputs(t *testing.T) map[string]string {
	t.Helper()
	in := map[string]string{}
	for _, pat := range []string{"legacy/*", "cpuprofile/*.cpuprofile", "speedscope/*.speedscope.json"} {
		files, _ := filepath.Glob(filepath.Join("../../testdata", pat))
		for _, f := range files {
			if !strings.HasSuffix(f, ".go") {
				in[f] = ""
			}
		}
	}
	in["../../testdata/speedscope/two-sampled.speedscope.json"] = "1"
	if len(in) < 22 {
		t.Fatalf("%d inputs", len(in))
	}
	return in
}

// TestTextFormatsEveryOutput: every output works on every new input
// format, and OTLP keeps what pprof output holds.
func TestTextFormatsEveryOutput(t *testing.T) {
	dir := t.TempDir()
	for f, index := range textInputs(t) {
		args := func(more ...string) []string {
			if index != "" {
				more = append(more, "--index", index)
			}
			return more
		}
		pb := run(t, nil, ExitOK, args("convert", f, "-o", "-", "--to", "pprof")...)
		ref := parse(t, pb.out.Bytes())
		if len(ref.Sample) == 0 {
			t.Errorf("%s: no samples", f)
		}
		for _, to := range []string{"otlp", "otlp-json", "folded", "speedscope", "html"} {
			out := filepath.Join(dir, "out."+to)
			run(t, nil, ExitOK, args("convert", f, "-o", out, "--to", to)...)
			data, err := os.ReadFile(out)
			if err != nil || len(data) == 0 {
				t.Fatalf("%s to %s: %d bytes, %v", f, to, len(data), err)
			}
			if to == "otlp" || to == "otlp-json" {
				back := run(t, nil, ExitOK, "convert", out, "-o", "-", "--to", "pprof")
				if d := pprofcmp.Diff(ref, parse(t, back.out.Bytes())); d != "" {
					t.Errorf("%s through %s differs:\n%s", f, to, d)
				}
			}
		}
		top := run(t, nil, ExitOK, args("top", f, "-n", "3")...)
		if !strings.Contains(top.out.String(), "flat%") {
			t.Errorf("%s: top printed %q", f, top.out.String())
		}
	}
}

// TestTextFormatsNamed: what pprofx detects and does not read is named.
func TestTextFormatsNamed(t *testing.T) {
	dir := t.TempDir()
	for in, want := range map[string]string{
		`{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}]}`:        "detected Chrome trace-event JSON, not supported yet",
		`{"version":1.2,"mode":"cpu","interval":1000,"samples":0,"frames":{},"raw":[]}`: "detected stackprof JSON (Ruby), not supported yet",
		`{"samples":[1],"profiles":[]}`:                                                 "unknown format",
	} {
		f := filepath.Join(dir, "in.json")
		if err := os.WriteFile(f, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		s := run(t, nil, ExitFail, "convert", f, "-o", filepath.Join(dir, "out.pb.gz"))
		if !strings.Contains(s.err.String(), want) {
			t.Errorf("%s: stderr %q, want %q", in, s.err.String(), want)
		}
	}
}
