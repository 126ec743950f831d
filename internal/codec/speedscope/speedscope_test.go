package speedscope_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/speedscope"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/viewtest"
	"github.com/pprofx/pprofx/internal/view/callstacks"
)

func schema(t *testing.T) (*validator, map[string]any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(viewtest.Root(), "testdata", "speedscope", "file-format-schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, root, err := newValidator(data)
	if err != nil {
		t.Fatal(err)
	}
	return v, root
}

// TestValidatorRejects: the validator is not a check that cannot fail.
func TestValidatorRejects(t *testing.T) {
	v, root := schema(t)
	for _, doc := range []string{
		`{}`,
		`{"shared":{"frames":[]},"profiles":[{"type":"sampled","name":"x","unit":"furlongs","startValue":0,"endValue":1,"samples":[],"weights":[]}]}`,
		`{"shared":{"frames":[{"file":"a.go"}]},"profiles":[]}`,
		`{"shared":{"frames":[]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[["a"]],"weights":[1]}]}`,
		`{"shared":{"frames":[]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[]}]}`,
		`{"$schema":"https://example.com","shared":{"frames":[]},"profiles":[]}`,
	} {
		var x any
		if err := json.Unmarshal([]byte(doc), &x); err != nil {
			t.Fatal(err)
		}
		if err := v.check(root, x, "$"); err == nil {
			t.Errorf("accepted %s", doc)
		}
	}
}

type file struct {
	ActiveProfileIndex int
	Shared             struct{ Frames []struct{ Name, File string } }
	Profiles           []struct {
		Type, Name, Unit     string
		StartValue, EndValue int64
		Samples              [][]int
		Weights              []int64
	}
}

// TestFixtures: every real fixture's speedscope file validates against
// speedscope's published schema, holds every sample type, and each frame's
// total (samples it is in, counted once) and self value match the source
// profile's, computed straight from its samples.
func TestFixtures(t *testing.T) {
	v, root := schema(t)
	for _, fx := range viewtest.Fixtures(t) {
		p := fx.Profile
		var buf bytes.Buffer
		if err := speedscope.Encode(&buf, p, speedscope.Options{Name: fx.Name, Exporter: "pprofx test"}); err != nil {
			t.Fatal(err)
		}
		var x any
		if err := json.Unmarshal(buf.Bytes(), &x); err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		if err := v.check(root, x, "$"); err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		var f file
		if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
			t.Fatal(err)
		}
		if len(f.Profiles) != len(p.SampleTypes) {
			t.Fatalf("%s: %d profiles, %d sample types", fx.Name, len(f.Profiles), len(p.SampleTypes))
		}
		def, _ := callstacks.SampleIndex(p, "")
		if f.ActiveProfileIndex != def {
			t.Errorf("%s: active profile %d, default sample type %d", fx.Name, f.ActiveProfileIndex, def)
		}
		for ti, prof := range f.Profiles {
			st := p.SampleTypes[ti]
			if want := p.String(st.Type) + "/" + p.String(st.Unit); prof.Name != want {
				t.Errorf("%s: profile %d named %q, want %q", fx.Name, ti, prof.Name, want)
			}
			gotCum, gotSelf := map[string]int64{}, map[string]int64{}
			var sum int64
			for i, s := range prof.Samples {
				w := prof.Weights[i]
				sum += w
				seen := map[string]bool{}
				for _, fi := range s {
					n := f.Shared.Frames[fi].Name
					if !seen[n] {
						gotCum[n] += w
						seen[n] = true
					}
				}
				gotSelf[f.Shared.Frames[s[len(s)-1]].Name] += w
			}
			wantCum, wantSelf, total := frameTotals(p, ti)
			if sum != total || prof.EndValue != total {
				t.Errorf("%s/%s: weights sum to %d, endValue %d; the source's total is %d", fx.Name, prof.Name, sum, prof.EndValue, total)
			}
			if !equal(gotCum, wantCum) || !equal(gotSelf, wantSelf) {
				t.Errorf("%s/%s: per-frame totals differ from the source", fx.Name, prof.Name)
			}
		}
	}
}

// frameTotals sums, straight from p's samples, each frame name's total
// (once per sample) and self value for sample type ti.
func frameTotals(p *model.Profile, ti int) (cum, self map[string]int64, total int64) {
	cum, self = map[string]int64{}, map[string]int64{}
	for _, s := range p.Samples {
		w := s.Values()[ti]
		total += w
		if w == 0 {
			continue
		}
		stack := p.Stacks.Append(nil, int(s.Stack))
		seen := map[string]bool{}
		for i, li := range stack {
			names := callstacks.FrameNames(p, li, false)
			if i == 0 {
				self[names[0]] += w
			}
			for _, n := range names {
				if !seen[n] {
					cum[n] += w
					seen[n] = true
				}
			}
		}
	}
	for _, m := range []map[string]int64{cum, self} {
		for k, v := range m {
			if v == 0 {
				delete(m, k)
			}
		}
	}
	return cum, self, total
}

func equal(a, b map[string]int64) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestUnits(t *testing.T) {
	for in, want := range map[string]string{"nanoseconds": "nanoseconds", "bytes": "bytes", "count": "none", "": "none"} {
		if got := speedscope.Unit(in); got != want {
			t.Errorf("Unit(%q) = %q", in, got)
		}
	}
	if !strings.HasPrefix(speedscope.SchemaURL, "https://www.speedscope.app/") {
		t.Error(speedscope.SchemaURL)
	}
}
