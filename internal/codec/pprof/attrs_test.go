package pprof

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
)

// TestSampleAttributesNamed: attributes of a sample's label set that pprof
// labels cannot hold are named in the one warning and dropped; the labels
// beside them are written as they are.
func TestSampleAttributesNamed(t *testing.T) {
	build := func(attrs bool) *model.Profile {
		b := model.NewBuilder()
		p := b.P
		p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
		p.Functions = []model.Function{{Name: b.String("main")}}
		p.AddLocation(model.Location{Address: 1, Mapping: model.NoMapping}, model.Line{Function: 0})
		labels := []model.Label{{Key: b.String("k"), Str: b.String("v")}}
		var as []model.Attribute
		if attrs {
			as = []model.Attribute{
				{Key: "ratio", Value: model.Value{Kind: model.KindDouble, Double: 0.5}, Unit: "1"},
				{Key: "flag", Value: model.Value{Kind: model.KindBool, Bool: true}},
			}
		}
		p.Samples = []model.Sample{model.NewSample(b.Stack([]int32{0}), []int64{1})}
		p.Samples[0].LabelSet = b.LabelSetWith(labels, as)
		return p
	}
	var warned []string
	var with, without bytes.Buffer
	if err := Encode(&with, build(true), EncodeOptions{Raw: true, Warn: func(s string) { warned = append(warned, s) }}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "sample attributes that labels cannot hold (flag, ratio)") {
		t.Errorf("warnings %q", warned)
	}
	if err := Encode(&without, build(false), EncodeOptions{Raw: true, Warn: func(s string) { t.Errorf("warned: %s", s) }}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(with.Bytes(), without.Bytes()) {
		t.Error("the attributes changed the labels written")
	}
}
