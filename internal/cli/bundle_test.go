package cli

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

func goFixtures(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("../../testdata/go/*.pb.gz")
	if len(files) < 3 {
		t.Fatal("no fixtures in testdata/go")
	}
	return files
}

// run calls Main and fails the test unless it exits with want.
func run(t *testing.T, stdin []byte, want int, args ...string) streams {
	t.Helper()
	s := newStreams(stdin)
	if code := Main(args, s.ios); code != want {
		t.Fatalf("pprofx %s: exit %d, want %d; stderr %q", strings.Join(args, " "), code, want, s.err)
	}
	return s
}

func TestMergeListUnpack(t *testing.T) {
	files := goFixtures(t)
	dir := t.TempDir()
	b := filepath.Join(dir, "all.ppxb")
	run(t, nil, ExitOK, append([]string{"merge", "-o", b}, files...)...)

	s := run(t, nil, ExitOK, "list", "--json", b)
	lines := strings.Split(strings.TrimSpace(s.out.String()), "\n")
	if len(lines) != len(files) {
		t.Fatalf("list --json: %d lines for %d files", len(lines), len(files))
	}
	for i, l := range lines {
		var e ListEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		orig, _ := os.ReadFile(files[i])
		pp := parse(t, orig)
		if e.Index != i || e.Name != files[i] || e.SourceFormat != "pprof" || e.Samples != len(pp.Sample) ||
			e.TimeNanos != pp.TimeNanos || len(e.SampleTypes) != len(pp.SampleType) ||
			e.SampleTypes[0] != pp.SampleType[0].Type+"/"+pp.SampleType[0].Unit {
			t.Errorf("list entry %d = %+v", i, e)
		}

		// unpack --index i to stdout, pprof by default.
		u := run(t, nil, ExitOK, "unpack", b, "--index", string(rune('0'+i)), "-o", "-")
		if d := pprofcmp.Diff(pp, parse(t, u.out.Bytes())); d != "" {
			t.Errorf("%s unpacked differs:\n%s", files[i], d)
		}
	}
	s = run(t, nil, ExitOK, "list", b)
	if !strings.HasPrefix(s.out.String(), "INDEX  NAME") || !strings.Contains(s.out.String(), files[1]) {
		t.Errorf("list:\n%s", s.out)
	}

	// unpack --all into a directory, raw pprof.
	out := filepath.Join(dir, "out")
	run(t, nil, ExitOK, "unpack", b, "--all", "-o", out, "--to", "pprof-raw")
	got, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(got) != len(files) {
		t.Fatalf("unpack --all wrote %v", got)
	}
	for i, f := range files {
		name := filepath.Join(out, string(rune('0'+i))+"-"+strings.TrimSuffix(filepath.Base(f), ".pb.gz")+".pb")
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if data[0] == 0x1f {
			t.Errorf("%s is gzipped", name)
		}
		orig, _ := os.ReadFile(f)
		if d := pprofcmp.Diff(parse(t, orig), parse(t, data)); d != "" {
			t.Errorf("%s differs:\n%s", name, d)
		}
	}

	// inspect understands bundles.
	s = run(t, nil, ExitOK, "inspect", b)
	if !strings.Contains(s.out.String(), ": bundle") || !strings.Contains(s.out.String(), "profiles:") {
		t.Errorf("inspect:\n%s", s.out)
	}
}

func TestMergeFilesFromAndAssociative(t *testing.T) {
	files := goFixtures(t)
	dir := t.TempDir()
	abc := filepath.Join(dir, "abc.ppxb")
	run(t, []byte(strings.Join(files, "\n")+"\n\n"), ExitOK, "merge", "--files-from", "-", "-o", abc)
	again := run(t, nil, ExitOK, append([]string{"merge", "-o", "-"}, files...)...)
	want, _ := os.ReadFile(abc)
	if !bytes.Equal(want, again.out.Bytes()) {
		t.Fatal("the same inputs gave different bundles")
	}
	// merge(merge(a, b), rest) and merge(a, merge(b, rest)), the inner bundle
	// once from a file and once from stdin.
	ab := filepath.Join(dir, "ab.ppxb")
	run(t, nil, ExitOK, "merge", files[0], files[1], "-o", ab)
	left := run(t, nil, ExitOK, append([]string{"merge", ab, "-o", "-"}, files[2:]...)...)
	if !bytes.Equal(want, left.out.Bytes()) {
		t.Error("merge(merge(a, b), c...) differs from merge(a, b, c...)")
	}
	rest := filepath.Join(dir, "rest.ppxb")
	run(t, nil, ExitOK, append([]string{"merge", "-o", rest}, files[1:]...)...)
	restData, _ := os.ReadFile(rest)
	right := run(t, restData, ExitOK, "merge", files[0], "-", "-o", "-")
	if !bytes.Equal(want, right.out.Bytes()) {
		t.Error("merge(a, merge(b, c...)) from stdin differs from merge(a, b, c...)")
	}
}

func TestBundleBadInputs(t *testing.T) {
	files := goFixtures(t)
	dir := t.TempDir()
	b := filepath.Join(dir, "b.ppxb")
	run(t, nil, ExitOK, "merge", files[0], files[1], "-o", b)
	good, _ := os.ReadFile(b)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	v4 := bytes.Clone(good)
	binary.LittleEndian.PutUint32(v4[8:], 4)
	corrupt := bytes.Clone(good)
	corrupt[20] ^= 0xff
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"unpack", b, "--index", "2"}, "index 2 out of range (bundle holds 2 profiles, 0 to 1)"},
		{[]string{"unpack", write("trunc.ppxb", good[:len(good)-10]), "--index", "0"}, "truncated or corrupt: no footer magic"},
		{[]string{"list", write("short.ppxb", good[:30])}, "truncated: 30 bytes"},
		{[]string{"unpack", write("v4.ppxb", v4), "--index", "0"}, "unknown version 4 at byte 8"},
		{[]string{"unpack", write("corrupt.ppxb", corrupt), "--index", "0"}, "profile 0: section block at byte 12"},
		{[]string{"list", files[0]}, "not a pprofx bundle: it is a gzip-compressed file"},
		{[]string{"merge", files[0], filepath.Join(dir, "missing.pb.gz"), "-o", filepath.Join(dir, "out.ppxb")}, "missing.pb.gz: no such file or directory"},
		{[]string{"merge", write("v4b.ppxb", v4), "-o", filepath.Join(dir, "out.ppxb")}, "unknown version 4"},
	}
	for _, c := range cases {
		s := newStreams(nil)
		code := Main(c.args, s.ios)
		msg := s.err.String()
		if code != ExitFail || !strings.Contains(msg, c.want) || strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "pprofx: ") {
			t.Errorf("pprofx %s: exit %d, stderr %q; want exit 1 and one line with %q", strings.Join(c.args, " "), code, msg, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.ppxb")); err == nil {
		t.Error("a failed merge left its output behind")
	}
	// A bundle whose second profile is corrupt: unpack --all writes nothing.
	// Sections are zstd frames back to back from byte 12: the second
	// frame's magic marks profile 1's section.
	bad := bytes.Clone(good)
	sec1 := 13 + bytes.Index(good[13:], []byte{0x28, 0xb5, 0x2f, 0xfd})
	bad[sec1+8] ^= 0x55
	outDir := filepath.Join(dir, "unpacked")
	s := newStreams(nil)
	if code := Main([]string{"unpack", write("bad.ppxb", bad), "--all", "-o", outDir}, s.ios); code != ExitFail {
		t.Errorf("unpack --all of a corrupt bundle: exit %d, stderr %q", code, s.err)
	}
	if !strings.Contains(s.err.String(), "profile 1: section block") {
		t.Errorf("unpack --all of a corrupt bundle: stderr %q, want profile 1's section named", s.err)
	}
	if left, _ := os.ReadDir(outDir); len(left) != 0 {
		t.Errorf("unpack --all of a corrupt bundle left %d files", len(left))
	}
	for _, args := range [][]string{
		{"merge", files[0]},
		{"merge", "-o", b},
		{"unpack", b},
		{"unpack", b, "--index", "0", "--all", "-o", dir},
		{"unpack", b, "--all"},
		{"unpack", b, "--index", "0", "--to", "pdf"},
	} {
		s := newStreams(nil)
		if code := Main(args, s.ios); code != ExitUsage {
			t.Errorf("pprofx %s: exit %d, want 2; stderr %q", strings.Join(args, " "), code, s.err)
		}
	}
}

// TestMergeMixedFormats merges gperftools CPU profiles with Go pprof
// profiles of other sample types: each comes back as `convert` gives it
// (without symbolization, which merge does not do).
func TestMergeMixedFormats(t *testing.T) {
	inputs := []string{"../../testdata/gperftools/le64-100hz.prof", "../../testdata/go/heap.pb.gz", "../../testdata/gperftools/be32-100hz.prof", "../../testdata/go/goroutine.pb.gz"}
	dir := t.TempDir()
	b := filepath.Join(dir, "mixed.ppxb")
	run(t, nil, ExitOK, append([]string{"merge", "-o", b}, inputs...)...)
	s := run(t, nil, ExitOK, "list", "--json", b)
	for i, in := range inputs {
		want := run(t, nil, ExitOK, "convert", in, "-o", "-", "--symbolize=off")
		got := run(t, nil, ExitOK, "unpack", b, "--index", string(rune('0'+i)))
		if d := pprofcmp.Diff(parse(t, want.out.Bytes()), parse(t, got.out.Bytes())); d != "" {
			t.Errorf("%s: unpacked differs from converted:\n%s", in, d)
		}
	}
	if !strings.Contains(s.out.String(), `"source_format":"gperftools"`) || !strings.Contains(s.out.String(), `"source_format":"pprof"`) {
		t.Errorf("list: %s", s.out)
	}
}

// Every input is listed under the name it was given to merge, whatever
// its format; an OTLP file with several containers gives NAME#i.
func TestMergeNamesAsGiven(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.otlp")
	run(t, nil, ExitOK, "convert", "../../testdata/go/cpu.pb.gz", "-o", one, "--resource", "service.name=api")
	b := filepath.Join(dir, "b.ppxb")
	inputs := []string{one, "../../testdata/go/heap.pb.gz", "../../testdata/gperftools/le64-100hz.prof"}
	run(t, nil, ExitOK, append([]string{"merge", "-o", b}, inputs...)...)
	s := run(t, nil, ExitOK, "list", "--json", b)
	lines := strings.Split(strings.TrimSpace(s.out.String()), "\n")
	if len(lines) != len(inputs) {
		t.Fatalf("%d entries, want %d", len(lines), len(inputs))
	}
	for i, l := range lines {
		var e struct {
			Name         string `json:"name"`
			SourceFormat string `json:"source_format"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		if e.Name != inputs[i] {
			t.Errorf("entry %d named %q, want %q", i, e.Name, inputs[i])
		}
		if want := []string{"otlp", "pprof", "gperftools"}[i]; e.SourceFormat != want {
			t.Errorf("entry %d source format %q, want %q", i, e.SourceFormat, want)
		}
	}
}

// Progress goes to stderr only when it is a terminal, and is cleared at
// the end; stdout never sees it.
func TestProgressOnlyOnTerminal(t *testing.T) {
	dir := t.TempDir()
	files := goFixtures(t)
	for _, term := range []bool{false, true} {
		s := newStreams(nil)
		s.ios.ErrIsTerminal = term
		b := filepath.Join(dir, "p.ppxb")
		if code := Main(append([]string{"merge", "-o", b}, files...), s.ios); code != ExitOK {
			t.Fatalf("exit %d: %s", code, s.err)
		}
		e := s.err.String()
		if term != strings.Contains(e, "pprofx: merging 1/") {
			t.Errorf("terminal=%v: stderr %q", term, e)
		}
		if term && !strings.HasSuffix(e, "\r\033[K") {
			t.Errorf("progress line not cleared: %q", e)
		}
		if s.out.Len() != 0 {
			t.Errorf("stdout got %d bytes", s.out.Len())
		}
	}
}

// inspect reads a bundle's profiles hollow (bundle.Reader.Hollow: no
// frames, no locations or functions made, only counted), and shows what
// it shows when it reads them whole: plain and JSON, for bundles of the
// Go fixtures, of profiles of every format with mappings, labels,
// timestamps and OTLP attributes, and of both older bundle versions, and
// for each of those bundles with a byte changed at 200 places, where the
// answer, a summary or the error, must be the same.
func TestInspectBundleHollow(t *testing.T) {
	dir := t.TempDir()
	mixed := filepath.Join(dir, "mixed.ppxb")
	run(t, nil, ExitOK, append([]string{"merge", "-o", mixed, "../../testdata/gperftools/le64-100hz.prof",
		"../../testdata/jfr/cpu.jfr", "../../testdata/otlp-dev/typed-attrs.otlp", "../../testdata/otlp-dev/ebpf-v1.9.otlp",
		"../../testdata/perf/dwarf.txt", "../../testdata/cpuprofile/node-work.cpuprofile"}, goFixtures(t)...)...)
	names := []string{mixed, "../../testdata/bundle/v1.ppxb", "../../testdata/bundle/v2.ppxb"}
	inspect := func(name string, args ...string) string {
		s := newStreams(nil)
		code := Main(append(append([]string{"inspect"}, args...), name), s.ios)
		return fmt.Sprintf("exit %d\n%s\n%s", code, s.out, s.err)
	}
	defer func() { inspectSummary = true }()
	compare := func(name string, args ...string) bool {
		inspectSummary = false
		want := inspect(name, args...)
		inspectSummary = true
		if got := inspect(name, args...); got != want {
			t.Errorf("inspect %v %s:\n got %s\nwant %s", args, name, got, want)
			return false
		}
		return true
	}
	for _, name := range names {
		compare(name)
		compare(name, "--json")
		data := mustRead(t, name)
		bad := filepath.Join(dir, "bad.ppxb")
		for k := range 200 {
			b := append([]byte(nil), data...)
			b[(k*7919)%len(b)] ^= byte(1 + k%255)
			if err := os.WriteFile(bad, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if !compare(bad) {
				break
			}
		}
	}
}
