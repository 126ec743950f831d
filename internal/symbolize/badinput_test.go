package symbolize_test

import (
	"debug/elf"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/symbolize"
)

// gnuBuildID reads a binary's build id with the standard library alone,
// as a yardstick independent of the package's own note reader.
func gnuBuildID(t *testing.T, path string) string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Section(".note.gnu.build-id").Data()
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(d[16:]) // 12-byte header, "GNU\0"
}

func mappingByBase(t *testing.T, p *model.Profile, base string) *model.Mapping {
	t.Helper()
	for i := range p.Mappings {
		if filepath.Base(p.String(p.Mappings[i].File)) == base {
			return &p.Mappings[i]
		}
	}
	t.Fatalf("no mapping of %s", base)
	return nil
}

// symbolized counts the locations of mapping base that have lines.
func symbolized(p *model.Profile, base string) (n int) {
	for _, l := range p.Locations {
		if l.Mapping >= 0 && filepath.Base(p.String(p.Mappings[l.Mapping].File)) == base && len(p.LinesOf(&l)) > 0 {
			n++
		}
	}
	return n
}

func TestBuildIDsWithModeNone(t *testing.T) {
	p, warns := symbolizeFixture(t, "cprog.prof", "bin", symbolize.None)
	for _, b := range []string{"cprog", "libwork.so"} {
		m := mappingByBase(t, p, b)
		if got, want := p.String(m.BuildID), gnuBuildID(t, filepath.Join(fixtures, "bin", b)); got != want {
			t.Errorf("%s: build id %q, want %q", b, got, want)
		}
		if m.HasFunctions || symbolized(p, b) != 0 {
			t.Errorf("%s: symbolized with --symbolize=none", b)
		}
	}
	if len(warns) != 0 {
		t.Errorf("warnings in mode none: %q", warns)
	}
}

func TestFlagsAndExtras(t *testing.T) {
	p, _ := symbolizeFixture(t, "cprog.prof", "bin", symbolize.Local)
	for _, b := range []string{"cprog", "libwork.so"} {
		m := mappingByBase(t, p, b)
		if !m.HasFunctions || !m.HasFilenames || !m.HasLineNumbers || !m.HasInlineFrames {
			t.Errorf("%s: flags %+v", b, m)
		}
	}
	// DWARF's declaration line and columns, which pprof's addr2line path
	// leaves out: hot_loop is declared at line 18 of cprog.c.
	found := false
	for _, f := range p.Functions {
		if p.String(f.Name) == "hot_loop" {
			found = true
			if f.StartLine != 18 {
				t.Errorf("hot_loop start line %d, want 18", f.StartLine)
			}
		}
	}
	if !found {
		t.Error("no hot_loop")
	}
	cols := 0
	for _, l := range p.Locations {
		for j := range p.LinesOf(&l) {
			if p.ColumnOf(&l, j) > 0 {
				cols++
			}
		}
	}
	if cols == 0 {
		t.Error("no columns")
	}
	// Without DWARF: names only, and the flags say so.
	p, _ = symbolizeFixture(t, "cxxprog.prof", "stripped", symbolize.Local)
	m := mappingByBase(t, p, "cxxprog")
	if !m.HasFunctions || m.HasFilenames || m.HasLineNumbers || m.HasInlineFrames {
		t.Errorf("symtab-only flags %+v", m)
	}
}

// dirWith makes a directory holding files named name with the given bytes.
func dirWith(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		if b == nil {
			if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readFixture(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hasWarning(warns []string, parts ...string) bool {
	for _, w := range warns {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(w, p)
		}
		if ok {
			return true
		}
	}
	return false
}

func TestTruncatedBinaries(t *testing.T) {
	full := readFixture(t, "bin/cprog")
	for _, n := range []int{0, 3, 16, 52, 64, 200, 1000, 4096, len(full) / 2, len(full) - 100, len(full) - 1} {
		dir := dirWith(t, map[string][]byte{"cprog": full[:n]})
		p, warns := symbolizeFixture(t, "cprog.prof", dir, symbolize.Local)
		if k := symbolized(p, "cprog"); k != 0 {
			// Whatever is read from a cut file must still be right: the
			// full file's answers.
			want, _ := symbolizeFixture(t, "cprog.prof", "bin", symbolize.Local)
			for i, l := range p.Locations {
				if len(p.LinesOf(&l)) > 0 && !sameLines(p, l, want, want.Locations[i]) {
					t.Errorf("cut at %d: location %#x differs from the whole binary's", n, l.Address)
				}
			}
		}
		if !hasWarning(warns, "cprog") {
			t.Errorf("cut at %d: no warning: %q", n, warns)
		}
	}
}

func sameLines(p *model.Profile, l model.Location, q *model.Profile, m model.Location) bool {
	ll, ml := p.LinesOf(&l), q.LinesOf(&m)
	if len(ll) != len(ml) {
		return false
	}
	for i := range ll {
		a, b := p.Functions[ll[i].Function], q.Functions[ml[i].Function]
		if p.String(a.Name) != q.String(b.Name) || p.String(a.Filename) != q.String(b.Filename) || ll[i].Line != ml[i].Line {
			return false
		}
	}
	return true
}

// corruptSection returns a copy of the binary with a section's bytes
// overwritten by fill.
func corruptSection(t *testing.T, bin []byte, name string, fill func(d []byte)) []byte {
	t.Helper()
	f, err := elf.NewFile(strings.NewReader(string(bin)))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(name)
	if s == nil {
		t.Fatalf("no %s", name)
	}
	out := append([]byte(nil), bin...)
	fill(out[s.Offset : s.Offset+s.FileSize])
	return out
}

func TestCorruptDWARF(t *testing.T) {
	bin := readFixture(t, "bin/cprog")
	zbin := readFixture(t, "compressed/cprog")
	want, _ := symbolizeFixture(t, "cprog.prof", "bin", symbolize.Local)
	cases := map[string][]byte{
		// A compressed section that claims 2^64-1 bytes: refused before
		// anything is allocated.
		"zlib size": corruptSection(t, zbin, ".debug_info", func(d []byte) {
			for i := 8; i < 16; i++ {
				d[i] = 0xff
			}
		}),
		// A zlib stream of garbage.
		"zlib garbage": corruptSection(t, zbin, ".debug_line", func(d []byte) {
			for i := 24; i < len(d); i++ {
				d[i] = byte(i * 5)
			}
		}),
		// The first unit claims DWARF version 99.
		"info version": corruptSection(t, bin, ".debug_info", func(d []byte) { d[4], d[5] = 99, 0 }),
		// Abbreviations that say nothing.
		"abbrev zeroed": corruptSection(t, bin, ".debug_abbrev", func(d []byte) { clear(d) }),
		// Line programs of garbage.
		"line garbage": corruptSection(t, bin, ".debug_line", func(d []byte) {
			for i := range d {
				d[i] = byte(i*7 + 3)
			}
		}),
		// DIEs of garbage after a valid unit header.
		"info garbage": corruptSection(t, bin, ".debug_info", func(d []byte) {
			for i := 12; i < len(d); i++ {
				d[i] = byte(i * 13)
			}
		}),
	}
	for name, b := range cases {
		dir := dirWith(t, map[string][]byte{"cprog": b})
		p, warns := symbolizeFixture(t, "cprog.prof", dir, symbolize.Local)
		for i, l := range p.Locations {
			ll := p.LinesOf(&l)
			if len(ll) == 0 || filepath.Base(p.String(p.Mappings[l.Mapping].File)) != "cprog" {
				continue
			}
			// What is given must be right: the function named last (the
			// one not inlined) is the whole binary's; a file and line,
			// where given, are too.
			wl := want.LocationLines(i)
			got, exp := ll[len(ll)-1], wl[len(wl)-1]
			gf, ef := p.Functions[got.Function], want.Functions[exp.Function]
			if p.String(gf.Name) != want.String(ef.Name) {
				t.Errorf("%s: %#x: function %q, want %q", name, l.Address, p.String(gf.Name), want.String(ef.Name))
			}
			for j, ln := range ll {
				if j >= len(wl) {
					t.Errorf("%s: %#x: %d frames, the whole binary's %d", name, l.Address, len(ll), len(wl))
					break
				}
				if ln.Line == 0 {
					continue // not known, not wrong
				}
				gf, ef := p.Functions[ln.Function], want.Functions[wl[j].Function]
				file := p.String(gf.Filename) // "" when the line table is gone
				if p.String(gf.Name) != want.String(ef.Name) || file != "" && file != want.String(ef.Filename) || ln.Line != wl[j].Line {
					t.Errorf("%s: %#x frame %d differs from the whole binary's", name, l.Address, j)
				}
			}
		}
		if !hasWarning(warns, "cprog", "DWARF") {
			t.Errorf("%s: no warning: %q", name, warns)
		}
		t.Logf("%s: %d symbolized, warnings %q", name, symbolized(p, "cprog"), warns)
	}
}

func TestUnrelatedFiles(t *testing.T) {
	dir := dirWith(t, map[string][]byte{
		"cprog":      []byte("#!/bin/sh\necho not a binary\n"),
		"libwork.so": nil, // a directory
		"cxxprog":    readFixture(t, "bin/cprog-i386"),
	})
	for _, prof := range []string{"cprog.prof", "cxxprog.prof"} {
		p, warns := symbolizeFixture(t, prof, dir, symbolize.Local)
		for _, b := range []string{"cprog", "cxxprog", "libwork.so"} {
			if n := symbolized(p, b); n != 0 {
				t.Errorf("%s: %d locations of %s symbolized from an unrelated file", prof, n, b)
			}
		}
		t.Logf("%s: %q", prof, warns)
	}
	// The i386 binary named cxxprog does not fit the mapping: named in a warning.
	_, warns := symbolizeFixture(t, "cxxprog.prof", dir, symbolize.Local)
	if !hasWarning(warns, "cxxprog", "do not fit") {
		t.Errorf("no mismatch warning: %q", warns)
	}
	_, warns = symbolizeFixture(t, "cprog.prof", dir, symbolize.Local)
	if !hasWarning(warns, "cprog", "not an ELF file") {
		t.Errorf("no warning for the script: %q", warns)
	}
}

func TestMismatchedBuildID(t *testing.T) {
	p := readProf(t, "cprog.prof")
	m := mappingByBase(t, p, "cprog")
	p.Strings = append(p.Strings, "0123456789abcdef0123456789abcdef01234567")
	m.BuildID = int32(len(p.Strings) - 1)
	var warns []string
	symbolize.Symbolize(p, symbolize.Options{Mode: symbolize.Local, Dirs: []string{filepath.Join(fixtures, "bin")},
		DebugRoots: []string{}, NoOriginalPath: true, Warn: func(s string) { warns = append(warns, s) }})
	if n := symbolized(p, "cprog"); n != 0 {
		t.Errorf("%d locations symbolized from a binary with another build id", n)
	}
	if n := symbolized(p, "libwork.so"); n == 0 {
		t.Error("libwork.so, which matches, was not symbolized")
	}
	id := gnuBuildID(t, filepath.Join(fixtures, "bin/cprog"))
	if !hasWarning(warns, "0123456789abcdef0123456789abcdef01234567", id) {
		t.Errorf("the warning does not name both build ids: %q", warns)
	}
	if got := p.String(m.BuildID); got != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("the profile's build id was changed to %q", got)
	}
}

// A mapping whose offset or size is not the binary's is refused.
func TestMappingMustFit(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m *model.Mapping)
	}{
		{"offset", func(m *model.Mapping) { m.Offset += 0x1000 }},
		{"size", func(m *model.Mapping) { m.Limit += 0x3000 }},
	} {
		p := readProf(t, "cprog.prof")
		tc.edit(mappingByBase(t, p, "cprog"))
		var warns []string
		symbolize.Symbolize(p, symbolize.Options{Mode: symbolize.Local, Dirs: []string{filepath.Join(fixtures, "bin")},
			DebugRoots: []string{}, NoOriginalPath: true, Warn: func(s string) { warns = append(warns, s) }})
		if n := symbolized(p, "cprog"); n != 0 {
			t.Errorf("%s: %d locations symbolized", tc.name, n)
		}
		if !hasWarning(warns, "cprog", "do not fit") {
			t.Errorf("%s: %q", tc.name, warns)
		}
	}
}

func TestLocalWarnsForMissing(t *testing.T) {
	empty := t.TempDir()
	_, warns := symbolizeFixture(t, "cprog.prof", empty, symbolize.Local)
	if !hasWarning(warns, "cprog", "not symbolized") {
		t.Errorf("local: %q", warns)
	}
	_, warns = symbolizeFixture(t, "cprog.prof", empty, symbolize.Auto)
	if len(warns) != 0 {
		t.Errorf("auto warns for missing binaries: %q", warns)
	}
}
