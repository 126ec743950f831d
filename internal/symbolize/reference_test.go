package symbolize_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gp "github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/symbolize"
	"github.com/pprofx/pprofx/internal/symbolize/pprofdiff"
)

const fixtures = "../../testdata/symbolize"

// fixtureBinaries are the binaries the fixtures' profiles were recorded
// from; other mappings (libc, libprofiler) are this machine's and are not
// compared.
var fixtureBinaries = map[string]bool{"cprog": true, "cxxprog": true, "libwork.so": true, "cprog-i386": true, "cprog-s390x": true,
	"relprog": true, "relprog-dwarf4": true, "asmprog": true, "cxxnest": true}

// readProf reads a fixture profile with pprofx's own reader.
func readProf(t testing.TB, name string) *model.Profile {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := formats.Read(f, formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return in.Items[0].Profile
}

// symbolizeFixture symbolizes a fixture profile from dir only: not from the
// recorded paths (gone) nor this machine's /usr/lib/debug.
func symbolizeFixture(t testing.TB, prof, dir string, mode symbolize.Mode, debugRoots ...string) (*model.Profile, []string) {
	p := readProf(t, prof)
	var warns []string
	if debugRoots == nil {
		debugRoots = []string{}
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(fixtures, dir)
	}
	symbolize.Symbolize(p, symbolize.Options{Mode: mode, Dirs: []string{dir},
		DebugRoots: debugRoots, NoOriginalPath: true, Warn: func(s string) { warns = append(warns, s) }})
	return p, warns
}

// line is a frame as google/pprof reads it.
type line = pprofdiff.Frame

func compareToReference(t *testing.T, prof, ref, dir string, debugRoots ...string) {
	p, warns := symbolizeFixture(t, prof, dir, symbolize.Local, debugRoots...)
	for _, w := range warns {
		t.Logf("warning: %s", w)
	}
	rf, err := os.Open(filepath.Join(fixtures, "ref", ref))
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	rp, err := gp.Parse(rf)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		bin  string
		addr uint64
	}
	ours := map[key][]line{}
	for _, l := range p.Locations {
		if l.Mapping < 0 {
			continue
		}
		bin := filepath.Base(p.String(p.Mappings[l.Mapping].File))
		if !fixtureBinaries[bin] {
			continue
		}
		var ls []line
		for _, ln := range p.LinesOf(&l) {
			f := p.Functions[ln.Function]
			ls = append(ls, line{Name: p.String(f.Name), SystemName: p.String(f.SystemName), File: p.String(f.Filename), Line: ln.Line})
		}
		ours[key{bin, l.Address}] = ls
	}
	compared, differ, known := 0, 0, 0
	kinds := map[string]int{}
	seen := map[key]bool{}
	for _, l := range rp.Location {
		if l.Mapping == nil || !fixtureBinaries[filepath.Base(l.Mapping.File)] {
			continue
		}
		k := key{filepath.Base(l.Mapping.File), l.Address}
		got, ok := ours[k]
		if !ok {
			t.Errorf("%s %#x: in pprof's output, not in pprofx's", k.bin, k.addr)
			continue
		}
		seen[k] = true
		var want []line
		for _, ln := range l.Line {
			file, fixed := pprofdiff.NoLineFile(ln.Function.Filename)
			if fixed {
				known++
			}
			want = append(want, line{Name: ln.Function.Name, SystemName: ln.Function.SystemName, File: file, Line: ln.Line})
		}
		compared++
		if len(got) == len(want) {
			for i := range want {
				if got[i] != want[i] {
					if why := pprofdiff.Known(i, got, want); why != "" {
						want[i] = got[i]
						kinds[why]++
					}
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			differ++
			t.Errorf("%s %#x: %s", k.bin, k.addr, diffLines(got, want))
		}
	}
	for k := range ours {
		if !seen[k] {
			t.Errorf("%s %#x: in pprofx's output, not in pprof's", k.bin, k.addr)
		}
	}
	if compared < 10 {
		t.Errorf("only %d locations compared", compared)
	}
	t.Logf("%s against %s: %d locations compared, %d differ; pprof errors: %d \"??:?\" files, %v", prof, ref, compared, differ, known, kinds)
}

func TestReferenceCProgPIEAndSharedLib(t *testing.T) {
	compareToReference(t, "cprog.prof", "cprog.pb.gz", "bin")
}

func TestReferenceCXXNonPIE(t *testing.T) {
	compareToReference(t, "cxxprog.prof", "cxxprog.pb.gz", "bin")
}

func TestReferenceI386(t *testing.T) {
	compareToReference(t, "i386.prof", "i386.pb.gz", "bin")
}

func TestReferenceS390x(t *testing.T) {
	compareToReference(t, "s390x.prof", "s390x.pb.gz", "bin")
}

func TestReferenceSymtabOnly(t *testing.T) {
	compareToReference(t, "cxxprog.prof", "cxxprog-symtab.pb.gz", "stripped")
}

// A binary built as Debian builds its packages, with a relative
// compilation directory ("./app") and line table directory ("../lib"), in
// DWARF 5 and DWARF 4: file paths as addr2line gives them
// (./app/../lib/mix.h), not cleaned or left unjoined as debug/dwarf gives
// them (lib/mix.h, ../lib/mix.h).
func TestReferenceRelativeCompDir(t *testing.T) {
	compareToReference(t, "relprog.prof", "relprog.pb.gz", "bin")
	compareToReference(t, "relprog-dwarf4.prof", "relprog-dwarf4.pb.gz", "bin")
}

// Assembly: a label with line table rows but no DWARF function gets the
// line and the symbol's name, as addr2line gives them; in the binary
// stripped of .symtab (its symbols and DWARF in a debug file found by
// .gnu_debuglink, and the label's symbol not in .dynsym), the name comes
// from the debug file's symbol table.
func TestReferenceAssembly(t *testing.T) {
	compareToReference(t, "asmprog.prof", "asmprog.pb.gz", "bin")
	compareToReference(t, "asmprog.prof", "asmprog-stripped.pb.gz", "stripped")
}

// C++ with a function's code inside a class inside another function's
// entry (a lambda's operator() in a function template), and the code
// inlined into it: pprof's inline chains there (32 locations had one frame
// where pprof has two, before the tree went into classes).
func TestReferenceNestedFunctions(t *testing.T) {
	compareToReference(t, "cxxnest.prof", "cxxnest.pb.gz", "bin")
}

func showLine(l line) string {
	return fmt.Sprintf("%s [%s] %s:%d", l.Name, l.SystemName, l.File, l.Line)
}

// diffLines shows the frames that differ.
func diffLines(got, want []line) string {
	var b strings.Builder
	if len(got) != len(want) {
		fmt.Fprintf(&b, "%d frames, pprof %d; ", len(got), len(want))
	}
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w line
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			fmt.Fprintf(&b, "\n  frame %d: pprofx %s\n           pprof  %s", i, showLine(g), showLine(w))
		}
	}
	return b.String()
}

// The stripped cprog's DWARF is in cprog.debug, found by .gnu_debuglink
// (checked by its CRC); the stripped libwork.so's is under
// debugroot/.build-id/xx/rest.debug. The answers are the unstripped ones.
func TestReferenceSeparateDebugFiles(t *testing.T) {
	compareToReference(t, "cprog.prof", "cprog.pb.gz", "stripped", filepath.Join(fixtures, "debugroot"))
}

// Every other byte of cxxprog's functions (testdata/symbolize/mkprof):
// thousands of addresses, most inside inlined code.
func TestReferenceEveryAddress(t *testing.T) {
	compareToReference(t, "cxxprog-all.prof", "cxxprog-all.pb.gz", "bin")
}

// Compressed DWARF: zlib (cprog) and zstd (libwork.so) SHF_COMPRESSED
// sections, and GNU .zdebug sections (cxxprog), give the same answers.
func TestReferenceCompressedDWARF(t *testing.T) {
	compareToReference(t, "cprog.prof", "cprog.pb.gz", "compressed")
	compareToReference(t, "cxxprog.prof", "cxxprog.pb.gz", "compressed")
}
