package otlptest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
)

// TestComparePprofSeesChanges: every kind of change is reported.
func TestComparePprofSeesChanges(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "otlp", "rich.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := ComparePprof(base, base.Copy()); err != nil {
		t.Fatalf("a copy differs: %v", err)
	}
	for name, change := range map[string]func(p *profile.Profile){
		"sample order":   func(p *profile.Profile) { p.Sample[0], p.Sample[1] = p.Sample[1], p.Sample[0] },
		"value":          func(p *profile.Profile) { p.Sample[2].Value[1]++ },
		"stack":          func(p *profile.Profile) { p.Sample[0].Location = p.Sample[0].Location[1:] },
		"inline order":   func(p *profile.Profile) { l := p.Location[2].Line; l[0], l[1] = l[1], l[0] },
		"column":         func(p *profile.Profile) { p.Location[0].Line[0].Column++ },
		"label value":    func(p *profile.Profile) { p.Sample[1].Label["handler"][1] = "x" },
		"label order":    func(p *profile.Profile) { v := p.Sample[1].Label["handler"]; v[0], v[1] = v[1], v[0] },
		"num unit":       func(p *profile.Profile) { p.Sample[2].NumUnit["request_bytes"][0] = "bytes" },
		"build id":       func(p *profile.Profile) { p.Mapping[1].BuildID = "x" },
		"mapping flag":   func(p *profile.Profile) { p.Mapping[0].HasInlineFrames = false },
		"unmapped":       func(p *profile.Profile) { p.Location[4].Mapping = p.Mapping[0] },
		"folded":         func(p *profile.Profile) { p.Location[3].IsFolded = false },
		"comment":        func(p *profile.Profile) { p.Comments = p.Comments[1:] },
		"drop frames":    func(p *profile.Profile) { p.DropFrames = "" },
		"keep frames":    func(p *profile.Profile) { p.KeepFrames = "x" },
		"doc url":        func(p *profile.Profile) { p.DocURL = "" },
		"default type":   func(p *profile.Profile) { p.DefaultSampleType = "" },
		"period":         func(p *profile.Profile) { p.Period++ },
		"time":           func(p *profile.Profile) { p.TimeNanos++ },
		"duration":       func(p *profile.Profile) { p.DurationNanos++ },
		"sample type":    func(p *profile.Profile) { p.SampleType[0].Unit = "x" },
		"function name":  func(p *profile.Profile) { p.Function[0].SystemName = "x" },
		"function start": func(p *profile.Profile) { p.Function[1].StartLine++ },
	} {
		p := base.Copy()
		change(p)
		if err := ComparePprof(base, p); err == nil {
			t.Errorf("%s: change not seen", name)
		}
	}
}
