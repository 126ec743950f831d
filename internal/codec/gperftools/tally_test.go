package gperftools

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
)

// summaryOutcome renders what inspect takes of a Streamed: its Info,
// number of samples, totals and tables (encoded without samples, the
// locations in ascending address order), with the warnings.
func summaryOutcome(t *testing.T, s *Streamed, warns []string) string {
	t.Helper()
	p := *s.Profile
	p.Locations = slices.Clone(p.Locations)
	slices.SortFunc(p.Locations, func(a, b model.Location) int {
		switch {
		case a.Address < b.Address:
			return -1
		case a.Address > b.Address:
			return 1
		}
		return 0
	})
	var tab bytes.Buffer
	if err := pprof.Encode(&tab, &p, pprof.EncodeOptions{Raw: true}); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x\n%+v\n%d %v\n%q", sha256.Sum256(tab.Bytes()), *s.Info, s.Len(), s.Totals(), warns)
}

// streamSummary renders Stream's result as summaryOutcome does, or its
// error.
func streamSummary(t *testing.T, r io.Reader, opts Options) string {
	t.Helper()
	var warns []string
	opts.Warn = func(m string) { warns = append(warns, m) }
	s, err := Stream(r, opts, t.TempDir())
	if err != nil {
		return "error: " + err.Error()
	}
	defer s.Close()
	return summaryOutcome(t, s, warns)
}

// tallyOutcome renders Tally's result for input r (readable at any offset
// through at when not nil), or its error.
func tallyOutcome(t *testing.T, r io.Reader, at io.ReaderAt, opts Options) string {
	t.Helper()
	var warns []string
	opts.Warn = func(m string) { warns = append(warns, m) }
	opts.Input = at
	s, err := Tally(r, opts, t.TempDir())
	if err != nil {
		return "error: " + err.Error()
	}
	defer s.Close()
	if err := s.Each(true, func([]int32, []byte, []int64) error { return nil }); err == nil && s.Len() > 0 {
		t.Fatal("Tally's samples can be read")
	}
	// Tally's locations come sorted.
	if !slices.IsSortedFunc(s.Profile.Locations, func(a, b model.Location) int {
		if a.Address < b.Address {
			return -1
		}
		return 1
	}) {
		t.Fatal("Tally's locations are not in ascending address order")
	}
	return summaryOutcome(t, s, warns)
}

// TestTallySameAsStream checks that Tally gives what Stream gives for
// inspect (Info, samples, totals, tables with the locations sorted, the
// warnings) or the same error, whatever its key budget (all keys kept, a
// few, none: every match is then read back from the input or the spill),
// whether it may read the input at any offset, and whether its spill
// stays in memory.
func TestTallySameAsStream(t *testing.T) {
	for name, data := range parInputs(t) {
		readers := inputReaders(data)
		for rname, r := range readers {
			for _, salvage := range []bool{false, true} {
				opts := Options{Salvage: salvage}
				want := streamSummary(t, r(), opts)
				// The last two keep 4 bits of the stacks' hashes: most
				// lookups then meet other stacks of their tag.
				limits := [][4]int{{32 << 20, 4 << 20, 4096, 64}, {300, 4 << 20, 0, 64}, {0, 64, 0, 64}, {1000, 1, 10, 64}, {0, 4 << 20, 4096, 64}, {0, 4 << 20, 0, 4}, {300, 64, 4096, 4}}
				for _, lim := range limits {
					if lim[3] < 64 && len(data) > 64<<10 {
						lim[3] = 12 // fewer shared tags: every lookup compares
					}
					for _, at := range []io.ReaderAt{nil, bytes.NewReader(data)} {
						var got string
						withHashBits(lim[3], func() {
							withResolveAfter(lim[2], func() {
								withStreamLimits(lim[0], lim[1], func() { got = tallyOutcome(t, r(), at, opts) })
							})
						})
						what := fmt.Sprintf("%s, %s reader, salvage %v, keys %d, spill in memory %d, resolver from stack %d, input at offsets %v, hash bits %d", name, rname, salvage, lim[0], lim[1], lim[2], at != nil, lim[3])
						if got != want {
							t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
						}
					}
				}
			}
		}
	}
}

// withHashBits runs fn with only the top n bits of the stacks' hashes
// kept.
func withHashBits(n int, fn func()) {
	old := hashMask
	defer func() { hashMask = old }()
	hashMask = ^uint64(0) << (64 - n)
	fn()
}

// TestTallyInputChanged checks that a record read back from an input that
// changed since it was read is an error, not a wrong count.
func TestTallyInputChanged(t *testing.T) {
	f := newFile(le64).header(10000)
	for i := uint64(0); i < 50; i++ {
		f.rec(1, 0x400000+i%10*16, 0x500000)
	}
	data := f.trailer().text(mapsText).buf
	changed := bytes.Clone(data)
	changed[40+16]++ // the first record's leaf PC
	withStreamLimits(0, 4<<20, func() {
		_, err := Tally(bytes.NewReader(data), Options{Input: bytes.NewReader(changed)}, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "the record at byte 40 changed while the input was read") {
			t.Fatalf("got %v", err)
		}
		// Unchanged, it is read back without an error.
		if _, err := Tally(bytes.NewReader(data), Options{Input: bytes.NewReader(data)}, t.TempDir()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTallyRemovesSpill checks that Tally's spill of keys (without an input
// to read back from) leaves nothing behind, and that with one it makes no
// file at all.
func TestTallyRemovesSpill(t *testing.T) {
	data := goldenFile(le64)
	dir := t.TempDir()
	withStreamLimits(0, 1, func() {
		for _, at := range []io.ReaderAt{nil, bytes.NewReader(data)} {
			s, err := Tally(bytes.NewReader(data), Options{Input: at}, dir)
			if err != nil {
				t.Fatal(err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Fatalf("the spill file has a name: %v", ents)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestEqualCompact checks the comparison of a compact key with raw PCs on
// keys that differ in one PC only, whatever the other PCs' bits (a wrong
// grouping of its xors once took a PC whose differing bits the next PC
// held for equal).
func TestEqualCompact(t *testing.T) {
	pcs := []uint64{0x40307500, 0x40817500, 0x40d82500, 0x403d5500, 0x40eff500, 0x40334500}
	key := func(p []uint64) []byte {
		var b []byte
		for _, pc := range p {
			b = binary.LittleEndian.AppendUint64(b, pc)
		}
		return b
	}
	c := appendCompact(nil, key(pcs))
	if !equalCompact(c, key(pcs)) {
		t.Fatal("a key differs from its compact form")
	}
	for i := range pcs {
		for _, bit := range []uint64{1, 0x100000, 1 << 31, 1 << 32} {
			other := slices.Clone(pcs)
			other[i] ^= bit
			if equalCompact(c, key(other)) {
				t.Errorf("PC %d changed by %#x: still equal", i, bit)
			}
		}
	}
	if equalCompact(c, key(pcs[:5])) || equalCompact(c, key(append(slices.Clone(pcs), 0x40000000))) {
		t.Error("keys of other lengths are equal")
	}
}
