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
var fixtureBinaries = map[string]bool{"cprog": true, "cxxprog": true, "libwork.so": true, "cprog-i386": true, "cprog-s390x": true}

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

// pprofErrors are the frames where pprof's output is wrong, by reference
// file and address: the frame, the name pprof gives it, and why that is wrong.
// The frame is compared on everything but the name.
var pprofErrors = map[string]struct {
	frame int
	name  string
	why   string
}{
	// addr2line names the innermost frame after the symbol at the start of
	// the innermost function's first range when DWARF gives that function
	// no linkage name. For an inlined frame that is the function it was
	// inlined into: its own name then appears twice in one chain, at a line
	// of another function's source (stl_algo.h:1937 is std::__sort's).
	"cxxprog.pb.gz 0x402320": {0, "geo::Cloud::sortByNorm", "inlined std::__sort named after the function it is inlined into"},
	"cxxprog.pb.gz 0x402353": {0, "geo::Cloud::sortByNorm", "inlined std::__unguarded_insertion_sort named after the function it is inlined into"},
	"cxxprog.pb.gz 0x401f36": {0, "std::__introsort_loop", "inlined std::__unguarded_partition named after the function it is inlined into"},
	"cxxprog.pb.gz 0x402086": {0, "std::__introsort_loop", "inlined std::__move_median_to_first named after the function it is inlined into"},
	// The same function, std::__introsort_loop<...>, is named by its
	// symbol (mangled, demangled) where it is the innermost frame and by
	// DWARF's unqualified "__introsort_loop<...>" where code is inlined
	// into it: one function, two names. pprofx names it by its symbol in
	// both places.
	"cxxprog.pb.gz 0x401f40": {5, "__introsort_loop", "the outer frame of an inline chain keeps DWARF's unqualified template name"},
	"cxxprog.pb.gz 0x401f7f": {5, "__introsort_loop", "the outer frame of an inline chain keeps DWARF's unqualified template name"},
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
		if e, ok := pprofErrors[fmt.Sprintf("%s %#x", ref, k.addr)]; ok && e.frame < len(want) && e.frame < len(got) {
			w, g := want[e.frame], got[e.frame]
			if w.name != e.name || w.file != g.file || w.line != g.line {
				t.Errorf("%s %#x: pprof's frame %d is not the known error (%s): %v", k.bin, k.addr, e.frame, e.why, w)
			}
			want[e.frame] = g
			known++
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
	t.Logf("%s against %s: %d locations compared, %d differ, %d known pprof errors", prof, ref, compared, differ, known)
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
