package bundle

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/pprofx/pprofx/internal/model"
)

// TestCorpusSizes reports, with -v, the bundle size of the corpus's CPU and
// heap profiles against their summed .pb.gz sizes, and the size of
// google/pprof's lossy profile.Merge of the same profiles written gzipped,
// as pprof writes it. The targets (at most 11 % CPU, 9 % heap) are
// checked by scripts/bundle-bench.sh, not here: figures are not tests.
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
		data, err := bundleOf(ps...)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var secs uint64
		for _, e := range r.entries {
			secs += e.size
		}
		pct := func(n int) float64 { return 100 * float64(n) / float64(sum) }
		t.Logf("%s: %d profiles, inputs %d bytes, bundle %d bytes = %.1f%% (sections %d, tables %d, index+footer %d)",
			kind, len(ps), sum, len(data), pct(len(data)), secs, r.tablesLen, uint64(len(data))-r.tablesOff-r.tablesLen)
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

// TestCorpusFiguresInREADME: the bundle sizes the README states, measured on
// the committed corpus (testdata/corpus), are what the code gives, to a
// tenth of a percent: sizes are deterministic, so a regression fails here.
func TestCorpusFiguresInREADME(t *testing.T) {
	if os.Getenv("PPROFX_CORPUS") != "" {
		t.Skip("PPROFX_CORPUS names another corpus than the README's")
	}
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
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
	for _, want := range []string{
		fmt.Sprintf("take about %.1f %% of their summed .pb.gz size (heap: %.1f %%", pct["cpu"], pct["heap"]),
		fmt.Sprintf("| bundle of 50 CPU profiles (`scripts/bundle-bench.sh`, `TestCorpusFiguresInREADME`) | %.1f %% of the summed .pb.gz | lossy profile.Merge %.1f %%", pct["cpu"], pct["cpu-merge"]),
		fmt.Sprintf("| bundle of 50 heap profiles | %.1f %% | lossy profile.Merge %.1f %%", pct["heap"], pct["heap-merge"]),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}
