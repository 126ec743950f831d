package cli

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/formats"
)

const symDir = "../../testdata/symbolize/"

// functionsOf returns the function names of the locations of the mapping
// whose file has base name bin, and that mapping's build id.
func functionsOf(t *testing.T, data []byte, bin string) (names map[string]bool, buildID string) {
	t.Helper()
	p := parse(t, data)
	names = map[string]bool{}
	for _, m := range p.Mapping {
		if filepath.Base(m.File) == bin {
			buildID = m.BuildID
		}
	}
	for _, l := range p.Location {
		if l.Mapping != nil && filepath.Base(l.Mapping.File) == bin {
			for _, ln := range l.Line {
				names[ln.Function.Name] = true
			}
		}
	}
	return names, buildID
}

func TestSymbolizeCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sym.pb.gz")
	run(t, nil, ExitOK, "symbolize", symDir+"cxxprog.prof", "--symbols-dir", symDir+"bin", "-o", out)
	names, id := functionsOf(t, mustRead(t, out), "cxxprog")
	for _, want := range []string{"main", "geo::Cloud::energy", "geo::Vec::dot", "std::__introsort_loop"} {
		if !names[want] {
			t.Errorf("no %s in %v", want, names)
		}
	}
	if id == "" {
		t.Error("no build id")
	}
	// Symbolizing what is symbolized changes nothing.
	again := filepath.Join(t.TempDir(), "again.pb.gz")
	run(t, nil, ExitOK, "symbolize", out, "--symbols-dir", symDir+"bin", "-o", again)
	if !bytes.Equal(mustRead(t, out), mustRead(t, again)) {
		t.Error("symbolizing a symbolized profile changed it")
	}
}

// PPROF_BINARY_PATH is searched as pprof searches it; convert symbolizes
// by default (auto) and says nothing about binaries it does not find.
func TestConvertSymbolizesWithPprofBinaryPath(t *testing.T) {
	t.Setenv("PPROF_BINARY_PATH", t.TempDir()+string(filepath.ListSeparator)+symDir+"bin")
	s := run(t, nil, ExitOK, "convert", symDir+"cprog.prof", "-o", "-")
	names, _ := functionsOf(t, s.out.Bytes(), "cprog")
	if !names["hot_loop"] || !names["mix"] {
		t.Errorf("not symbolized: %v", names)
	}
	names, _ = functionsOf(t, s.out.Bytes(), "libwork.so")
	if !names["work_series"] || !names["term"] {
		t.Errorf("libwork.so not symbolized: %v", names)
	}
	if strings.Contains(s.err.String(), "cprog") || strings.Contains(s.err.String(), "libwork") {
		t.Errorf("stderr: %s", s.err)
	}
}

// --symbolize=none: addresses only, but the build ids are there, in OTLP
// output too; --symbolize=off touches nothing.
func TestConvertBuildIDsOnly(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cpu.otlp")
	run(t, nil, ExitOK, "convert", symDir+"cprog.prof", "-o", out, "--symbolize=none", "--symbols-dir", symDir+"bin")
	in, err := formats.Read(bytes.NewReader(mustRead(t, out)), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := in.Items[0].Profile
	found := 0
	for _, m := range p.Mappings {
		switch filepath.Base(p.String(m.File)) {
		case "cprog":
			found++
			if got, want := p.String(m.BuildID), noteBuildID(t, symDir+"bin/cprog"); got != want {
				t.Errorf("cprog build id %q, want %q", got, want)
			}
			if m.HasFunctions {
				t.Error("symbolized with none")
			}
		case "libwork.so":
			found++
			if got, want := p.String(m.BuildID), noteBuildID(t, symDir+"bin/libwork.so"); got != want {
				t.Errorf("libwork.so build id %q, want %q", got, want)
			}
		}
	}
	if found != 2 || len(p.Functions) != 0 {
		t.Errorf("%d mappings found, %d functions", found, len(p.Functions))
	}
	s := run(t, nil, ExitOK, "convert", symDir+"cprog.prof", "-o", "-", "--symbolize=off", "--symbols-dir", symDir+"bin")
	if _, id := functionsOf(t, s.out.Bytes(), "cprog"); id != "" {
		t.Errorf("--symbolize=off set build id %q", id)
	}
}

// noteBuildID reads a binary's GNU build id with debug/elf alone.
func noteBuildID(t *testing.T, path string) string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Section(".note.gnu.build-id").Data()
	if err != nil || len(d) < 17 {
		t.Fatalf("%s: no build id note", path)
	}
	return hex.EncodeToString(d[16:])
}

func TestSymbolizeFlagErrors(t *testing.T) {
	s := newStreams(nil)
	if code := Main([]string{"convert", symDir + "cprog.prof", "-o", "-", "--symbolize=maybe"}, s.ios); code != ExitUsage {
		t.Errorf("exit %d, stderr %s", code, s.err)
	}
	if !strings.Contains(s.err.String(), "auto, local, none or off") {
		t.Errorf("stderr %s", s.err)
	}
	// local warns, once per mapping, for what it cannot symbolize.
	s = run(t, nil, ExitOK, "symbolize", symDir+"cprog.prof", "--symbols-dir", t.TempDir(), "-o", "-")
	if !strings.Contains(s.err.String(), "pprofx: "+symDir+"cprog.prof: warning: /tmp/pprofx-symfix/cprog: not symbolized") {
		t.Errorf("stderr %s", s.err)
	}
}

// convert leaves a pprof input as it is unless --symbolize is given: its
// conversions stay exact.
func TestConvertSymbolizesPprofOnlyWhenAsked(t *testing.T) {
	t.Setenv("PPROF_BINARY_PATH", symDir+"bin")
	bare := filepath.Join(t.TempDir(), "bare.pb.gz")
	run(t, nil, ExitOK, "convert", symDir+"cprog.prof", "-o", bare, "--symbolize=off")
	s := run(t, nil, ExitOK, "convert", bare, "-o", "-")
	if names, id := functionsOf(t, s.out.Bytes(), "cprog"); len(names) != 0 || id != "" {
		t.Errorf("a pprof input was changed: %v %q", names, id)
	}
	s = run(t, nil, ExitOK, "convert", bare, "-o", "-", "--symbolize=auto")
	if names, id := functionsOf(t, s.out.Bytes(), "cprog"); !names["hot_loop"] || id == "" {
		t.Errorf("--symbolize=auto did not symbolize a pprof input: %v %q", names, id)
	}
}

// convert of a gperftools profile to pprof streams its samples
// and symbolizes its tables; the whole-model path (taken with
// --keep-original) must give the same bytes, symbols included.
func TestConvertStreamedSymbolizesAsWholeModel(t *testing.T) {
	dir := t.TempDir()
	streamed, whole := filepath.Join(dir, "s.pb.gz"), filepath.Join(dir, "w.pb.gz")
	run(t, nil, ExitOK, "convert", symDir+"cxxprog.prof", "--symbols-dir", symDir+"bin", "-o", streamed)
	run(t, nil, ExitOK, "convert", symDir+"cxxprog.prof", "--symbols-dir", symDir+"bin", "--keep-original", "-o", whole)
	if !bytes.Equal(mustRead(t, streamed), mustRead(t, whole)) {
		t.Error("the streamed conversion differs from the whole-model one")
	}
	if names, _ := functionsOf(t, mustRead(t, streamed), "cxxprog"); !names["geo::Cloud::energy"] {
		t.Errorf("streamed output not symbolized: %v", names)
	}
}
