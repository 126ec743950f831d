package pprofextended

import (
	"fmt"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
)

// TestFoldSampleAttributes: a label set's attributes become labels (an
// integer a numeric label with the unit, other values their text, an array
// one label per element, an empty text a numeric 0), profile attribute
// units comments, with one warning each for what is lost.
func TestFoldSampleAttributes(t *testing.T) {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
	p.Attributes = []model.Attribute{{Key: "rate", Value: model.Value{Kind: model.KindDouble, Double: 100}, Unit: "Hz"}}
	ls := b.LabelSetWith([]model.Label{{Key: b.String("k"), Str: b.String("v")}}, []model.Attribute{
		{Key: "flag", Value: model.Value{Kind: model.KindBool, Bool: true}},
		{Key: "arr", Value: model.Value{Kind: model.KindArray, Array: []model.Value{{Kind: model.KindInt, Int: 3}, {Kind: model.KindDouble, Double: 0.5}}}, Unit: "ms"},
		{Key: "empty", Value: model.Value{Kind: model.KindString}},
	})
	p.Samples = []model.Sample{model.NewSample(b.Stack(nil), []int64{1})}
	p.Samples[0].LabelSet = ls
	var warned []string
	FoldForPprof(p, func(s string) { warned = append(warned, s) })
	got := ""
	set := p.LabelSets[p.Samples[0].LabelSet]
	for _, l := range set.Labels() {
		got += fmt.Sprintf("{%s %q %d %q}", p.String(l.Key), p.String(l.Str), l.Num, p.String(l.NumUnit))
	}
	want := `{k "v" 0 ""}{flag "true" 0 ""}{arr "" 3 "ms"}{arr "0.5" 0 ""}{empty "" 0 ""}`
	if got != want || len(set.Attributes()) != 0 {
		t.Errorf("labels %s (attributes %v), want %s", got, set.Attributes(), want)
	}
	if len(warned) != 2 {
		t.Errorf("warnings %q", warned)
	}
	comments := ""
	for _, c := range p.Comments {
		comments += p.String(c) + "\n"
	}
	if comments != "otlp.attribute: rate=100\notlp.attribute.unit: rate=Hz\n" {
		t.Errorf("comments %q", comments)
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
}
