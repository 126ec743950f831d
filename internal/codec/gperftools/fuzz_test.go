package gperftools

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// allocBound is what Decode may allocate for an input of n bytes: a fixed
// part (the read buffer, the builder's tables) and a part proportional to
// the input, never more.
func allocBound(n int) uint64 { return 1<<20 + 64*uint64(n) }

func FuzzDecode(f *testing.F) {
	for _, fx := range fixtures {
		f.Add(readFixture(f, fx.file))
	}
	for _, l := range []Layout{{8, false}, {8, true}, {4, false}, {4, true}} {
		f.Add(newFile(l).header(10000).rec(2, 0x10, 0x21).rec(1, 0x10, 0x21).rec(1, 0).trailer().text(mapsText).buf)
		f.Add(newFile(l).slots(0, 5, 0, 1, 0, 9, 9).rec(1, 1<<20).buf)
	}
	// Small allocations are counted when a P's cached span is released,
	// which a GC does for every P: collect once here, so that what the
	// tests before this one allocated is not counted against a seed.
	runtime.GC()
	f.Fuzz(func(t *testing.T, data []byte) {
		DetectLayout(data)
		for _, salvage := range []bool{false, true} {
			var p *model.Profile
			var info *Info
			var err error
			if alloc, over := memcheck.Over(allocBound(len(data)), func() {
				p, info, err = Decode(bytes.NewReader(data), Options{Salvage: salvage, Warn: func(string) {}})
			}); over {
				t.Fatalf("allocated %d bytes for a %d-byte input (bound %d)", alloc, len(data), allocBound(len(data)))
			}
			if err != nil {
				continue
			}
			if err := p.Validate(); err != nil {
				t.Fatalf("invalid profile: %v", err)
			}
			if info.Stacks != len(p.Samples) || info.Records < len(p.Samples) {
				t.Fatalf("info %+v for %d samples", info, len(p.Samples))
			}
		}
		// Stream (the new path, with few keys kept so that matches are
		// read back from the spill) gives what Decode (the old one) gives.
		for _, salvage := range []bool{false, true} {
			opts := Options{Salvage: salvage}
			want := outcome(t, bytes.NewReader(data), opts)
			var got string
			withResolveAfter(1, func() {
				withStreamLimits(64, 4<<20, func() { got, _ = streamOutcome(t, bytes.NewReader(data), opts, false) })
			})
			if got != want {
				t.Fatalf("salvage %v: Stream:\n%s\nDecode:\n%s", salvage, got, want)
			}
		}
		// Tally (what inspect reads), with few keys kept and matches read
		// back from the input or its spill, gives what Stream gives for
		// inspect.
		for _, salvage := range []bool{false, true} {
			opts := Options{Salvage: salvage}
			want := streamSummary(t, bytes.NewReader(data), opts)
			for _, at := range []io.ReaderAt{nil, bytes.NewReader(data)} {
				var got string
				withResolveAfter(1, func() {
					withStreamLimits(64, 4<<20, func() { got = tallyOutcome(t, bytes.NewReader(data), at, opts) })
				})
				if got != want {
					t.Fatalf("salvage %v, input at offsets %v: Tally:\n%s\nStream:\n%s", salvage, at != nil, got, want)
				}
			}
		}
		// Read in parallel from the first record, in small batches, the
		// input decodes exactly as it does sequentially.
		for _, salvage := range []bool{false, true} {
			opts := Options{Salvage: salvage}
			var seq, par string
			withPar(-1, 0, func() { seq = outcome(t, bytes.NewReader(data), opts) })
			withPar(0, 64, func() { par = outcome(t, bytes.NewReader(data), opts) })
			if par != seq {
				t.Fatalf("salvage %v: read in parallel:\n%s\nsequentially:\n%s", salvage, par, seq)
			}
		}
	})
}

// TestAllocWorstCase checks the bound on the input shape that allocates the
// most per byte: 32-bit records of one distinct PC each.
func TestAllocWorstCase(t *testing.T) {
	f := newFile(Layout{4, false}).header(1)
	for i := uint64(0); i < 100000; i++ {
		f.rec(1, 0x1000+i)
	}
	b := f.trailer().buf
	var err error
	alloc := memcheck.Of(func() { _, _, err = Decode(bytes.NewReader(b), Options{}) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes allocated for %d input bytes (%.1f per byte)", alloc, len(b), float64(alloc)/float64(len(b)))
	if alloc > allocBound(len(b)) {
		t.Errorf("allocated %d bytes for %d input bytes, bound %d", alloc, len(b), allocBound(len(b)))
	}
}
