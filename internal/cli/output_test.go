package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
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
			// v1development files name no scope for a pprof input (the
			// pprofextended dialect's scope is checked below).
			if strings.Contains(name, ".otlp") && !strings.HasSuffix(name, ".gz") && bytes.Contains(ub, []byte(version())) {
				t.Errorf("%s: scope version %q written", name, version())
			}
		}
	}
	// And to standard output, with --to.
	for _, to := range []string{"otlp", "otlp-json", "pprof", "pprofextended", "pprofextended-json"} {
		u := run(t, nil, ExitOK, "unpack", b, "--index", "2", "--to", to)
		c := run(t, nil, ExitOK, "convert", b, "--index", "2", "--to", to)
		if !bytes.Equal(u.out.Bytes(), c.out.Bytes()) {
			t.Errorf("--to %s to stdout: unpack and convert differ", to)
		}
		if strings.HasPrefix(to, "pprofextended") && !bytes.Contains(u.out.Bytes(), []byte(version())) {
			t.Errorf("--to %s: no scope version %q", to, version())
		}
	}
}

// TestUnpackAllNamesAndModes: unpack --all names each file with the
// suffix convert reads the format from, zero-pads the index to the width
// of the count, and gives files the mode convert gives a new file.
func TestUnpackAllNamesAndModes(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "b.ppxb")
	var inputs []string
	for len(inputs) < 11 {
		inputs = append(inputs, goFixtures(t)...)
	}
	inputs = inputs[:11]
	run(t, nil, ExitOK, append([]string{"merge", "-o", b}, inputs...)...)
	conv := filepath.Join(dir, "c.pb.gz")
	run(t, nil, ExitOK, "convert", cpuFixture, "-o", conv)
	st, err := os.Stat(conv)
	if err != nil {
		t.Fatal(err)
	}
	want := st.Mode().Perm()
	for _, to := range []string{"pprof", "pprof-raw", "otlp", "otlp-json"} {
		out := filepath.Join(dir, to)
		run(t, nil, ExitOK, "unpack", b, "--all", "-o", out, "--to", to)
		for i, in := range inputs {
			name := fmt.Sprintf("%02d-%s%s", i, strings.TrimSuffix(filepath.Base(in), ".pb.gz"), formats.Suffix(formats.OutFormat(to)))
			p := filepath.Join(out, name)
			st, err := os.Stat(p)
			if err != nil {
				t.Errorf("--to %s: %v", to, err)
				continue
			}
			if st.Mode().Perm() != want {
				t.Errorf("%s: mode %v, convert writes %v", name, st.Mode().Perm(), want)
			}
			if f, ok := formats.OutFormatForPath(p); !ok || string(f) != to {
				t.Errorf("%s: convert would take it for %q", name, f)
			}
			// convert reads it back to the same profile.
			back := filepath.Join(dir, "back.pb.gz")
			run(t, nil, ExitOK, "convert", p, "-o", back)
			if d := pprofcmp.Diff(parse(t, mustRead(t, in)), parse(t, mustRead(t, back))); d != "" {
				t.Errorf("%s:\n%s", name, d)
			}
		}
	}
}

// TestHelpDefaults: --max-input-size shows its default as 2GiB, --index
// shows no default (-1 means "not given").
func TestHelpDefaults(t *testing.T) {
	for _, cmd := range []string{"convert", "unpack", "inspect", "merge", "list"} {
		s := run(t, nil, ExitOK, cmd, "--help")
		help := s.out.String()
		if !strings.Contains(help, "(default 2GiB)") {
			t.Errorf("%s --help: no '(default 2GiB)'", cmd)
		}
		if strings.Contains(help, "(default -1)") {
			t.Errorf("%s --help shows -1", cmd)
		}
	}
	for in, want := range map[byteSize]string{2 << 30: "2GiB", 512 << 20: "512MiB", 1000: "1000", 3 << 10: "3KiB", 1<<30 + 1: "1073741825"} {
		if got := in.String(); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", int64(in), got, want)
		}
	}
	run(t, nil, ExitUsage, "convert", cpuFixture, "--index", "-1")
}
