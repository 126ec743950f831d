package pprofextended

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// withSpill runs f with bodies spilled from guessed size from, in pieces
// of size bytes.
func withSpill(from, size int, f func()) {
	oldFrom, oldSize := spillFrom, spillSize
	spillFrom, spillSize = from, size
	defer func() { spillFrom, spillSize = oldFrom, oldSize }()
	f()
}

func encodeWith(t *testing.T, ps []*model.Profile, opts EncodeOptions, from, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	var err error
	withSpill(from, size, func() { err = Encode(&buf, ps, opts) })
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A spilled body is the same bytes as one made whole: every fixture and
// generated profile, one and several at once, with derived, given and
// the profiles' own ids, plain and gzipped, binary and JSON, in pieces of
// one byte (a spill at every entry) and of the default size.
func TestSpilledSameBytes(t *testing.T) {
	var ps []*model.Profile
	for _, in := range benchInputs(t) {
		m, err := pprof.Decode(in.data)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, m)
	}
	rich := richModel()
	ps = append(ps, rich)
	own := richModel()
	own.ProfileID = bytes.Repeat([]byte{7}, 16)
	type run struct {
		name string
		ps   []*model.Profile
		opts EncodeOptions
	}
	var runs []run
	for i, p := range ps {
		runs = append(runs, run{fmt.Sprint("profile ", i), []*model.Profile{p}, EncodeOptions{}})
	}
	runs = append(runs,
		run{"all at once", ps, EncodeOptions{}},
		run{"rich, gzipped, kept payload", []*model.Profile{rich}, EncodeOptions{Gzip: true, KeepOriginal: true}},
		run{"given id", []*model.Profile{ps[0]}, EncodeOptions{ProfileID: bytes.Repeat([]byte{3}, 16)}},
		run{"own id between derived ones", []*model.Profile{rich, own, ps[0]}, EncodeOptions{}},
	)
	for _, r := range slices.Clone(runs) {
		r.name, r.opts.JSON = r.name+", JSON", true
		runs = append(runs, r)
	}
	for _, r := range runs {
		whole := encodeWith(t, r.ps, r.opts, math.MaxInt, 64<<10)
		for _, size := range []int{1, 64 << 10} {
			if got := encodeWith(t, r.ps, r.opts, 0, size); !bytes.Equal(got, whole) {
				t.Errorf("%s, pieces of %d: spilled output (%d bytes) differs from the whole one (%d)", r.name, size, len(got), len(whole))
			}
		}
	}
}

// failAfter fails every write once n bytes have been written.
type failAfter struct{ n int }

var errFull = errors.New("device full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errFull
	}
	f.n -= len(p)
	return len(p), nil
}

// A write that fails while a body is spilled ends the Encode with its
// error, wherever it falls.
func TestSpilledWriteError(t *testing.T) {
	p := richModel()
	size := len(encodeWith(t, singleton(p), EncodeOptions{}, math.MaxInt, 1))
	for n := 0; n < size; n += max(1, size/40) {
		var err error
		withSpill(0, 1, func() { err = Encode(&failAfter{n}, singleton(p), EncodeOptions{}) })
		if !errors.Is(err, errFull) {
			t.Fatalf("writes failing after %d of %d bytes: Encode returned %v, want %v", n, size, err, errFull)
		}
	}
}

// A large profile is written without holding its output: 1M functions
// and locations (the output 34 MiB) hold at once, beyond the model, under
// half of what the whole output took. Its JSON (107 MiB), which was
// written from the binary message held whole, holds what the binary one
// does and its text's buffer.
func TestSpilledMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a profile of 1M locations")
	}
	ps := singleton(synth.OwnLocations(1<<20, 1000))
	var binary int64
	for _, opts := range []EncodeOptions{{}, {JSON: true}} {
		var out int64
		whole := memcheck.Peak(func() {
			cw := &counter{}
			withSpill(math.MaxInt, spillSize, func() {
				if err := Encode(cw, ps, opts); err != nil {
					t.Fatal(err)
				}
			})
			out = cw.n
		})
		encode := func() {
			if err := Encode(io.Discard, ps, opts); err != nil {
				t.Fatal(err)
			}
		}
		spilled := memcheck.Peak(encode)
		if !opts.JSON {
			// The binary output's peak is the JSON output's reference: a
			// peak sampled while other packages' tests run can miss the
			// most held by some MiB (33.2 against 37.2), so the larger of
			// two runs is taken.
			spilled = max(spilled, memcheck.Peak(encode))
		}
		t.Logf("JSON %v: output %.1f MiB; held at once: %.1f MiB whole, %.1f spilled", opts.JSON, mib(out), mib(int64(whole)), mib(int64(spilled)))
		bound := int64(whole) - out/2
		if opts.JSON {
			bound = binary + 8<<20
		}
		if int64(spilled) > bound {
			t.Errorf("JSON %v: spilled, the writer held %.1f MiB at once; whole, %.1f for an output of %.1f: want at most %.1f", opts.JSON, mib(int64(spilled)), mib(int64(whole)), mib(out), mib(bound))
		}
		binary = int64(spilled)
	}
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// What EncodeMemory counts for a profile written as it is made covers
// what writing it takes, binary and JSON: many locations of their own
// (in address order and not), one deep stack, many labeled stacks with
// timestamps.
func TestEncodeMemoryCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("profiles of 200k locations and 8M frames")
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	shuffled := synth.OwnLocations(200_000, 100)
	for i := range shuffled.Locations {
		shuffled.Locations[i].Address = uint64(rnd.Int64N(1 << 40))
	}
	for _, c := range []struct {
		name string
		p    *model.Profile
	}{
		{"200k locations", synth.OwnLocations(200_000, 100)},
		{"200k locations out of order", shuffled},
		{"one stack of 8M frames", synth.DeepStack(8 << 20)},
		{"20k labeled stacks", synth.LabeledStacks(20_000, true)},
	} {
		for _, json := range []bool{false, true} {
			var count int64
			least := ^uint64(0)
			withSpill(0, spillSize, func() {
				count = EncodeMemory(c.p, json)
				for range 3 {
					for encoders.Get() != nil {
					}
					var err error
					peak := memcheck.Peak(func() { err = Encode(io.Discard, singleton(c.p), EncodeOptions{JSON: json}) })
					if err != nil {
						t.Fatal(err)
					}
					least = min(least, peak)
				}
			})
			t.Logf("%s (json %v): %d bytes held at most, %d counted; %d whole", c.name, json, least, count, int64(wholeMemPerByte*float64(c.p.MemSize())))
			if int64(least) > count {
				t.Errorf("%s (json %v): writing held %d bytes, more than the %d counted", c.name, json, least, count)
			}
		}
	}
}

// The attribute table's entries are found by an index of their numbers:
// laying out 200k label sets, each with a numeric label of its own (a
// perf script's samples, their times as labels), leaves at most 80 bytes
// an entry held: the entry, 24 bytes, its index, and its label set's
// attribute indices and ends. A map keyed by the entries left 106.
func TestAttributeTableMemory(t *testing.T) {
	const n = 200_000
	p := synth.LabeledStacks(n, true)
	e := newEncoder(EncodeOptions{})
	e.p = p
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e.layoutAttributes()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(e)
	if len(e.kv) < n {
		t.Fatalf("%d attributes, want at least %d", len(e.kv), n)
	}
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(len(e.kv))
	t.Logf("%d attributes: %d bytes an entry held", len(e.kv), per)
	if per > 80 {
		t.Errorf("laying out the attribute table left %d bytes an entry held, want 80 or less", per)
	}
}
