package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
	"github.com/pprofx/pprofx/internal/testutil/pprofref"
)

const td = "../../testdata/"

// asPprofFile gives pprof a file of the fixture it reads as pprofx does:
// a pprof file as it is, anything else (gperftools, OTLP) converted.
func asPprofFile(t *testing.T, name string) string {
	t.Helper()
	if strings.HasSuffix(name, ".pb.gz") {
		return name
	}
	in, err := formats.Read(bytes.NewReader(mustRead(t, name)), formats.ReadOptions{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := pprof.Encode(&buf, in.Items[0].Profile, pprof.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(name)+".pb.gz")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// tableRows are the lines of a -top report from its column header on.
func tableRows(out string) string {
	if i := strings.Index(out, "      flat  flat%"); i >= 0 {
		return out[i:]
	}
	return "<no table>\n" + out
}

// TestDiffAndTopMatchPprof: `pprofx diff` writes the profile pprof -proto
// -diff_base (-base, -normalize, filters) writes, and `pprofx top
// --diff-base` prints pprof -top -diff_base's table, row for row.
func TestDiffAndTopMatchPprof(t *testing.T) {
	pprofref.Command(t)
	for _, c := range []struct {
		base, new string
		ours      []string // pprofx flags
		theirs    []string // pprof flags
	}{
		{"corpus/cpu-00.pb.gz", "corpus/cpu-01.pb.gz", nil, nil},
		{"corpus/cpu-02.pb.gz", "corpus/cpu-03.pb.gz", []string{"--subtract"}, []string{"-base"}},
		{"corpus/heap-00.pb.gz", "corpus/heap-05.pb.gz", []string{"--normalize", "--sample-type", "alloc_space"}, []string{"-normalize", "-sample_index=alloc_space"}},
		{"gperftools/le64-100hz.prof", "gperftools/le64-hot.prof", nil, nil},
		{"otlp-dev/cpu.otlp", "corpus/cpu-04.pb.gz", []string{"--focus", "main\\.", "--hide", "^runtime\\."}, []string{"-focus=main\\.", "-hide=^runtime\\."}},
		{"corpus/cpu-08.pb.gz", "corpus/cpu-11.pb.gz", []string{"--tagfocus", "workload=compress,sort", "--prune-from", "^compress/flate\\."}, []string{"-tagfocus=workload=compress,sort", "-prune_from=^compress/flate\\."}},
	} {
		name := c.base + " " + c.new + " " + strings.Join(c.ours, " ")
		t.Run(name, func(t *testing.T) {
			base, newp := td+c.base, td+c.new
			baseFlag := "-diff_base="
			if len(c.theirs) > 0 && c.theirs[0] == "-base" {
				baseFlag = "-base="
				c.theirs = c.theirs[1:]
			}
			pbase, pnew := asPprofFile(t, base), asPprofFile(t, newp)

			// diff -o OUT.pb.gz
			out := filepath.Join(t.TempDir(), "d.pb.gz")
			s := newStreams(nil)
			ours := c.ours
			if i := indexOf(ours, "--sample-type"); i >= 0 {
				ours = append(append([]string{}, ours[:i]...), ours[i+2:]...)
			}
			if code := Main(append([]string{"diff", base, newp, "-o", out}, ours...), s.ios); code != 0 {
				t.Fatalf("diff: exit %d: %s", code, s.err)
			}
			got, err := profile.ParseData(mustRead(t, out))
			if err != nil {
				t.Fatal(err)
			}
			theirs := c.theirs
			if i := indexOfPrefix(theirs, "-sample_index="); i >= 0 {
				theirs = append(append([]string{}, theirs[:i]...), theirs[i+1:]...)
			}
			want := pprofref.Proto(t, append(theirs, baseFlag+pbase, pnew)...)
			if d := pprofcmp.Diff(got, want); d != "" {
				t.Errorf("diff differs from pprof -proto (pprofx first):\n%s", d)
			}

			// top --diff-base
			s = newStreams(nil)
			if code := Main(append([]string{"top", "--diff-base", base, newp}, c.ours...), s.ios); code != 0 {
				t.Fatalf("top: exit %d: %s", code, s.err)
			}
			ref := string(pprofref.Run(t, append(append([]string{"-top", "-nodefraction=0"}, c.theirs...), baseFlag+pbase, pnew)...))
			if g, w := tableRows(s.out.String()), tableRows(ref); g != w {
				t.Errorf("top differs from pprof -top\npprofx:\n%s\npprof:\n%s", g, w)
			}
			if strings.Count(tableRows(ref), "\n") < 3 {
				t.Errorf("pprof's table is empty: the case tests nothing")
			}
		})
	}
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

func indexOfPrefix(ss []string, p string) int {
	for i, x := range ss {
		if strings.HasPrefix(x, p) {
			return i
		}
	}
	return -1
}

// TestTopFiltersMatchPprof: top with filters prints pprof's table, its
// percentages of the total before filtering.
func TestTopFiltersMatchPprof(t *testing.T) {
	pprofref.Command(t)
	for _, c := range []struct {
		file         string
		ours, theirs []string
	}{
		{"go/cpu.pb.gz", []string{"--focus", "sha256", "--hide", "runtime"}, []string{"-focus=sha256", "-hide=runtime"}},
		{"symbolize/ref/cxxprog.pb.gz", []string{"--show", "geo::", "--show-from", "main"}, []string{"-show=geo::", "-show_from=main"}},
		{"go/heap.pb.gz", []string{"--tagfocus", "bytes=1kb:", "--sample-type", "alloc_space"}, []string{"-tagfocus=bytes=1kb:", "-sample_index=alloc_space"}},
	} {
		t.Run(c.file+" "+strings.Join(c.ours, " "), func(t *testing.T) {
			s := newStreams(nil)
			if code := Main(append([]string{"top", td + c.file}, c.ours...), s.ios); code != 0 {
				t.Fatalf("exit %d: %s", code, s.err)
			}
			ref := string(pprofref.Run(t, append(append([]string{"-top", "-nodefraction=0"}, c.theirs...), td+c.file)...))
			if g, w := tableRows(s.out.String()), tableRows(ref); g != w {
				t.Errorf("differs\npprofx:\n%s\npprof:\n%s", g, w)
			}
		})
	}
}

func TestDiffErrors(t *testing.T) {
	// No shared sample type: exit 1, one line naming both files.
	s := newStreams(nil)
	code := Main([]string{"diff", td + "go/cpu.pb.gz", td + "go/heap.pb.gz", "-o", filepath.Join(t.TempDir(), "x.pb.gz")}, s.ios)
	if code != ExitFail || strings.Count(s.err.String(), "\n") != 1 ||
		!strings.Contains(s.err.String(), "go/cpu.pb.gz") || !strings.Contains(s.err.String(), "go/heap.pb.gz") {
		t.Errorf("exit %d, stderr %q", code, s.err)
	}
	// A bad regexp: a usage error naming its flag, on every command.
	for _, args := range [][]string{
		{"diff", td + "go/cpu.pb.gz", td + "go/cpu.pb.gz", "-o", "-", "--focus", "("},
		{"convert", td + "go/cpu.pb.gz", "-o", "-", "--show-from", "[a"},
		{"top", td + "go/cpu.pb.gz", "--tagignore", "k=("},
		{"push", td + "go/cpu.pb.gz", "--dry-run", "-", "--prune-from", "(?"},
	} {
		s := newStreams(nil)
		code := Main(args, s.ios)
		flag := args[len(args)-2]
		if code != ExitUsage || !strings.Contains(s.err.String(), flag+":") {
			t.Errorf("%v: exit %d, stderr %q", args, code, s.err)
		}
	}
}

// TestDiffHTML: diff -o x.html writes the differential flame graph, the
// same page with or without --subtract, and no console on standard
// output.
func TestDiffHTML(t *testing.T) {
	dir := t.TempDir()
	var pages [][]byte
	for _, extra := range [][]string{nil, {"--subtract"}} {
		out := filepath.Join(dir, "d.html")
		s := newStreams(nil)
		args := append([]string{"diff", td + "corpus/cpu-00.pb.gz", td + "corpus/cpu-01.pb.gz", "-o", out}, extra...)
		if code := Main(args, s.ios); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, s.err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || !bytes.Contains(b, []byte(`"diff":{"base":"`+td+`corpus/cpu-00.pb.gz"`)) ||
			!bytes.Contains(b, []byte("function diffColor")) || s.out.Len() != 0 {
			t.Fatalf("%v: not a differential page", args)
		}
		pages = append(pages, b)
	}
	if !bytes.Equal(pages[0], pages[1]) {
		t.Error("--subtract changed the page")
	}
}
