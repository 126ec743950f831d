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
	text := distinctFrames(512)
	var p *model.Profile
	peak := memcheck.Peak(func() {
		var err error
		if p, err = folded.Decode(bytes.NewReader(text), folded.ReadOptions{}); err != nil {
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

// Lines of one stack are one sample, their values added, in the place of
// the first: a million lines of one frame are a profile of one sample.
// A sum that would not fit in 64 bits keeps the lines apart.
func TestSameStackOneSample(t *testing.T) {
	p, err := folded.Decode(bytes.NewReader([]byte("a;b 1\nc 2\na;b 3\nc 4\n")), folded.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Samples) != 2 || p.Samples[0].Values()[0] != 4 || p.Samples[1].Values()[0] != 6 {
		t.Errorf("samples %+v, want a;b 4 then c 6", p.Samples)
	}
	var text bytes.Buffer
	for range 1_000_000 {
		text.WriteString("a 1\n")
	}
	var peak uint64
	peak = memcheck.Peak(func() {
		if p, err = folded.Decode(bytes.NewReader(text.Bytes()), folded.ReadOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	if len(p.Samples) != 1 || p.Samples[0].Values()[0] != 1_000_000 {
		t.Errorf("a million lines of one frame: %d samples, the first %v", len(p.Samples), p.Samples[0].Values())
	}
	if peak > 1<<20 {
		t.Errorf("a million lines of one frame held %d bytes at once, want 1 MiB at most", peak)
	}
	p, err = folded.Decode(bytes.NewReader([]byte("a 9223372036854775807\na 1\na 2\n")), folded.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Samples) != 2 || p.Samples[0].Values()[0] != 1<<63-1 || p.Samples[1].Values()[0] != 3 {
		t.Errorf("samples %+v, want the largest int64 apart from 3", p.Samples)
	}
}

// distinctFrames returns folded stacks of lines lines of 1000 frames,
// every frame its own ("pkg.fn<i>"), line l of value l+1.
func distinctFrames(lines int) []byte {
	var text bytes.Buffer
	for l := range lines {
		for f := range 1000 {
			if f > 0 {
				text.WriteByte(';')
			}
			fmt.Fprintf(&text, "pkg.fn%d", l*1000+f)
		}
		fmt.Fprintf(&text, " %d\n", l+1)
	}
	return text.Bytes()
}
