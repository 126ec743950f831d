package bundle

import (
	"bytes"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/model"
)

// handPprof builds, with google/pprof's own package, a profile that uses
// everything the issue lists: multi-valued string and numeric labels with
// units, comments, drop/keep frames, default sample type, doc URL, build ids
// and has_* flags that differ between variants for the same file, unmapped
// locations, columns, is_folded, duplicate samples. It returns the profile
// as google/pprof reads it back from its own encoding.
func handPprof(t testing.TB, variant int) (*profile.Profile, []byte) {
	t.Helper()
	m1 := &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x500000, Offset: 0, File: "/usr/bin/server",
		BuildID: []string{"aaaa", "bbbb"}[variant], HasFunctions: true, HasFilenames: variant == 0, HasLineNumbers: variant == 1, HasInlineFrames: true}
	m2 := &profile.Mapping{ID: 2, Start: 0x7f0000000000, Limit: 0x7f0000100000, Offset: 0x1000, File: "/lib/x86_64-linux-gnu/libc.so.6", BuildID: "cccc"}
	f1 := &profile.Function{ID: 1, Name: "main.handle", SystemName: "main.handle", Filename: "/src/main.go", StartLine: 40}
	f2 := &profile.Function{ID: 2, Name: "main.inlined", SystemName: "main.inlined", Filename: "/src/util.go", StartLine: 7}
	f3 := &profile.Function{ID: 3, Name: "memcpy", SystemName: "__memcpy_avx_unaligned", Filename: ""}
	l1 := &profile.Location{ID: 1, Mapping: m1, Address: 0x401234, Line: []profile.Line{{Function: f2, Line: 9, Column: 5}, {Function: f1, Line: 44, Column: 12}}}
	l2 := &profile.Location{ID: 2, Mapping: m2, Address: 0x7f0000001010, Line: []profile.Line{{Function: f3}}, IsFolded: true}
	l3 := &profile.Location{ID: 3, Address: 0xffffffff81000000} // unmapped, unsymbolized
	l4 := &profile.Location{ID: 4, Mapping: m1, Address: 0x401300, Line: []profile.Line{{Function: f1, Line: 50}}}
	s := func(locs []*profile.Location, v1, v2 int64, labels map[string][]string, nums map[string][]int64, units map[string][]string) *profile.Sample {
		return &profile.Sample{Location: locs, Value: []int64{v1, v2}, Label: labels, NumLabel: nums, NumUnit: units}
	}
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "requests", Unit: "count"}, {Type: "latency", Unit: "nanoseconds"}},
		DefaultSampleType: "latency",
		PeriodType:        &profile.ValueType{Type: "requests", Unit: "count"},
		Period:            10,
		TimeNanos:         1700000000000000000 + int64(variant),
		DurationNanos:     5e9,
		Comments:          []string{"built by hand", "variant " + string(rune('A'+variant))},
		DropFrames:        "^runtime\\.",
		KeepFrames:        "^main\\.",
		DocURL:            "https://example.com/profiles",
		Mapping:           []*profile.Mapping{m1, m2},
		Function:          []*profile.Function{f1, f2, f3},
		Location:          []*profile.Location{l1, l2, l3, l4},
		Sample: []*profile.Sample{
			s([]*profile.Location{l2, l1}, 1, 100, map[string][]string{"route": {"/a", "/b"}, "method": {"GET"}},
				map[string][]int64{"bytes": {512, 1024}, "retries": {3}}, map[string][]string{"bytes": {"bytes", "kilobytes"}, "retries": {""}}),
			s([]*profile.Location{l3, l4, l1}, 2, 200, nil, map[string][]int64{"size": {7}}, nil),
			s([]*profile.Location{l2, l1}, 1, 100, map[string][]string{"route": {"/a", "/b"}, "method": {"GET"}},
				map[string][]int64{"bytes": {512, 1024}, "retries": {3}}, map[string][]string{"bytes": {"bytes", "kilobytes"}, "retries": {""}}),
			s([]*profile.Location{l4}, int64(variant), -5, map[string][]string{"route": {"/c"}}, nil, nil),
		},
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := profile.ParseData(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return back, buf.Bytes()
}

// TestDiffProfilesNotices checks the model comparison likewise.
func TestDiffProfilesNotices(t *testing.T) {
	for name, change := range map[string]func(p *model.Profile){
		"temporality":   func(p *model.Profile) { p.SampleTypes[0].AggregationTemporality = 0 },
		"build id kind": func(p *model.Profile) { p.Mappings[0].BuildIDKind++ },
		"link":          func(p *model.Profile) { p.Samples[3].Link = 0 },
		"timestamps":    func(p *model.Profile) { p.Samples[0].SetTimestamps([]uint64{1}) },
		"label order": func(p *model.Profile) {
			ls := p.LabelSets[p.Samples[0].LabelSet].Labels()
			ls[0], ls[1] = ls[1], ls[0]
		},
		"scope":        func(p *model.Profile) { p.Scope.Version = "v2" },
		"attribute":    func(p *model.Profile) { p.Attributes[3].Value.Double = 1 },
		"unit":         func(p *model.Profile) { p.Attributes[3].Unit = "ms" },
		"mapping unit": func(p *model.Profile) { p.Mappings[1].Attributes[2].Unit = "" },
		"sample attribute": func(p *model.Profile) {
			p.LabelSets[p.Samples[7].LabelSet].Attributes()[0].Value.Bool = false
		},
		"sample attribute unit": func(p *model.Profile) {
			p.LabelSets[p.Samples[7].LabelSet].Attributes()[1].Unit = ""
		},
		"resource":    func(p *model.Profile) { p.Resource.DroppedAttributesCount = 0 },
		"profile id":  func(p *model.Profile) { p.ProfileID[0]++ },
		"payload":     func(p *model.Profile) { p.OriginalPayload = nil },
		"end time":    func(p *model.Profile) { p.EndTimeUnixNano++ },
		"mapping":     func(p *model.Profile) { p.Mappings[2].Limit++ },
		"line column": func(p *model.Profile) { p.SetColumn(p.Locations[0].FirstLine, p.ColumnOf(&p.Locations[0], 0)+1) },
	} {
		a, b := handBuilt(0), handBuilt(0)
		change(b)
		if diffProfiles(a, b) == "" {
			t.Errorf("%s: change not noticed", name)
		}
	}
}
