package legacytext

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

func fixtures(t testing.TB) []string {
	files, _ := filepath.Glob("../../../testdata/legacy/*")
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") {
			out = append(out, f)
		}
	}
	if len(out) < 15 {
		t.Fatalf("%d fixtures", len(out))
	}
	return out
}

// read decodes a fixture and reads the result back through google/pprof.
// ref is google/pprof's reading of the fixture, as its -proto writes it
// (profile.Write, then Parse: a numeric label of value 0 and no unit,
// such as "bytes" of a Go heap record of size 0, is not written).
func read(t *testing.T, name string) (ref, got *profile.Profile) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if ref, err = profile.ParseData(data); err != nil {
		t.Fatalf("%s: google/pprof: %v", name, err)
	}
	var rb bytes.Buffer
	if err := ref.Write(&rb); err != nil {
		t.Fatal(err)
	}
	if ref, err = profile.Parse(&rb); err != nil {
		t.Fatal(err)
	}
	m, err := Decode(data, Options{Warn: func(s string) { t.Errorf("%s: warning %s", name, s) }})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var buf bytes.Buffer
	if err := pprof.Encode(&buf, m, pprof.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err = profile.Parse(&buf); err != nil {
		t.Fatal(err)
	}
	return ref, got
}

// withoutEnrichments takes out of got what Decode adds to google/pprof's
// reading, and nothing else: the lines of locations ref has none for, and
// the labels ref's sample has no key for.
func withoutEnrichments(ref, got *profile.Profile) {
	bare := map[uint64]bool{}
	for _, l := range ref.Location {
		if len(l.Line) == 0 {
			bare[l.Address] = true
		}
	}
	for _, l := range got.Location {
		if bare[l.Address] {
			l.Line = nil
		}
	}
	for i, s := range got.Sample {
		if i >= len(ref.Sample) {
			break
		}
		for k := range s.Label {
			if _, ok := ref.Sample[i].Label[k]; !ok {
				delete(s.Label, k)
			}
		}
		for k := range s.NumLabel {
			if _, ok := ref.Sample[i].NumLabel[k]; !ok {
				delete(s.NumLabel, k)
				delete(s.NumUnit, k)
			}
		}
	}
}

// TestSameAsPprof: every fixture reads as google/pprof reads it, but for
// the enrichments the package documents.
func TestSameAsPprof(t *testing.T) {
	for _, f := range fixtures(t) {
		ref, got := read(t, f)
		if len(ref.Sample) == 0 {
			t.Errorf("%s: no samples", f)
		}
		withoutEnrichments(ref, got)
		if d := pprofcmp.Diff(ref, got); d != "" {
			t.Errorf("%s differs from google/pprof's reading:\n%s", f, d)
		}
	}
}

func frameNames(p *profile.Profile) map[string]string {
	names := map[string]string{}
	for _, l := range p.Location {
		for _, ln := range l.Line {
			names[ln.Function.Name] = ln.Function.Filename
		}
	}
	return names
}

// TestGoFrames: the functions and files of Go's debug=1 comments are on the
// locations, where google/pprof's reading has none.
func TestGoFrames(t *testing.T) {
	for _, c := range []struct{ file, fn, src string }{
		{"go-heap.txt", "main.allocSmall", "internal/tools/genlegacy/main.go"},
		{"go-goroutine.txt", "main.park.func1", "internal/tools/genlegacy/main.go"},
		{"go-mutex.txt", "sync.(*Mutex).Unlock", "src/sync/mutex.go"},
		{"go-block.txt", "main.contend", "internal/tools/genlegacy/main.go"},
	} {
		ref, got := read(t, filepath.Join("../../../testdata/legacy", c.file))
		if n := len(frameNames(ref)); n != 0 {
			t.Errorf("%s: google/pprof names %d functions", c.file, n)
		}
		names := frameNames(got)
		if src, ok := names[c.fn]; !ok || !strings.HasSuffix(src, c.src) {
			t.Errorf("%s: %s in %q; functions %v", c.file, c.fn, src, names)
		}
		for _, l := range got.Location {
			for _, ln := range l.Line {
				if ln.Line <= 0 {
					t.Errorf("%s: %s without a line number", c.file, ln.Function.Name)
				}
			}
		}
	}
}

// TestGoLabels: the goroutine profile's "# labels" comments are labels.
func TestGoLabels(t *testing.T) {
	_, got := read(t, "../../../testdata/legacy/go-goroutine.txt")
	var workers []string
	for _, s := range got.Sample {
		workers = append(workers, s.Label["worker"]...)
	}
	slices.Sort(workers)
	if !slices.Equal(workers, []string{"a", "b", "c"}) {
		t.Fatalf("worker labels %v", workers)
	}
}

// TestThreadNames: threadz' thread names and ids are labels, one value per
// thread counted in the sample.
func TestThreadNames(t *testing.T) {
	ref, got := read(t, "../../../testdata/legacy/cppbench.thread")
	var names [][]string
	for i, s := range got.Sample {
		names = append(names, s.Label["thread"])
		if int64(len(s.NumLabel["thread_id"])) != ref.Sample[i].Value[0] {
			t.Errorf("sample %d: ids %v for %d threads", i, s.NumLabel["thread_id"], ref.Sample[i].Value[0])
		}
	}
	want := [][]string{{"main"}, {"thread1"}, {"thread2", "thread3"}}
	if !slices.EqualFunc(names, want, slices.Equal[[]string]) {
		t.Fatalf("thread names %v, want %v", names, want)
	}
}

func TestErrors(t *testing.T) {
	good, _ := os.ReadFile("../../../testdata/legacy/gobench.heap")
	lines := strings.SplitAfter(string(good), "\n")
	bad := strings.Join(lines[:3], "") + "1: x [3: 4] @ 0x1\n" + strings.Join(lines[3:], "")
	for in, want := range map[string]string{
		bad: "legacy text: line 4: ",
		"heap profile: 1: 2 [3: 4] @ heap/1048576\n1: x @ 0x1\n": "legacy text: line 2: ",
		"--- threadz 1 ---\x00":                                  "legacy text: byte 17: a NUL byte",
	} {
		_, err := Decode([]byte(in), Options{})
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.60q: %v, want %q…", in, err, want)
		}
	}
}
