package pprof

import (
	"bytes"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// Stacks that samples share are encoded once and copied, the others in
// place; google/pprof reads every sample's stack as the model holds it,
// empty, shared, single and longer than a one-byte length (128 frames).
func TestSharedAndSingleStacks(t *testing.T) {
	b := synth.Locations(300)
	p := b.P
	long := make([]int32, 200)
	for i := range long {
		long[i] = int32(i % 300)
	}
	stacks := [][]int32{nil, {1, 2, 3}, {4}, long, nil, {1, 2, 3}, long, {5, 299}}
	for i, st := range stacks {
		p.Samples = append(p.Samples, model.NewSample(b.Stack(st), []int64{int64(i + 1)}))
	}
	var out bytes.Buffer
	if err := Encode(&out, p, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(&out)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Sample) != len(stacks) {
		t.Fatalf("%d samples, want %d", len(q.Sample), len(stacks))
	}
	for i, s := range q.Sample {
		if s.Value[0] != int64(i+1) || len(s.Location) != len(stacks[i]) {
			t.Fatalf("sample %d: value %d, %d frames; want %d, %d", i, s.Value[0], len(s.Location), i+1, len(stacks[i]))
		}
		for j, l := range s.Location {
			if want := uint64(0x1000 + 16*int(stacks[i][j])); l.Address != want {
				t.Fatalf("sample %d frame %d: address %#x, want %#x", i, j, l.Address, want)
			}
		}
	}
}
