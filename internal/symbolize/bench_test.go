package symbolize_test

import (
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/symbolize"
)

// BenchmarkSymbolize symbolizes a fixture profile as `pprofx symbolize`
// does: the fixture binaries, then the recorded paths (this machine's
// libraries) and /usr/lib/debug. The whole-process comparison with
// google/pprof is scripts/bench/symbolize-bench.sh.
func BenchmarkSymbolize(b *testing.B) {
	for _, prof := range []string{"cprog.prof", "cxxprog.prof", "cxxprog-all.prof", "i386.prof", "s390x.prof"} {
		b.Run(prof, func(b *testing.B) {
			base := readProf(b, prof)
			for b.Loop() {
				p := *base
				p.Locations = append(p.Locations[:0:0], base.Locations...)
				p.Mappings = append(p.Mappings[:0:0], base.Mappings...)
				p.Strings = append(p.Strings[:0:0], base.Strings...)
				symbolize.Symbolize(&p, symbolize.Options{Mode: symbolize.Auto, Dirs: []string{filepath.Join(fixtures, "bin")}})
			}
		})
	}
}

// BenchmarkSymbolizeInflaters symbolizes, with each DEFLATE inflater in
// turn, profiles whose addresses are in this machine's libc, whose debug
// file (Debian's libc6-dbg, found by build id under /usr/lib/debug) has
// zlib-compressed DWARF that lazy reading inflates: cprog.prof (recorded
// by libprofiler: a few addresses in libc, inflated as far as their
// units), and libc-step64 (made here by mkprof from libc's functions:
// an address every 64 bytes of each, so that every unit is read). It is
// skipped where libc's debug file or the libc cprog.prof was recorded
// with is not here. The inflation alone: BenchmarkInflaters.
func BenchmarkSymbolizeInflaters(b *testing.B) {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	debug := libcDebugFile(b, libc)
	dense := filepath.Join(b.TempDir(), "libc-step64.prof")
	mk := exec.Command("go", "run", "../../testdata/symbolize/mkprof", "-bin", libc, "-syms", debug,
		"-path", libc, "-base", "0x7f0000000000", "-step", "64", "-o", dense)
	if out, err := mk.CombinedOutput(); err != nil {
		b.Fatalf("mkprof: %v\n%s", err, out)
	}
	for _, prof := range []string{filepath.Join(fixtures, "cprog.prof"), dense} {
		base := readProfFile(b, prof)
		name := strings.TrimSuffix(filepath.Base(prof), ".prof")
		for _, inf := range symbolize.InflaterNames() {
			b.Run("profile="+name+"/inflater="+inf, func(b *testing.B) {
				defer symbolize.UseInflater(b, inf)()
				var p model.Profile
				for b.Loop() {
					p = *base
					p.Locations = append(p.Locations[:0:0], base.Locations...)
					p.Mappings = append(p.Mappings[:0:0], base.Mappings...)
					p.Strings = append(p.Strings[:0:0], base.Strings...)
					p.Functions = append(p.Functions[:0:0], base.Functions...)
					symbolize.Symbolize(&p, symbolize.Options{Mode: symbolize.Auto, Dirs: []string{filepath.Join(fixtures, "bin")}})
				}
				// What is timed is the work asked for: libc's
				// locations answered from its DWARF.
				m := mappingOf(b, &p, "libc.so.6")
				if !m.HasInlineFrames || symbolized(&p, "libc.so.6") == 0 {
					b.Skipf("%s: libc not symbolized from DWARF (a libc other than the one recorded?)", name)
				}
			})
		}
	}
}

// libcDebugFile is the separate debug file of libc, by its build id, or
// skips the benchmark.
func libcDebugFile(b *testing.B, libc string) string {
	f, err := elf.Open(libc)
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		b.Skip("libc has no build id")
	}
	d, err := s.Data()
	if err != nil || len(d) < 18 {
		b.Skip("libc's build id note does not read")
	}
	id := hex.EncodeToString(d[16:]) // 12-byte header, "GNU\0"
	path := filepath.Join("/usr/lib/debug/.build-id", id[:2], id[2:]+".debug")
	if _, err := os.Stat(path); err != nil {
		b.Skip("no debug file for libc (libc6-dbg):", err)
	}
	return path
}

// mappingOf returns the mapping of the file named base.
func mappingOf(b *testing.B, p *model.Profile, base string) *model.Mapping {
	for i := range p.Mappings {
		if filepath.Base(p.String(p.Mappings[i].File)) == base {
			return &p.Mappings[i]
		}
	}
	b.Fatalf("no mapping of %s", base)
	return nil
}
