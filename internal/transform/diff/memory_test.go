package diff_test

import (
	"bytes"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
	"github.com/pprofx/pprofx/internal/transform/diff"
)

// A comparison holds its two inputs and what it makes of them within
// what the bound lets grow with its inputs, 16 MiB + 4 times their bytes:
// the result is made once, at its size, not grown by copies, and nothing
// is held a frame or a sample beyond it. (Through google/pprof's
// library, a pointer and a location id a frame and a string key a
// sample, the same comparison allocates more than ten times as much.)
func TestMemory(t *testing.T) {
	var buf bytes.Buffer
	if err := synth.Pprof(20000, 2000, 60, 120, 20000).WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()
	var inputs uint64
	read := func() *model.Profile {
		var p *model.Profile
		inputs += memcheck.Of(func() {
			var err error
			if p, err = pprof.DecodeRaw(raw); err != nil {
				t.Fatal(err)
			}
		})
		return p
	}
	base, newp := read(), read()
	for _, o := range []diff.Options{{}, {Subtract: true}} {
		used := memcheck.Of(func() {
			if _, err := diff.Diff(base, newp, o, nil); err != nil {
				t.Fatal(err)
			}
		})
		lib := memcheck.Of(func() {
			if _, err := libraryDiff(base, newp, o); err != nil {
				t.Fatal(err)
			}
		})
		bound := 16<<20 + 4*2*uint64(len(raw))
		t.Logf("%+v: inputs %d KiB decompressed, their models %d KiB, Diff %d KiB (the library: %d KiB)", o, 2*len(raw)>>10, inputs>>10, used>>10, lib>>10)
		if inputs+used > bound {
			t.Errorf("%+v: the inputs' models and Diff allocated %d bytes, more than 16 MiB + 4 x the inputs' %d", o, inputs+used, 2*len(raw))
		}
	}
}

// A location of the second input that the first had is found from lines
// made in scratch, not added to the merge's lines and taken back: the
// merge's lines, made at the larger input's size, then hold the lines of
// two like profiles without growing. Comparing a profile of 200k
// functions, each at its own location, with itself allocates at most 375
// bytes a location (366 here), the result included; adding the found
// lines first grew the lines past their room, a copy 1.25 times as
// large: 386.
func TestFoundLocationsAddNoLines(t *testing.T) {
	const n = 200_000
	p := synth.OwnLocations(n, 1000)
	used := memcheck.Of(func() {
		if _, err := diff.Diff(p, p, diff.Options{}, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d locations: %d bytes a location", n, used/n)
	if used > 375*n {
		t.Errorf("comparing %d locations with themselves allocated %d bytes a location, want 375 at most", n, used/n)
	}
}

// Many samples of few stacks, their values in rows of equal values that
// change every few samples (a text of equal records read in runs): the
// comparison is made at the size of its distinct stacks, not of its
// samples, and each input's rows are held once a run, not once a sample.
func TestManySamplesFewStacks(t *testing.T) {
	const n = 400_000
	input := func() *model.Profile {
		b := synth.Locations(2)
		st := []int32{b.Stack([]int32{0}), b.Stack([]int32{1, 0})}
		var row []int64
		for i := range n {
			if i%8 == 0 {
				row = []int64{int64(1 + i%3)}
			}
			b.P.Samples = append(b.P.Samples, model.NewSample(st[i%16/8], row))
		}
		return b.P
	}
	base, newp := input(), input()
	var out *model.Profile
	used := memcheck.Of(func() {
		var err error
		if out, err = diff.Diff(base, newp, diff.Options{}, nil); err != nil {
			t.Fatal(err)
		}
	})
	// Each input's sample list (4 + 4 bytes a sample) and rows (8 bytes
	// a run of equal rows, grown by copies): 10.7 MiB for two. Sized for
	// every sample and with a row a sample past the first 4096 runs,
	// Diff took 72 MiB.
	if len(out.Samples) != 4 || used > 12<<20 {
		t.Errorf("%d samples from %d KiB, want 4 from 12 MiB at most", len(out.Samples), used>>10)
	}
}
