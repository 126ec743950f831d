package bundle

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/model"
)

// TestCorpusSizes reports, with -v, the bundle size of the corpus's CPU and
// heap profiles against their summed .pb.gz sizes, and the size of
// google/pprof's lossy profile.Merge of the same profiles written gzipped,
// as pprof writes it. The targets (at most 11 % CPU, 9 % heap) are
// checked by scripts/bench/bundle-bench.sh, not here: figures are not tests.
func TestCorpusSizes(t *testing.T) {
	files := corpusFiles(t)
	for _, kind := range []string{"cpu", "heap"} {
		var ps []*model.Profile
		var pps []*profile.Profile
		var sum int64
		for _, f := range files {
			if m, _ := filepath.Match(kind+"-*", filepath.Base(f)); !m {
				continue
			}
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			sum += st.Size()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			pp, err := profile.ParseData(data)
			if err != nil {
				t.Fatal(err)
			}
			pps = append(pps, pp)
			ps = append(ps, decodeFile(t, f))
		}
		r := openBundleOf(t, ps...)
		size := int(r.size)
		var secs uint64
		for _, e := range r.entries {
			secs += e.size
		}
		pct := func(n int) float64 { return 100 * float64(n) / float64(sum) }
		t.Logf("%s: %d profiles, inputs %d bytes, bundle %d bytes = %.1f%% (sections %d, tables %d, index+footer %d)",
			kind, len(ps), sum, size, pct(size), secs, r.tablesLen, uint64(size)-r.tablesOff-r.tablesLen)
		merged, err := profile.Merge(pps)
		if err != nil {
			t.Logf("%s: profile.Merge: %v", kind, err)
			continue
		}
		var buf bytes.Buffer
		if err := merged.Write(&buf); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: google/pprof profile.Merge (lossy), gzipped: %d bytes = %.1f%%", kind, buf.Len(), pct(buf.Len()))
	}
}

var update = flag.Bool("update", false, "rewrite testdata/corpus-sizes.golden")

// corpusGolden holds the bundle sizes measured on the committed corpus
// (testdata/corpus), in percent of the summed .pb.gz, beside google/pprof's
// lossy profile.Merge: docs/performance.md quotes them.
var corpusGolden = filepath.Join("testdata", "corpus-sizes.golden")

// TestCorpusSizeGolden: the sizes are deterministic, so a regression (or a
// gain) fails here until the golden file is rewritten with -update.
func TestCorpusSizeGolden(t *testing.T) {
	if os.Getenv("PPROFX_CORPUS") != "" {
		t.Skip("PPROFX_CORPUS names another corpus than the committed one")
	}
	pct := map[string]float64{}
	for _, kind := range []string{"cpu", "heap"} {
		var ps []*model.Profile
		var pps []*profile.Profile
		var sum int64
		for _, f := range corpusFiles(t) {
			if m, _ := filepath.Match(kind+"-*", filepath.Base(f)); !m {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sum += int64(len(data))
			pp, err := profile.ParseData(data)
			if err != nil {
				t.Fatal(err)
			}
			pps = append(pps, pp)
			ps = append(ps, decodeFile(t, f))
		}
		if len(ps) != 50 {
			t.Fatalf("%d %s profiles in the corpus, want 50", len(ps), kind)
		}
		data, err := bundleOf(ps...)
		if err != nil {
			t.Fatal(err)
		}
		merged, err := profile.Merge(pps)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := merged.Write(&buf); err != nil {
			t.Fatal(err)
		}
		pct[kind] = 100 * float64(len(data)) / float64(sum)
		pct[kind+"-merge"] = 100 * float64(buf.Len()) / float64(sum)
	}
	var got bytes.Buffer
	for _, k := range []string{"cpu", "cpu-merge", "heap", "heap-merge"} {
		fmt.Fprintf(&got, "%s %.1f\n", k, pct[k])
	}
	if *update {
		if err := os.WriteFile(corpusGolden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(corpusGolden)
	if err != nil {
		t.Fatalf("%v (go test -run TestCorpusSizeGolden -update writes it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("bundle sizes changed (go test -run TestCorpusSizeGolden -update, then docs/performance.md):\ngot:\n%swant:\n%s", got.Bytes(), want)
	}
}
