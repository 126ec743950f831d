package pprofextended

import (
	"bytes"
	"runtime"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/modeldump"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// An indexList reads any range of the numbers, across pieces packed and
// not, as eachIndex reads them all; it stops where check says.
func TestIndexList(t *testing.T) {
	var data []byte
	var ws []wireIndices
	var want []int32
	piece := func(packed bool, xs ...int32) {
		start := len(data)
		for _, x := range xs {
			data = protowire.AppendVarint(data, uint64(x))
		}
		ws = append(ws, wireIndices{start: start, end: len(data), packed: packed})
		want = append(want, xs...)
	}
	var big []int32
	for i := range 150 {
		big = append(big, int32(i*i*37%1_000_003))
	}
	piece(true, big[:100]...)
	piece(false, 7)
	piece(false, 300_000)
	piece(true, big[100:]...)
	piece(true)
	piece(true, 1, 2, 3)

	var all []int32
	eachIndex(data, ws, func(x int64) bool { all = append(all, int32(x)); return true })
	if !slices.Equal(all, want) {
		t.Fatalf("eachIndex read %v", all)
	}
	l := newIndexList(data, ws, len(want), func(i int, x int64) bool {
		if int32(x) != want[i] {
			t.Fatalf("number %d checked as %d, want %d", i, x, want[i])
		}
		return true
	})
	if l.n != len(want) {
		t.Fatalf("%d numbers, want %d", l.n, len(want))
	}
	for start := 0; start <= len(want); start++ {
		for length := 0; start+length <= len(want); length++ {
			got := l.appendRange([]int32{-1}, uint64(start), uint64(length))
			if !slices.Equal(got[1:], want[start:start+length]) || got[0] != -1 {
				t.Fatalf("range %d+%d: %v, want %v", start, length, got, want[start:start+length])
			}
		}
	}
	stopped := newIndexList(data, ws, len(want), func(i int, x int64) bool { return i < 70 })
	if stopped.n != 70 {
		t.Errorf("check stopping at 70: %d numbers read", stopped.n)
	}
}

// Binary input's location_indices are read where they lie: decoding 20k
// distinct stacks of 50 frames over 1000 locations allocates 7.0 bytes a
// frame (the stacks' 2, the samples and the rest), where an array of
// the indices took 4 more (10.8).
func TestLocationIndicesReadInPlace(t *testing.T) {
	const nloc, nstacks, depth = 1000, 20_000, 50
	b := synth.Locations(nloc)
	p := b.P
	frames := make([]int32, depth)
	x := uint32(1)
	for s := 0; s < nstacks; s++ {
		for j := range frames {
			x = x*1664525 + 1013904223
			frames[j] = int32(x % nloc)
		}
		p.Samples = append(p.Samples, model.NewSample(b.Stack(frames), []int64{1}))
	}
	p.ProfileID, p.Scope.Name = bytes.Repeat([]byte{7}, 16), "pprofx" // as the writer would make them
	var buf bytes.Buffer
	if err := Encode(&buf, []*model.Profile{p}, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ps, err := Decode(buf.Bytes(), DecodeOptions{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := modeldump.Describe(ps[0]), modeldump.Describe(p); got != want {
		t.Fatal("the profile read back differs from the one written")
	}
	perFrame := float64(after.TotalAlloc-before.TotalAlloc) / (nstacks * depth)
	if perFrame > 8.5 {
		t.Errorf("decoding allocated %.1f bytes a frame, want 8.5 at most", perFrame)
	}
}
