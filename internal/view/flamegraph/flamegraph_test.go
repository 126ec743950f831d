package flamegraph_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/testutil/viewtest"
	"github.com/pprofx/pprofx/internal/view/callstacks"
	"github.com/pprofx/pprofx/internal/view/flamegraph"
)

type data struct {
	Names  []string
	Pre    []int
	Cnt    []int
	Fr     []int
	Active int
	Types  []struct {
		Name, Unit string
		Values     []int64
	}
}

// TestData: the page's data, decoded as the script decodes it, gives back
// every fixture's stacks and values for every sample type; the output is
// byte for byte the same on a second run.
func TestData(t *testing.T) {
	for _, fx := range viewtest.Fixtures(t) {
		p := fx.Profile
		var a, b bytes.Buffer
		if err := flamegraph.Encode(&a, p, flamegraph.Options{Title: fx.Name}); err != nil {
			t.Fatal(err)
		}
		if err := flamegraph.Encode(&b, p, flamegraph.Options{Title: fx.Name}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two runs differ", fx.Name)
		}
		html := a.String()
		const open = `<script type="application/json" id="pprofx-data">`
		i := strings.Index(html, open)
		j := strings.Index(html[i:], "</script>")
		var d data
		if err := json.Unmarshal([]byte(html[i+len(open):i+j]), &d); err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		types := make([]int, len(p.SampleTypes))
		for k := range types {
			types[k] = k
		}
		set := callstacks.Aggregate(p, types, callstacks.Options{})
		def, _ := callstacks.SampleIndex(p, "")
		if d.Active != def || len(d.Types) != len(types) || len(d.Pre) != set.Len() {
			t.Fatalf("%s: active %d, %d types, %d stacks", fx.Name, d.Active, len(d.Types), len(d.Pre))
		}
		var prev []int
		q := 0
		for k := range d.Pre {
			st := append(append([]int(nil), prev[:d.Pre[k]]...), d.Fr[q:q+d.Cnt[k]]...)
			q += d.Cnt[k]
			want := set.Stack(k)
			if len(st) != len(want) {
				t.Fatalf("%s: stack %d has %d frames, want %d", fx.Name, k, len(st), len(want))
			}
			for x := range st {
				if d.Names[st[x]] != set.Name(want[x]) {
					t.Fatalf("%s: stack %d differs", fx.Name, k)
				}
			}
			for ti := range types {
				if d.Types[ti].Values[k] != set.Values[ti][k] {
					t.Fatalf("%s: stack %d type %d value differs", fx.Name, k, ti)
				}
			}
			prev = st
		}
	}
}

func TestBadSampleType(t *testing.T) {
	fx := viewtest.Fixtures(t)[0]
	if err := flamegraph.Encode(&bytes.Buffer{}, fx.Profile, flamegraph.Options{SampleType: "nope"}); err == nil {
		t.Error("an unknown sample type was taken")
	}
}
