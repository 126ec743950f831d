package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

const cpuFixture = "../../testdata/go/cpu.pb.gz"

type streams struct {
	ios      *IOStreams
	out, err *bytes.Buffer
}

func newStreams(stdin []byte) streams {
	out, errb := &bytes.Buffer{}, &bytes.Buffer{}
	return streams{&IOStreams{In: bytes.NewReader(stdin), Out: out, ErrOut: errb}, out, errb}
}

func parse(t *testing.T, data []byte) *profile.Profile {
	t.Helper()
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatalf("google/pprof cannot read the output: %v", err)
	}
	return p
}

func TestConvertFileToFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		out, to string
		gz      bool
	}{
		{"a.pb.gz", "", true}, {"b.pb", "", false}, {"c.pprof", "", true}, {"d.bin", "pprof-raw", false}, {"e.pb", "pprof", true},
	} {
		s := newStreams(nil)
		out := filepath.Join(dir, c.out)
		if err := convertRun(&ConvertOptions{IO: s.ios, Input: cpuFixture, Output: out, To: c.to, Index: -1}); err != nil {
			t.Fatalf("%s: %v", c.out, err)
		}
		data, _ := os.ReadFile(out)
		if gz := len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b; gz != c.gz {
			t.Errorf("%s --to %q: gzip = %v, want %v", c.out, c.to, gz, c.gz)
		}
		orig, _ := os.ReadFile(cpuFixture)
		if d := pprofcmp.Diff(parse(t, orig), parse(t, data)); d != "" {
			t.Errorf("%s: differs from the input:\n%s", c.out, d)
		}
		if s.err.Len() != 0 {
			t.Errorf("%s: stderr %q", c.out, s.err)
		}
	}
}

func TestConvertStdinToStdout(t *testing.T) {
	orig, _ := os.ReadFile(cpuFixture)
	s := newStreams(orig)
	if code := Main([]string{"convert", "-", "-o", "-", "--to", "pprof-raw"}, s.ios); code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, s.err)
	}
	if d := pprofcmp.Diff(parse(t, orig), parse(t, s.out.Bytes())); d != "" {
		t.Fatalf("stdout profile differs:\n%s", d)
	}
	if s.out.Bytes()[0] == 0x1f {
		t.Fatal("pprof-raw output is gzipped")
	}
}

func TestConvertRefusesTerminal(t *testing.T) {
	s := newStreams(nil)
	s.ios.OutIsTerminal = true
	if code := Main([]string{"convert", cpuFixture}, s.ios); code != ExitUsage {
		t.Fatalf("exit %d, want %d", code, ExitUsage)
	}
	if !strings.Contains(s.err.String(), "terminal") || s.out.Len() != 0 {
		t.Fatalf("stderr %q, stdout %d bytes", s.err, s.out.Len())
	}
}

// A failed run leaves an existing output untouched and no temp file.
func TestConvertFailureKeepsOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.pb.gz")
	os.WriteFile(out, []byte("precious"), 0o644)
	bad := filepath.Join(dir, "bad.pb.gz")
	orig, _ := os.ReadFile(cpuFixture)
	os.WriteFile(bad, orig[:len(orig)/2], 0o644)
	for _, in := range []string{bad, filepath.Join(dir, "missing.pb.gz")} {
		s := newStreams(nil)
		code := Main([]string{"convert", in, "-o", out}, s.ios)
		if code != ExitFail {
			t.Fatalf("%s: exit %d, want 1", in, code)
		}
		line := s.err.String()
		if !strings.HasPrefix(line, "pprofx: "+in+": ") || strings.Count(line, "\n") != 1 {
			t.Fatalf("stderr is not one line naming the file: %q", line)
		}
	}
	if b, _ := os.ReadFile(out); string(b) != "precious" {
		t.Fatalf("output clobbered: %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("files left: %v", ents)
	}
}

// badCRC returns a copy of the gzip file data with its CRC-32 flipped.
func badCRC(data []byte) []byte {
	b := bytes.Clone(data)
	b[len(b)-8] ^= 0xff
	return b
}

func TestBadInputs(t *testing.T) {
	orig, _ := os.ReadFile(cpuFixture)
	raw, _ := gzip.NewReader(bytes.NewReader(orig))
	var rawBuf bytes.Buffer
	rawBuf.ReadFrom(raw)
	cases := []struct {
		name string
		in   []byte
		args []string
		want string
	}{
		{"garbage", []byte("hello, this is not a profile"), nil, "unknown format (first bytes: 68 65 6c 6c"},
		{"empty", nil, nil, "empty input"},
		{"truncated gzip", orig[:len(orig)-20], nil, "gzip: truncated at byte " + strconv.Itoa(len(orig)-20)},
		{"truncated raw", rawBuf.Bytes()[:rawBuf.Len()-7], nil, "byte offset"},
		// Named once: "gzip: invalid checksum", not "gzip: gzip: ...".
		{"gzip checksum", badCRC(orig), nil, "<stdin>: gzip: invalid checksum"},
		{"gperftools header cut", append(make([]byte, 8), []byte{3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x27, 0, 0, 0, 0, 0, 0}...), nil, "header cut at byte 32"},
		{"too big", orig, []string{"--max-input-size", "1KiB"}, "larger than the limit of 1024 bytes"},
	}
	for _, c := range cases {
		s := newStreams(c.in)
		args := append([]string{"convert", "-", "-o", "-"}, c.args...)
		code := Main(args, s.ios)
		if code != ExitFail {
			t.Errorf("%s: exit %d, want 1", c.name, code)
		}
		e := s.err.String()
		if !strings.HasPrefix(e, "pprofx: <stdin>: ") || !strings.Contains(e, c.want) || strings.Count(e, "\n") != 1 {
			t.Errorf("%s: stderr %q, want one line with %q", c.name, e, c.want)
		}
		if s.out.Len() != 0 {
			t.Errorf("%s: %d bytes on stdout", c.name, s.out.Len())
		}
	}
}

// A gzip bomb (a small file that inflates far past the limit) is an
// error, not an out-of-memory.
func TestGzipBomb(t *testing.T) {
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	// A valid pprof start: a sample type, then a 64 MiB string of zeros.
	zw.Write([]byte{0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x32, 0x80, 0x80, 0x80, 0x20})
	zw.Write(make([]byte, 64<<20))
	zw.Close()
	if bomb.Len() > 1<<20 {
		t.Fatalf("bomb is %d bytes", bomb.Len())
	}
	s := newStreams(bomb.Bytes())
	code := Main([]string{"convert", "-", "-o", "-", "--max-input-size", "8MiB"}, s.ios)
	// The string's length reaches past the limit: refused at its length,
	// before any of the 64 MiB is inflated.
	if code != ExitFail || !strings.Contains(s.err.String(), "pprof: byte offset 6: field 6: 67108864 bytes, past the limit of 8388608 bytes (--max-input-size)") {
		t.Fatalf("exit %d, stderr %q", code, s.err)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"convert"},
		{"convert", "a", "b"},
		{"convert", cpuFixture, "--to", "nonsense"},
		{"convert", cpuFixture, "--no-such-flag"},
		{"inspect"},
		{"frobnicate"},
		{"convert", cpuFixture, "--max-input-size", "lots"},
	} {
		s := newStreams(nil)
		if code := Main(args, s.ios); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, s.err)
		}
		if !strings.HasPrefix(s.err.String(), "pprofx: ") {
			t.Errorf("%v: stderr %q", args, s.err)
		}
	}
}

func TestInspect(t *testing.T) {
	s := newStreams(nil)
	files, _ := filepath.Glob("../../testdata/go/*.pb.gz")
	if err := inspectRun(&InspectOptions{IO: s.ios, Files: files}); err != nil {
		t.Fatal(err)
	}
	out := s.out.String()
	for _, want := range []string{"cpu.pb.gz: pprof (gzip)", "cpu/nanoseconds", "label keys:    tenant, workload", "inuse_space/bytes", "period:", "distinct"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q", want)
		}
	}
}

func TestInspectJSON(t *testing.T) {
	s := newStreams(nil)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("garbage!"), 0o644)
	files := []string{cpuFixture, bad, "../../testdata/go/heap.pb.gz"}
	err := inspectRun(&InspectOptions{IO: s.ios, Files: files, JSON: true})
	if err != errReported {
		t.Fatalf("err = %v, want the failure reported", err)
	}
	lines := strings.Split(strings.TrimSpace(s.out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d JSON lines, want 2: %q", len(lines), s.out)
	}
	var r InspectResult
	if err := json.Unmarshal([]byte(lines[1]), &r); err != nil {
		t.Fatal(err)
	}
	want := parse(t, mustRead(t, "../../testdata/go/heap.pb.gz"))
	if r.Format != "pprof" || r.Compression != "gzip" || len(r.Profiles) != 1 || r.Profiles[0].Samples != len(want.Sample) ||
		len(r.Profiles[0].SampleTypes) != 4 || r.Profiles[0].Period != want.Period {
		t.Fatalf("heap JSON: %+v", r)
	}
	if !strings.Contains(s.err.String(), "pprofx: "+bad+": unknown format") {
		t.Fatalf("stderr %q", s.err)
	}
	// Through Main, the partial failure is exit status 1.
	s = newStreams(nil)
	if code := Main(append([]string{"inspect"}, files...), s.ios); code != ExitFail {
		t.Fatalf("exit %d", code)
	}
}

func mustRead(t *testing.T, name string) []byte {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVersionAndHelp(t *testing.T) {
	s := newStreams(nil)
	if code := Main([]string{"version"}, s.ios); code != 0 || !strings.HasPrefix(s.out.String(), "pprofx ") {
		t.Fatalf("version: exit %d, %q", code, s.out)
	}
	root := NewRootCmd(s.ios)
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.Example == "" {
			t.Errorf("%s --help has no example", c.Name())
		}
	}
	s = newStreams(nil)
	if code := Main([]string{"completion", "bash"}, s.ios); code != 0 || !strings.Contains(s.out.String(), "pprofx") {
		t.Fatalf("completion: exit %d", code)
	}
}

// The same input gives byte-identical output.
func TestConvertDeterministic(t *testing.T) {
	var outs [][]byte
	for i := 0; i < 3; i++ {
		s := newStreams(mustRead(t, "../../testdata/go/heap.pb.gz"))
		if code := Main([]string{"convert", "-", "-o", "-"}, s.ios); code != 0 {
			t.Fatalf("exit %d: %s", code, s.err)
		}
		outs = append(outs, s.out.Bytes())
	}
	if !bytes.Equal(outs[0], outs[1]) || !bytes.Equal(outs[1], outs[2]) {
		t.Fatal("outputs differ between runs")
	}
}
