package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputNameNamesNoFormat: an output name whose extension names no
// format is a usage error unless --to says the format.
func TestOutputNameNamesNoFormat(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "b.ppxb")
	run(t, nil, ExitOK, "merge", "-o", b, cpuFixture, cpuFixture)
	for _, name := range []string{"x.json", "x.txt", "x.gz"} {
		out := filepath.Join(dir, name)
		for _, args := range [][]string{{"convert", cpuFixture, "-o", out}, {"unpack", b, "--index", "0", "-o", out}} {
			s := run(t, nil, ExitUsage, args...)
			if !strings.Contains(s.err.String(), "names no output format") || !strings.Contains(s.err.String(), "--to") {
				t.Errorf("%v: stderr %q", args, s.err)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%v: %s written", args, name)
			}
			run(t, nil, ExitOK, append(args, "--to", "pprof")...)
			parse(t, mustRead(t, out))
			os.Remove(out)
		}
	}
	// No extension: pprof, as documented.
	run(t, nil, ExitOK, "convert", cpuFixture, "-o", filepath.Join(dir, "noext"))
	parse(t, mustRead(t, filepath.Join(dir, "noext")))
}

// TestUnpackWritesWhatConvertWrites: unpack --index N and convert --index N
// of the same bundle write the same bytes, in every output format
// (OTLP's scope version included).
func TestUnpackWritesWhatConvertWrites(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "b.ppxb")
	run(t, nil, ExitOK, append([]string{"merge", "-o", b}, goFixtures(t)...)...)
	for _, name := range []string{"a.pb.gz", "a.pb", "a.otlp", "a.otlp.gz", "a.otlp.json", "a.otlp.json.gz"} {
		for _, index := range []string{"0", "3"} {
			u, c := filepath.Join(dir, "u-"+name), filepath.Join(dir, "c-"+name)
			run(t, nil, ExitOK, "unpack", b, "--index", index, "-o", u)
			run(t, nil, ExitOK, "convert", b, "--index", index, "-o", c)
			ub, cb := mustRead(t, u), mustRead(t, c)
			if !bytes.Equal(ub, cb) {
				t.Errorf("%s --index %s: unpack wrote %d bytes, convert %d, not the same", name, index, len(ub), len(cb))
			}
			if strings.Contains(name, ".otlp") && !strings.HasSuffix(name, ".gz") && !bytes.Contains(ub, []byte(version())) {
				t.Errorf("%s: no scope version %q", name, version())
			}
		}
	}
	// And to standard output, with --to.
	for _, to := range []string{"otlp", "otlp-json", "pprof"} {
		u := run(t, nil, ExitOK, "unpack", b, "--index", "2", "--to", to)
		c := run(t, nil, ExitOK, "convert", b, "--index", "2", "--to", to)
		if !bytes.Equal(u.out.Bytes(), c.out.Bytes()) {
			t.Errorf("--to %s to stdout: unpack and convert differ", to)
		}
	}
}
