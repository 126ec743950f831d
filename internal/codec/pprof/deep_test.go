package pprof

import (
	"io"
	"testing"

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
