package perfscript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/perfscript"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/viewtest"
)

// refused are the fixtures perfscript refuses, and where.
var refused = map[string]string{
	"inferno/empty-line.txt":       "perf script: line 6: a call chain frame outside a sample",
	"inferno/weird-stack-line.txt": "perf script: line 5: not a call chain frame",
}

func fixtures(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(viewtest.Root(), "testdata", "perf")
	var out []string
	for _, pat := range []string{"*.txt", "*/*.txt"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 25 {
		t.Fatalf("only %d perf fixtures in %s", len(out), dir)
	}
	return out
}

func rel(path string) string {
	return filepath.ToSlash(strings.TrimPrefix(path, filepath.Join(viewtest.Root(), "testdata", "perf")+string(filepath.Separator)))
}

// sampleLine matches a perf script sample line the plain way: a thread id
// (or pid/tid), then an event name ending in ':' before white space or the
// end of the line.
var sampleLine = regexp.MustCompile(`(^|\s)\d+(/\d+)?\s+(\[\d+\]\s+)?(\d+\.\d+:\s+)?(\d+\s+)?[A-Za-z_][^\s]*:(\s|$)`)

func decodeFile(t *testing.T, path string) *model.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := perfscript.Decode(f, perfscript.Options{})
	if err != nil {
		t.Fatalf("%s: %v", rel(path), err)
	}
	return p
}

// TestFixtures reads every perf fixture: detected as perf script, one
// sample per sample line, a valid profile that google/pprof's library
// reads back after pprofx writes it.
func TestFixtures(t *testing.T) {
	for _, path := range fixtures(t) {
		name := rel(path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := detect.Sniff(data[:min(len(data), detect.HeadSize)]); err != nil || res.Format != detect.PerfScript {
			t.Errorf("%s: detected %q, %v", name, res.Format, err)
		}
		if want, ok := refused[name]; ok {
			_, err := perfscript.Decode(bytes.NewReader(data), perfscript.Options{})
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s: error %v, want %q...", name, err, want)
			}
			continue
		}
		p := decodeFile(t, path)
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lines := 0
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" && l[0] != '#' && l[0] != '\t' && sampleLine.MatchString(l) {
				lines++
			}
		}
		if len(p.Samples) != lines {
			t.Errorf("%s: %d samples, %d sample lines", name, len(p.Samples), lines)
		}
		var counts int64
		for _, s := range p.Samples {
			for i, st := range p.SampleTypes {
				if strings.HasSuffix(p.String(st.Type), "_sample") {
					counts += s.Values()[i]
				}
			}
		}
		if counts != int64(lines) {
			t.Errorf("%s: the _sample types sum to %d, want %d", name, counts, lines)
		}
		var buf bytes.Buffer
		if err := pprof.Encode(&buf, p, pprof.EncodeOptions{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pp, err := profile.Parse(&buf)
		if err != nil {
			t.Fatalf("%s: google/pprof: %v", name, err)
		}
		if len(pp.Sample) != len(p.Samples) {
			t.Errorf("%s: google/pprof reads %d samples, want %d", name, len(pp.Sample), len(p.Samples))
		}
	}
}
