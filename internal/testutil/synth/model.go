package synth

import (
	"fmt"
	"math/rand/v2"

	"github.com/pprofx/pprofx/internal/model"
)

// Locations builds a profile of one sample type (samples/count) and n
// functions "fn0".."fn<n-1>", function i at location i (address
// 0x1000+16i, line 1), with no samples: callers add the stacks they test
// through the returned builder.
func Locations(n int) *model.Builder {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
	p.Functions = make([]model.Function, 0, n)
	p.Locations = make([]model.Location, 0, n)
	p.Lines = make([]model.Line, 0, n)
	for i := range n {
		p.Functions = append(p.Functions, model.Function{Name: b.String(fmt.Sprintf("fn%d", i))})
		p.AddLocation(model.Location{Address: uint64(0x1000 + 16*i), Mapping: model.NoMapping}, model.Line{Function: int32(i), Line: 1})
	}
	return b
}

// DeepStack returns a profile of one sample (value 1) whose stack is the
// location of Locations(1) frames times over: the shape of a crafted
// input of one sample of millions of location ids.
func DeepStack(frames int) *model.Profile {
	b := Locations(1)
	b.P.Samples = []model.Sample{model.NewSample(b.Stack(make([]int32, frames)), []int64{1})}
	return b.P
}

// OwnLocations returns Locations(n) with n/depth samples, sample s (value
// s+1) the stack of locations s*depth to s*depth+depth-1: every function
// at its own location, each reached once (the shape of the crafted
// bundle of 1M functions and locations).
func OwnLocations(n, depth int) *model.Profile {
	b := Locations(n)
	frames := make([]int32, depth)
	for s := range n / depth {
		for j := range frames {
			frames[j] = int32(s*depth + j)
		}
		b.P.Samples = append(b.P.Samples, model.NewSample(b.Stack(frames), []int64{int64(s + 1)}))
	}
	return b.P
}

// LabeledStacks returns Locations(1000) with n samples, sample k (value
// k, timestamp k) of a stack of 100 frames drawn at random (the same ones
// each call), labelled worker=k%500 and, with numeric, bytes=k.
func LabeledStacks(n int, numeric bool) *model.Profile {
	b := Locations(1000)
	rnd := rand.New(rand.NewPCG(3, 4))
	frames := make([]int32, 100)
	for k := range n {
		for j := range frames {
			frames[j] = int32(rnd.IntN(1000))
		}
		labels := []model.Label{{Key: b.String("worker"), Str: b.String(fmt.Sprint(k % 500))}}
		if numeric {
			labels = append(labels, model.Label{Key: b.String("bytes"), Num: int64(k)})
		}
		s := model.NewSample(b.Stack(frames), []int64{int64(k)})
		s.LabelSet = b.LabelSet(labels)
		s.SetTimestamps([]uint64{uint64(k)})
		b.P.Samples = append(b.P.Samples, s)
	}
	return b.P
}
