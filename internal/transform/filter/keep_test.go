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
	for fn := range int32(3) {
		p.AddLocation(model.Location{Mapping: model.NoMapping}, model.Line{Function: fn})
	}
	p.SetLocationAttrs(0, []model.Attribute{{Key: "profile.frame.type", Value: model.Value{Kind: model.KindString, Str: "go"}}})
	p.Links = []model.Link{{TraceID: make([]byte, 16), SpanID: make([]byte, 8)}}
	p.Attributes = []model.Attribute{{Key: "k", Value: model.Value{Kind: model.KindInt, Int: 7}}}
	p.Resource.Attributes = []model.Attribute{{Key: "service.name", Value: model.Value{Kind: model.KindString, Str: "api"}}}
	ls := b.LabelSet([]model.Label{{Key: b.String("tenant"), Str: b.String("a")}})
	p.Samples = []model.Sample{
		model.NewSample(b.Stack([]int32{0, 1}), []int64{5}),
		model.NewSample(b.Stack([]int32{2, 1}), []int64{3}),
	}
	p.Samples[0].LabelSet, p.Samples[0].Link = ls, 0
	p.Samples[0].SetTimestamps([]uint64{100, 200})
	p.Samples[1].SetTimestamps([]uint64{150})
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
	if s.Link != 0 || len(s.Timestamps()) != 2 || s.Timestamps()[1] != 200 || s.LabelSet != ls || s.Values()[0] != 5 {
		t.Errorf("sample lost fields: %+v", s)
	}
	if st := p.Stacks.Append(nil, int(s.Stack)); len(st) != 1 || st[0] != 0 {
		t.Errorf("stack %v, want [0] (runtime.mcall hidden)", st)
	}
	if len(p.LocationAttrs(0)) != 1 || len(p.Attributes) != 1 || len(p.Resource.Attributes) != 1 || p.SampleTypes[0].AggregationTemporality != 1 {
		t.Errorf("profile lost OpenTelemetry fields")
	}
}

// TestHideSharedLines: lines locations share are never written. Two
// locations sharing three lines lose the middle one (new lines), a third
// its first (its range narrowed); the table's lines stay as they were.
func TestHideSharedLines(t *testing.T) {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
	p.Functions = []model.Function{{Name: b.String("main.a")}, {Name: b.String("runtime.x")}, {Name: b.String("main.b")}}
	p.Lines = []model.Line{{Function: 0, Line: 1}, {Function: 1, Line: 2}, {Function: 2, Line: 3}}
	p.Columns = []int64{7, 8, 9}
	p.Locations = []model.Location{
		{Mapping: model.NoMapping, FirstLine: 0, NumLines: 3},
		{Mapping: model.NoMapping, Address: 1, FirstLine: 0, NumLines: 3},
		{Mapping: model.NoMapping, Address: 2, FirstLine: 1, NumLines: 2},
	}
	p.Samples = []model.Sample{model.NewSample(b.Stack([]int32{0, 1, 2}), []int64{1})}
	table := append([]model.Line(nil), p.Lines...)
	f, err := Compile(Options{Hide: "runtime"})
	if err != nil {
		t.Fatal(err)
	}
	f.Apply(p, nil)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	for i := range table {
		if p.Lines[i] != table[i] {
			t.Errorf("line %d of the table written: %+v, was %+v", i, p.Lines[i], table[i])
		}
	}
	want := [][]model.Line{
		{{Function: 0, Line: 1}, {Function: 2, Line: 3}},
		{{Function: 0, Line: 1}, {Function: 2, Line: 3}},
		{{Function: 2, Line: 3}},
	}
	for i, w := range want {
		got := p.LocationLines(i)
		if len(got) != len(w) {
			t.Errorf("location %d: lines %+v, want %+v", i, got, w)
			continue
		}
		for j := range w {
			if got[j] != w[j] {
				t.Errorf("location %d: lines %+v, want %+v", i, got, w)
				break
			}
		}
	}
	// The lines kept keep their columns, and the table's stay.
	wantCols := [][]int64{{7, 9}, {7, 9}, {9}}
	for i, w := range wantCols {
		for j, c := range w {
			if got := p.ColumnOf(&p.Locations[i], j); got != c {
				t.Errorf("location %d, line %d: column %d, want %d", i, j, got, c)
			}
		}
	}
	for i, c := range []int64{7, 8, 9} {
		if p.Column(uint32(i)) != c {
			t.Errorf("column of line %d of the table written: %d, was %d", i, p.Column(uint32(i)), c)
		}
	}
	if l := p.Locations[2]; l.FirstLine != 2 || l.NumLines != 1 {
		t.Errorf("location 2: lines %d:+%d, want its range narrowed to 2:+1", l.FirstLine, l.NumLines)
	}
	if len(p.Lines) != len(table)+4 {
		t.Errorf("%d lines, want %d: the table grows by the new lines only", len(p.Lines), len(table)+4)
	}
}
