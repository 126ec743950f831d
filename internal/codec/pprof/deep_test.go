package pprof

import (
	"io"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// A stack of millions of frames that one sample uses is encoded in place,
// into room made once for it: the buffer, grown by append as the ids
// were written, held its old array and one twice as large at once, and
// converting the crafted sample of 100M location ids took 490 MiB for
// its 315.
func TestDeepStackEncodedOnce(t *testing.T) {
	const n = 4 << 20 // ids of 1 byte each
	p := synth.DeepStack(n)
	alloc := memcheck.Of(func() {
		if err := Encode(io.Discard, p, EncodeOptions{Raw: true}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("encoding %d frames allocated %d bytes", n, alloc)
	if alloc > n+n/2 {
		t.Errorf("encoding %d frames of 1 byte allocated %d bytes; want at most 1.5 times their size", n, alloc)
	}
}

// The ids of stacks that samples share are encoded once, into a buffer
// made at their size: ids of more than 16,383 locations take 3 bytes, and
// a buffer made at 2 bytes a frame and grown by append held its old array
// and one twice as large at once.
func TestSharedStacksEncodedOnce(t *testing.T) {
	const nLocs, depth, nStacks = 1 << 17, 1 << 13, 128 // 1M frames, ids of 3 bytes
	b := synth.Locations(nLocs)
	frames := make([]int32, depth)
	for s := range nStacks {
		for j := range frames {
			frames[j] = int32((s + j*nStacks) % nLocs) // stack s: the locations s modulo nStacks
		}
		st := b.Stack(frames)
		for range 2 {
			b.P.Samples = append(b.P.Samples, model.NewSample(st, []int64{1}))
		}
	}
	ids := 0
	for i := range nStacks {
		ids += stackIDsSize(&b.P.Stacks, i)
	}
	alloc := memcheck.Of(func() {
		if err := Encode(io.Discard, b.P, EncodeOptions{Raw: true}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("encoding %d shared stacks, %d bytes of ids, allocated %d bytes", nStacks, ids, alloc)
	if want := uint64(ids+ids/2) + 4<<20; alloc > want {
		t.Errorf("encoding %d bytes of shared ids allocated %d bytes; want at most 1.5 times their size and 4 MiB", ids, alloc)
	}
}
