package folded_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/folded"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// Each distinct frame is found again through the builder's index of
// strings, not a map keyed by its name: reading 512k frames of their own
// (512 lines of 1000) holds 1.75 times the profile it makes at most, the
// profile's tables grown by copies included; 2.45 times with the map.
func TestDecodeMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("512k frames")
	}
	var text bytes.Buffer
	for l := range 512 {
		for f := range 1000 {
			if f > 0 {
				text.WriteByte(';')
			}
			fmt.Fprintf(&text, "pkg.fn%d", l*1000+f)
		}
		fmt.Fprintf(&text, " %d\n", l+1)
	}
	var p *model.Profile
	peak := memcheck.Peak(func() {
		var err error
		if p, err = folded.Decode(bytes.NewReader(text.Bytes()), folded.ReadOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	size := p.MemSize()
	t.Logf("%d frames: the profile takes %.1f MiB, reading it held %.1f at most", len(p.Functions), float64(size)/(1<<20), float64(peak)/(1<<20))
	if len(p.Functions) != 512000 {
		t.Fatalf("%d functions, want one a frame", len(p.Functions))
	}
	if bound := 2 * size; int64(peak) > bound {
		t.Errorf("reading held %d bytes at once, want %d at most (twice the profile)", peak, bound)
	}
}
