package cli

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

func gunzipAll(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestErrorLines: every failure is one line "pprofx: FILE: what is wrong"
// naming the file the user gave, once; never a temporary file; content
// errors inside gzip are the content's, decompression errors are named
// after gzip, and bytes after the gzip stream are named as such.
func TestErrorLines(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	write := func(n string, data []byte) string {
		if err := os.WriteFile(p(n), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p(n)
	}
	src := mustRead(t, cpuFixture)
	raw := gunzipAll(t, src)
	write("afile", nil)
	bundle := p("b.ppxb")
	run(t, nil, ExitOK, "merge", "-o", bundle, cpuFixture)
	cut := write("cut.pb.gz", gz(t, raw[:len(raw)/2]))
	trailing := write("trailing.pb.gz", append(append([]byte{}, src...), "garbage!"...))
	zeros := write("zeros.pb.gz", append(append([]byte{}, src...), make([]byte, 16)...))
	short := write("short.pb.gz", src[:len(src)/2])
	for _, c := range []struct {
		args []string
		file string // the file the line must name
		msg  string // what it must say after "pprofx: FILE: "
	}{
		{[]string{"convert", cpuFixture, "-o", p("afile/x.pb.gz")}, p("afile/x.pb.gz"), "cannot create a temporary file beside it: not a directory"},
		{[]string{"merge", "-o", p("afile/x.ppxb"), cpuFixture}, p("afile/x.ppxb"), "cannot create a temporary file beside it: not a directory"},
		{[]string{"unpack", bundle, "--index", "0", "-o", p("afile/x.pb.gz")}, p("afile/x.pb.gz"), "cannot create a temporary file beside it: not a directory"},
		{[]string{"unpack", bundle, "--all", "-o", p("afile/sub")}, p("afile/sub"), "not a directory"},
		{[]string{"convert", p("nosuch.pb.gz"), "-o", p("x.pb.gz")}, p("nosuch.pb.gz"), "no such file or directory"},
		{[]string{"merge", "-o", p("m.ppxb"), cpuFixture, p("nosuch.pb.gz")}, p("nosuch.pb.gz"), "no such file or directory"},
		{[]string{"convert", cut, "-o", p("x.pb.gz")}, cut, "pprof: "},
		{[]string{"inspect", cut}, cut, "pprof: "},
		{[]string{"merge", "-o", p("m.ppxb"), cut}, cut, "pprof: "},
		{[]string{"convert", trailing, "-o", p("x.pb.gz")}, trailing, "gzip: trailing bytes after the end of the gzip stream"},
		{[]string{"convert", zeros, "-o", p("x.pb.gz")}, zeros, "gzip: trailing bytes after the end of the gzip stream"},
		// Its last 4 bytes, read as gzip's size trailer, claim more than
		// the limit: refused before inflating, naming both possibilities.
		{[]string{"convert", short, "-o", p("x.pb.gz")}, short, "gzip: cut short or too large"},
	} {
		s := newStreams(nil)
		if code := Main(c.args, s.ios); code != ExitFail {
			t.Errorf("%v: exit %d, want %d", c.args, code, ExitFail)
		}
		line := s.err.String()
		prefix := "pprofx: " + c.file + ": "
		if !strings.HasPrefix(line, prefix+c.msg) || strings.Count(line, "\n") != 1 || strings.Count(line, c.file) != 1 ||
			strings.Contains(line, ".tmp") || strings.HasPrefix(line, prefix+"gzip: ") != strings.HasPrefix(c.msg, "gzip: ") {
			t.Errorf("%v:\n got %q\nwant %q...", c.args, line, prefix+c.msg)
		}
	}
	// Two gzip members are one stream, as gzip(1) reads them.
	two := write("two.pb.gz", append(gz(t, raw[:len(raw)/2]), gz(t, raw[len(raw)/2:])...))
	run(t, nil, ExitOK, "convert", two, "-o", p("two-out.pb.gz"))
}
