package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/view/top"
)

// TestConvertViews: the output name picks folded, speedscope or HTML, and
// folded output converts back to pprof with the sample type given.
func TestConvertViews(t *testing.T) {
	dir := t.TempDir()
	for name, check := range map[string]func([]byte) bool{
		"a.folded": func(b []byte) bool {
			return bytes.Contains(b, []byte("main.busy;")) && bytes.HasSuffix(b, []byte("\n"))
		},
		"a.collapsed":       func(b []byte) bool { return bytes.Contains(b, []byte("main.busy;")) },
		"a.speedscope.json": func(b []byte) bool { return json.Valid(b) && bytes.Contains(b, []byte(`"type":"sampled"`)) },
		"a.html":            func(b []byte) bool { return bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) },
	} {
		s := newStreams(nil)
		out := filepath.Join(dir, name)
		if code := Main([]string{"convert", cpuFixture, "-o", out, "--sample-type", "samples"}, s.ios); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, s.err)
		}
		data, _ := os.ReadFile(out)
		if !check(data) {
			t.Errorf("%s: unexpected output %.100q", name, data)
		}
		if !strings.Contains(s.err.String(), "warning:") && strings.Contains(name, "folded") {
			t.Errorf("%s: no warning about what folded cannot hold: %q", name, s.err)
		}
	}
	// Folded back to pprof, named.
	s := newStreams(nil)
	back := filepath.Join(dir, "back.pb.gz")
	if code := Main([]string{"convert", filepath.Join(dir, "a.folded"), "-o", back, "--sample-type", "cpu/nanoseconds"}, s.ios); code != 0 {
		t.Fatalf("exit %d: %s", code, s.err)
	}
	data, _ := os.ReadFile(back)
	p, err := pprof.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if st := p.SampleTypes[0]; p.String(st.Type) != "cpu" || p.String(st.Unit) != "nanoseconds" {
		t.Errorf("sample type %s/%s", p.String(st.Type), p.String(st.Unit))
	}
	// A folded file with a bad line: its line number, exit 1.
	bad := filepath.Join(dir, "bad.folded")
	os.WriteFile(bad, []byte("a;b 1\na;c x\n"), 0o644)
	s = newStreams(nil)
	if code := Main([]string{"convert", bad, "-o", filepath.Join(dir, "x.pb.gz")}, s.ios); code != 1 || !strings.Contains(s.err.String(), "bad.folded: line 2: ") {
		t.Errorf("exit %d, stderr %q", code, s.err)
	}
	// An unknown sample type.
	s = newStreams(nil)
	if code := Main([]string{"convert", cpuFixture, "-o", filepath.Join(dir, "y.folded"), "--sample-type", "nope"}, s.ios); code != 1 || !strings.Contains(s.err.String(), `--sample-type "nope"`) {
		t.Errorf("exit %d, stderr %q", code, s.err)
	}
	// ... named as the input's, for every output, before anything is written.
	for _, name := range []string{"y.folded", "y.speedscope.json", "y.html", "y.pb.gz"} {
		s = newStreams(nil)
		out := filepath.Join(dir, name)
		code := Main([]string{"convert", cpuFixture, "-o", out, "--sample-type", "nope"}, s.ios)
		if want := "pprofx: " + cpuFixture + `: --sample-type "nope": the profile has`; code != 1 || !strings.HasPrefix(s.err.String(), want) {
			t.Errorf("%s: exit %d, stderr %q, want %q...", name, code, s.err, want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s written after the error", name)
		}
	}
}

// TestTop: `pprofx top` prints top.Write's table of the chosen sample type.
func TestTop(t *testing.T) {
	s := newStreams(nil)
	if code := Main([]string{"top", "../../testdata/go/heap.pb.gz", "-n", "3", "--sample-type", "alloc_space"}, s.ios); code != 0 {
		t.Fatalf("exit %d: %s", code, s.err)
	}
	data, _ := os.ReadFile("../../testdata/go/heap.pb.gz")
	p, err := pprof.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	tab, _ := top.Compute(p, top.Options{SampleType: "alloc_space"})
	var want bytes.Buffer
	top.Write(&want, tab, 3)
	if s.out.String() != want.String() || strings.Count(s.out.String(), "\n") != 7 {
		t.Errorf("got\n%s\nwant\n%s", s.out, want.String())
	}
	s = newStreams(nil)
	if code := Main([]string{"top", cpuFixture, "--sample-type", "nope"}, s.ios); code != 1 {
		t.Errorf("unknown sample type: exit %d", code)
	}
	s = newStreams(nil)
	if code := Main([]string{"top", cpuFixture, "-n", "-1"}, s.ios); code != 2 {
		t.Errorf("-n -1: exit %d", code)
	}
}
