package symbolize_test

import (
	"path/filepath"
	"testing"

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
