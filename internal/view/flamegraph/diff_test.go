package flamegraph_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/diff"
	"github.com/pprofx/pprofx/internal/view/callstacks"
	"github.com/pprofx/pprofx/internal/view/flamegraph"
)

type diffData struct {
	Names []string
	Pre   []int
	Cnt   []int
	Fr    []int
	Diff  struct{ Base, New string }
	Types []struct {
		Name         string
		Values, Base []int64
	}
}

func readTestdata(t *testing.T, name string) *model.Profile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	in, err := formats.Read(bytes.NewReader(b), formats.ReadOptions{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return in.Items[0].Profile
}

// byStack sums p's values of each sample type by the root-first stack of
// frame names, joined with ";".
func byStack(p *model.Profile) map[string][]int64 {
	types := make([]int, len(p.SampleTypes))
	for i := range types {
		types[i] = i
	}
	set := callstacks.Aggregate(p, types, callstacks.Options{})
	out := map[string][]int64{}
	for k := 0; k < set.Len(); k++ {
		var names []string
		for _, f := range set.Stack(k) {
			names = append(names, set.Name(f))
		}
		v := make([]int64, len(types))
		for t := range types {
			v[t] = set.Values[t][k]
		}
		out[strings.Join(names, ";")] = v
	}
	return out
}

// TestDiffPage: a differential page of two CPU profiles of one program
// carries, for every stack and sample type, NEW's value and BASE's, as
// each input has them; the renderer's differential parts are in it, and
// not in a page of one profile.
func TestDiffPage(t *testing.T) {
	pb, pn := readTestdata(t, "corpus/cpu-00.pb.gz"), readTestdata(t, "corpus/cpu-01.pb.gz")
	d, err := diff.Diff(pb, pn, diff.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	opts := flamegraph.Options{Base: diff.BaseSamples(d), BaseName: "cpu-00", NewName: "cpu-01"}
	if err := flamegraph.Encode(&a, d, opts); err != nil {
		t.Fatal(err)
	}
	if err := flamegraph.Encode(&b, d, opts); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two runs differ")
	}
	page := a.String()
	if !strings.Contains(page, "function diffColor") || strings.Contains(page, "//diff:") {
		t.Error("the differential page lacks the differential renderer, or holds its markers")
	}
	var plain bytes.Buffer
	if err := flamegraph.Encode(&plain, pn, flamegraph.Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "D.diff") || strings.Contains(plain.String(), "#legend") {
		t.Error("a page of one profile holds the differential renderer")
	}

	const open = `<script type="application/json" id="pprofx-data">`
	i := strings.Index(page, open)
	j := strings.Index(page[i:], "</script>")
	var dd diffData
	if err := json.Unmarshal([]byte(page[i+len(open):i+j]), &dd); err != nil {
		t.Fatal(err)
	}
	if dd.Diff.Base != "cpu-00" || dd.Diff.New != "cpu-01" || len(dd.Types) != len(pn.SampleTypes) {
		t.Fatalf("diff %+v, %d types", dd.Diff, len(dd.Types))
	}
	wantNew, wantBase := byStack(pn), byStack(pb)
	got := map[string]bool{}
	var prev []int
	q := 0
	grew, shrank := 0, 0
	for k := range dd.Pre {
		st := append(append([]int(nil), prev[:dd.Pre[k]]...), dd.Fr[q:q+dd.Cnt[k]]...)
		q += dd.Cnt[k]
		prev = st
		var names []string
		for _, f := range st {
			names = append(names, dd.Names[f])
		}
		key := strings.Join(names, ";")
		got[key] = true
		for ti, ty := range dd.Types {
			var nv, bv int64
			if v, ok := wantNew[key]; ok {
				nv = v[ti]
			}
			if v, ok := wantBase[key]; ok {
				bv = v[ti]
			}
			if ty.Values[k] != nv || ty.Base[k] != bv {
				t.Fatalf("%s, %s: NEW %d BASE %d, want %d %d", key, ty.Name, ty.Values[k], ty.Base[k], nv, bv)
			}
			if ti == 0 && nv > bv {
				grew++
			} else if ti == 0 && nv < bv {
				shrank++
			}
		}
	}
	for key := range wantNew {
		if !got[key] {
			t.Errorf("NEW's stack %s is not on the page", key)
		}
	}
	for key := range wantBase {
		if !got[key] {
			t.Errorf("BASE's stack %s is not on the page", key)
		}
	}
	if grew == 0 || shrank == 0 {
		t.Errorf("%d stacks grew, %d shrank: not a pair that tells the colours apart", grew, shrank)
	}
}
