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

type line struct {
	name, sys, file string
	line            int64
}

func (l line) String() string { return fmt.Sprintf("%s [%s] %s:%d", l.name, l.sys, l.file, l.line) }

// known are the differences from pprof's output that are pprof's errors
// (see testdata/symbolize/ref/README): fix turns pprof's line into the
// right one.
func fixRef(l line, known *int) line {
	// addr2line prints "??:?" for an address with a function but no line
	// (_start, from assembly without line information); pprof keeps "??:?"
	// as the file name.
	if l.file == "??:?" {
		l.file = ""
		*known++
	}
	return l
}

// pprofError says whether frame i of pprof's chain want differs from
// pprofx's got in one of the ways pprof (binutils' addr2line under it) is
// wrong, and which (testdata/symbolize/ref/README lists them):
//
// "inlined-named-as-caller": addr2line names the innermost frame after the
// ELF symbol at the first address of the innermost function's code when
// DWARF gives that function no linkage name. For an inlined frame (std::
// templates, atoi) that symbol is the function it was inlined into: the
// chain then names that function twice, the innermost time at a line of
// the inlined function's source (stl_algo.h:1937 is std::__sort's, not
// geo::Cloud::sortByNorm's).
//
// "unqualified-outer-name": the same out-of-line template instance
// (std::__introsort_loop<...>) is named by its symbol where it is the
// innermost frame, but by DWARF's unqualified "__introsort_loop<...>"
// where code is inlined into it: one function, two names. pprofx names it
// by its symbol in both places.
//
// "comp-dir-twice": a DWARF 5 file in directory 0, the compilation
// directory, when that is relative (-ffile-prefix-map, as Debian builds):
// addr2line joins the compilation directory to it once more, "./app" and
// "relprog.c" giving ./app/./app/relprog.c, a file no source tree holds;
// pprofx gives ./app/relprog.c.
func pprofError(i int, got, want []line) string {
	g, w := got[i], want[i]
	if g.name == w.name && g.sys == w.sys && g.line == w.line && g.file != w.file {
		for k := strings.IndexByte(g.file, '/'); k > 0; k = nextSlash(g.file, k) {
			if d := g.file[:k]; !strings.HasPrefix(d, "/") && w.file == d+"/"+g.file {
				return "comp-dir-twice"
			}
		}
	}
	if g.file != w.file || g.line != w.line || len(got) < 2 {
		return ""
	}
	last := got[len(got)-1]
	if i == 0 && w.name == last.name && w.sys == last.sys {
		return "inlined-named-as-caller"
	}
	if i == len(got)-1 && strings.HasPrefix(g.sys, "_Z") && !strings.HasPrefix(w.sys, "_Z") &&
		strings.HasSuffix(g.name, "::"+w.name) {
		return "unqualified-outer-name"
	}
	return ""
}

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
		for _, ln := range l.Lines {
			f := p.Functions[ln.Function]
			ls = append(ls, line{p.String(f.Name), p.String(f.SystemName), p.String(f.Filename), ln.Line})
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
			want = append(want, fixRef(line{ln.Function.Name, ln.Function.SystemName, ln.Function.Filename, ln.Line}, &known))
		}
		compared++
		if len(got) == len(want) {
			for i := range want {
				if got[i] != want[i] {
					if why := pprofError(i, got, want); why != "" {
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

// nextSlash is the index of the next "/" in s after k, or -1.
func nextSlash(s string, k int) int {
	if j := strings.IndexByte(s[k+1:], '/'); j >= 0 {
		return k + 1 + j
	}
	return -1
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
			fmt.Fprintf(&b, "\n  frame %d: pprofx %v\n           pprof  %v", i, g, w)
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
