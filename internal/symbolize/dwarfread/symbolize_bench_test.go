package dwarfread_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/symbolize"
	"github.com/pprofx/pprofx/internal/symbolize/dwarfread"
)

const fixtures = "../../../testdata/symbolize"

// BenchmarkSymbolizeInflaters symbolizes, with each DEFLATE inflater in
// turn, profiles whose addresses are in this machine's libc, whose debug
// file (Debian's libc6-dbg, found by build id under /usr/lib/debug) has
// zlib-compressed DWARF that lazy reading inflates: cprog.prof (recorded
// by libprofiler: a few addresses in libc, inflated as far as their
// units), and libc-step64 (made here by mkprof from libc's functions: an
// address every 64 bytes of each, so that every unit is read). It is
// skipped where libc's debug file, or the libc cprog.prof was recorded
// with, is not here. The inflation alone: BenchmarkInflaters.
func BenchmarkSymbolizeInflaters(b *testing.B) {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	debug, err := dwarfread.DebugFileOf(libc)
	if err != nil {
		b.Skip(err)
	}
	dense := filepath.Join(b.TempDir(), "libc-step64.prof")
	mk := exec.Command("go", "run", filepath.Join(fixtures, "mkprof"), "-bin", libc, "-syms", debug,
		"-path", libc, "-base", "0x7f0000000000", "-step", "64", "-o", dense)
	if out, err := mk.CombinedOutput(); err != nil {
		b.Fatalf("mkprof: %v\n%s", err, out)
	}
	for _, prof := range []string{filepath.Join(fixtures, "cprog.prof"), dense} {
		base := readProfile(b, prof)
		name := strings.TrimSuffix(filepath.Base(prof), ".prof")
		for _, inf := range dwarfread.InflaterNames() {
			b.Run("profile="+name+"/inflater="+inf, func(b *testing.B) {
				defer dwarfread.UseInflater(b, inf)()
				var p model.Profile
				for b.Loop() {
					p = *base
					p.Locations = append(p.Locations[:0:0], base.Locations...)
					p.Mappings = append(p.Mappings[:0:0], base.Mappings...)
					p.Strings = append(p.Strings[:0:0], base.Strings...)
					p.Functions = append(p.Functions[:0:0], base.Functions...)
					symbolize.Symbolize(&p, symbolize.Options{Mode: symbolize.Auto, Dirs: []string{filepath.Join(fixtures, "bin")}})
				}
				// What is timed is the work asked for: libc's locations
				// answered from its DWARF.
				if !libcFromDWARF(&p) {
					b.Skipf("%s: libc not symbolized from DWARF (a libc other than the one recorded?)", name)
				}
			})
		}
	}
}

// readProfile reads the profile at path with pprofx's own reader.
func readProfile(b *testing.B, path string) *model.Profile {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	in, err := formats.Read(f, formats.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return in.Items[0].Profile
}

// libcFromDWARF reports whether p's libc mapping has inline frames (DWARF
// was read) and some of its locations lines.
func libcFromDWARF(p *model.Profile) bool {
	for mi, m := range p.Mappings {
		if filepath.Base(p.String(m.File)) != "libc.so.6" || !m.HasInlineFrames {
			continue
		}
		for _, l := range p.Locations {
			if int(l.Mapping) == mi && len(p.LinesOf(&l)) > 0 {
				return true
			}
		}
	}
	return false
}
