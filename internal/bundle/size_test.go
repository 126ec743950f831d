package bundle

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
)

// TestCorpusSizes logs the bundle size of the corpus's CPU and heap
// profiles against their summed .pb.gz sizes. It asserts nothing about the
// figures (see BenchmarkCorpusSize); it only reports them with -v.
func TestCorpusSizes(t *testing.T) {
	files := corpusFiles(t)
	for _, kind := range []string{"cpu", "heap"} {
		var ps []*model.Profile
		var sum int64
		for _, f := range files {
			if m, _ := filepath.Match(kind+"-*", filepath.Base(f)); !m {
				continue
			}
			st, _ := os.Stat(f)
			sum += st.Size()
			ps = append(ps, fromPprof(parseFile(t, f)))
		}
		data, err := bundleOf(ps...)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d profiles, inputs %d bytes, bundle %d bytes = %.1f%%", kind, len(ps), sum, len(data), 100*float64(len(data))/float64(sum))
		r, _ := Open(bytes.NewReader(data), int64(len(data)))
		var secs uint64
		for _, e := range r.entries {
			secs += e.size
		}
		t.Logf("  sections %d, tables %d (raw %d), index+footer %d", secs, r.tablesLen, r.tablesRaw, uint64(len(data))-r.tablesOff-r.tablesLen)
	}
}
