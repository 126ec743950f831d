package filter

import (
	"testing"

	"github.com/pprofx/pprofx/internal/model"
)

// TestKeepsWhatPprofLacks: the samples a filter keeps keep their
// timestamps, links and label sets, and the profile its OpenTelemetry
// fields; a hidden frame goes from the stack only.
func TestKeepsWhatPprofLacks(t *testing.T) {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("cpu"), Unit: b.String("nanoseconds"), AggregationTemporality: 1}}
	p.Functions = []model.Function{{Name: b.String("main.hot")}, {Name: b.String("runtime.mcall")}, {Name: b.String("main.cold")}}
	p.Locations = []model.Location{
		{Mapping: model.NoMapping, Lines: []model.Line{{Function: 0}}},
		{Mapping: model.NoMapping, Lines: []model.Line{{Function: 1}}},
		{Mapping: model.NoMapping, Lines: []model.Line{{Function: 2}}},
	}
	p.SetLocationAttrs(0, []model.Attribute{{Key: "profile.frame.type", Value: model.Value{Kind: model.KindString, Str: "go"}}})
	p.Links = []model.Link{{TraceID: make([]byte, 16), SpanID: make([]byte, 8)}}
	p.Attributes = []model.Attribute{{Key: "k", Value: model.Value{Kind: model.KindInt, Int: 7}}}
	p.Resource.Attributes = []model.Attribute{{Key: "service.name", Value: model.Value{Kind: model.KindString, Str: "api"}}}
	ls := b.LabelSet([]model.Label{{Key: b.String("tenant"), Str: b.String("a")}})
	p.Samples = []model.Sample{
		{Stack: b.Stack([]int32{0, 1}), Values: []int64{5}, LabelSet: ls, Link: 0, Timestamps: []uint64{100, 200}},
		{Stack: b.Stack([]int32{2, 1}), Values: []int64{3}, Link: model.NoLink, Timestamps: []uint64{150}},
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	f, err := Compile(Options{Focus: "hot", Hide: "runtime"})
	if err != nil {
		t.Fatal(err)
	}
	f.Apply(p, nil)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(p.Samples) != 1 {
		t.Fatalf("%d samples, want 1", len(p.Samples))
	}
	s := p.Samples[0]
	if s.Link != 0 || len(s.Timestamps) != 2 || s.Timestamps[1] != 200 || s.LabelSet != ls || s.Values[0] != 5 {
		t.Errorf("sample lost fields: %+v", s)
	}
	if st := p.Stacks.Append(nil, int(s.Stack)); len(st) != 1 || st[0] != 0 {
		t.Errorf("stack %v, want [0] (runtime.mcall hidden)", st)
	}
	if len(p.LocationAttrs(0)) != 1 || len(p.Attributes) != 1 || len(p.Resource.Attributes) != 1 || p.SampleTypes[0].AggregationTemporality != 1 {
		t.Errorf("profile lost OpenTelemetry fields")
	}
}
