package pprofcmp

import (
	"testing"

	"github.com/google/pprof/profile"
)

func base() *profile.Profile {
	m := &profile.Mapping{ID: 1, Start: 1, Limit: 100, File: "a", BuildID: "b", HasFunctions: true}
	f := &profile.Function{ID: 1, Name: "f", Filename: "f.go"}
	l := &profile.Location{ID: 1, Mapping: m, Address: 10, Line: []profile.Line{{Function: f, Line: 3, Column: 1}}}
	return &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "t", Unit: "u"}},
		Sample: []*profile.Sample{{Location: []*profile.Location{l}, Value: []int64{1},
			Label: map[string][]string{"k": {"v"}}, NumLabel: map[string][]int64{"n": {1}}, NumUnit: map[string][]string{"n": {"bytes"}}}},
		Mapping: []*profile.Mapping{m}, Location: []*profile.Location{l}, Function: []*profile.Function{f},
		Comments: []string{"c"}, DocURL: "d", Period: 1, PeriodType: &profile.ValueType{Type: "t", Unit: "u"},
	}
}

// Every kind of difference the lossless tests rely on is seen.
func TestDiffSeesEachField(t *testing.T) {
	if d := Diff(base(), base()); d != "" {
		t.Fatalf("equal profiles differ: %s", d)
	}
	muts := map[string]func(p *profile.Profile){
		"value":       func(p *profile.Profile) { p.Sample[0].Value[0] = 2 },
		"label":       func(p *profile.Profile) { p.Sample[0].Label["k"] = []string{"v", "w"} },
		"num unit":    func(p *profile.Profile) { p.Sample[0].NumUnit["n"] = []string{"seconds"} },
		"address":     func(p *profile.Profile) { p.Location[0].Address = 11 },
		"column":      func(p *profile.Profile) { p.Location[0].Line[0].Column = 2 },
		"folded":      func(p *profile.Profile) { p.Location[0].IsFolded = true },
		"function":    func(p *profile.Profile) { p.Function[0].StartLine = 9 },
		"build id":    func(p *profile.Profile) { p.Mapping[0].BuildID = "x" },
		"flag":        func(p *profile.Profile) { p.Mapping[0].HasInlineFrames = true },
		"comment":     func(p *profile.Profile) { p.Comments = nil },
		"doc url":     func(p *profile.Profile) { p.DocURL = "" },
		"drop":        func(p *profile.Profile) { p.DropFrames = "x" },
		"keep":        func(p *profile.Profile) { p.KeepFrames = "x" },
		"time":        func(p *profile.Profile) { p.TimeNanos = 5 },
		"duration":    func(p *profile.Profile) { p.DurationNanos = 5 },
		"period":      func(p *profile.Profile) { p.Period = 5 },
		"period type": func(p *profile.Profile) { p.PeriodType = nil },
		"default":     func(p *profile.Profile) { p.DefaultSampleType = "t" },
		"sample type": func(p *profile.Profile) { p.SampleType[0].Unit = "v" },
		"unmapped":    func(p *profile.Profile) { p.Location[0].Mapping = nil },
		"order":       func(p *profile.Profile) { p.Sample = append(p.Sample, &profile.Sample{Value: []int64{7}}) },
	}
	for name, mut := range muts {
		b := base()
		mut(b)
		if Diff(base(), b) == "" {
			t.Errorf("%s: difference not seen", name)
		}
	}
}
