package otlp

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// manyLocations is a profile of n locations, each of one line and its
// own function, and one sample whose stack has them all.
func manyLocations(n int) *model.Profile {
	b := synth.Locations(n)
	frames := make([]int32, n)
	for i := range frames {
		frames[i] = int32(i)
	}
	b.P.Samples = []model.Sample{model.NewSample(b.Stack(frames), []int64{1})}
	return b.P
}

// encodePeak is the least of three peaks (memcheck.Peak) of writing p,
// each with no pooled encoder to take arrays from: a collection that runs
// late only ever adds to one.
func encodePeak(t *testing.T, p *model.Profile) uint64 { return peakOf(t, Encode, p) }

// peakOf is encodePeak with enc for Encode.
func peakOf(t *testing.T, enc func(io.Writer, []*model.Profile, EncodeOptions) error, p *model.Profile) uint64 {
	least := ^uint64(0)
	for range 3 {
		for encoders.Get() != nil {
		}
		var err error
		peak := memcheck.Peak(func() { err = enc(io.Discard, []*model.Profile{p}, EncodeOptions{}) })
		if err != nil {
			t.Fatal(err)
		}
		least = min(least, peak)
	}
	return least
}

// The writer's own arrays for a table of many entries are let go as soon
// as its step is done, a location's attribute indices take 4 bytes when
// it has none, the string table is a list of references (8 bytes a
// string), locations already in the table's order make no sort keys, and
// the location and function tables, in the profile's own order, no array
// of references: writing a profile of 200k locations, each of one line
// and its own function, holds at most 100 bytes an entry at once (90
// here) beside the profile,
// its output's buffer (sizeHint's, about 50 bytes an entry) included.
// With the strings sorted as 24-byte candidates into a table of 16-byte
// headers, it held 101; holding each step's arrays to the end and a
// 24-byte slice per location, 160.
func TestEncodeTableMemory(t *testing.T) {
	const n = 200_000
	peak := encodePeak(t, manyLocations(n))
	t.Logf("%d entries: %d bytes an entry at most", n, peak/n)
	if peak > 100*n {
		t.Errorf("writing held %d bytes an entry at once, want 100 or less", peak/n)
	}
}

// Written as it is encoded (from streamFrom), the dictionary is not held:
// a profile of 20k distinct stacks of 200 frames, whose stack table is
// most of the message (8 MB), is written holding less than half of what
// the whole message takes.
func TestEncodeStreamedMemory(t *testing.T) {
	b := synth.Locations(1000)
	rnd := rand.New(rand.NewPCG(1, 2))
	frames := make([]int32, 200)
	for range 20_000 {
		for j := range frames {
			frames[j] = int32(rnd.IntN(1000))
		}
		b.P.Samples = append(b.P.Samples, model.NewSample(b.Stack(frames), []int64{1}))
	}
	whole := encodePeak(t, b.P)
	defer func(old int) { streamFrom = old }(streamFrom)
	streamFrom = 0
	streamed := encodePeak(t, b.P)
	t.Logf("20k stacks of 200 frames: %d bytes held at most, %d with the dictionary written as it is encoded", whole, streamed)
	if 2*streamed > whole {
		t.Errorf("writing the dictionary as it is encoded held %d bytes, not less than half the %d of the whole message", streamed, whole)
	}
}

// The dictionary written as it is encoded gives the bytes the
// whole-message writer gives, binary, framed, JSON and JSON lines,
// gzipped or not, for every fixture, many locations, and pieces cut at
// every entry.
func TestEncodeStreamedSameBytes(t *testing.T) {
	var ps [][]*model.Profile
	for _, name := range otlpFixtures(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(data, DecodeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ps = append(ps, got)
	}
	for _, p := range decodedPprofFixtures(t) {
		ps = append(ps, []*model.Profile{p})
	}
	ps = append(ps, []*model.Profile{manyLocations(50_000)}, timestampedTypes(2000, 4, 0),
		[]*model.Profile{timestampedTypes(300, 3, 0)[0], timestampedTypes(200, 2, 1)[0], timestampedTypes(100, 1, 1)[0]})
	defer func(from, chunk int) { streamFrom, spillChunk = from, chunk }(streamFrom, spillChunk)
	for i, in := range ps {
		for _, gz := range []bool{false, true} {
			for k, enc := range []func(io.Writer, []*model.Profile, EncodeOptions) error{Encode, EncodeFramed, EncodeJSON, EncodeJSONLines} {
				var want bytes.Buffer
				streamFrom = math.MaxInt
				if err := enc(&want, in, EncodeOptions{Gzip: gz}); err != nil {
					t.Fatal(err)
				}
				for _, chunk := range []int{1, 1 << 20} {
					var got bytes.Buffer
					streamFrom, spillChunk = 0, chunk
					if err := enc(&got, in, EncodeOptions{Gzip: gz}); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got.Bytes(), want.Bytes()) {
						t.Errorf("input %d, writer %d (gzip %v, pieces of %d bytes): %d bytes written as encoded, %d whole, not the same", i, k, gz, chunk, got.Len(), want.Len())
					}
				}
			}
		}
	}
}

// timestampedTypes returns one profile of n samples of types sample types,
// each with a timestamp and a value in one type only (as a JFR recording's
// events are), on 100 stacks, labelled by one of 50 threads, its resource
// and scope those of resource r, with schema URLs.
func timestampedTypes(n, types, r int) []*model.Profile {
	b := synth.Locations(100)
	p := b.P
	p.SampleTypes = p.SampleTypes[:0]
	for k := range types {
		p.SampleTypes = append(p.SampleTypes, model.ValueType{Type: b.String(fmt.Sprintf("type%d", k)), Unit: b.String("count")})
	}
	for i := range n {
		v := make([]int64, types)
		v[i%types] = int64(i%1000 + 1)
		s := model.NewSample(b.Stack([]int32{int32(i % 100), int32(i % 7)}), v)
		s.LabelSet = b.LabelSet([]model.Label{{Key: b.String("thread"), Str: b.String(fmt.Sprint(i % 50))}})
		s.SetTimestamps([]uint64{1e18 + uint64(i)*1e6})
		p.Samples = append(p.Samples, s)
	}
	p.Resource = model.Resource{SchemaURL: fmt.Sprintf("https://example.com/%d", r),
		Attributes: []model.Attribute{{Key: "service.name", Value: model.Value{Kind: model.KindString, Str: fmt.Sprintf("svc%d", r)}}}}
	p.Scope = model.Scope{Name: "scope", SchemaURL: "https://example.com/scope"}
	return []*model.Profile{p}
}

// Written as they are encoded, the ResourceProfiles are not held either:
// a profile of 200k samples with timestamps and 8 sample types (a Profile
// of each, with every sample: most of the message) is written, binary or
// JSON, holding less than a third of what the whole message takes.
func TestEncodeSamplesStreamedMemory(t *testing.T) {
	p := timestampedTypes(200_000, 8, 0)[0]
	defer func(old int) { streamFrom = old }(streamFrom)
	for _, enc := range []func(io.Writer, []*model.Profile, EncodeOptions) error{Encode, EncodeJSON} {
		streamFrom = math.MaxInt
		whole := peakOf(t, enc, p)
		streamFrom = 0
		streamed := peakOf(t, enc, p)
		t.Logf("200k timestamped samples of 8 types: %d bytes held at most, %d with the ResourceProfiles written as they are encoded", whole, streamed)
		if 3*streamed > whole {
			t.Errorf("writing the ResourceProfiles as they are encoded held %d bytes, not less than a third of the %d of the whole message", streamed, whole)
		}
	}
}

// A stack of millions of frames is one entry of the dictionary, held
// whole: written as it is encoded, the dictionary takes no more than the
// whole message does, its buffer made once for the deepest stack and
// kept for the second pass (grown by append twice, it took 3.4 times as
// much).
func TestEncodeStreamedDeepStack(t *testing.T) {
	p := synth.DeepStack(8 << 20)
	whole := encodePeak(t, p)
	defer func(old int) { streamFrom = old }(streamFrom)
	streamFrom = 0
	streamed := encodePeak(t, p)
	t.Logf("one stack of 8M frames: %d bytes held at most, %d with the dictionary written as it is encoded", whole, streamed)
	if streamed > whole+whole/4 {
		t.Errorf("writing the dictionary as it is encoded held %d bytes, more than 1.25 times the %d of the whole message", streamed, whole)
	}
}

// What EncodeMemory counts for a message written as it is encoded covers
// what writing it takes, binary and JSON: many locations, one deep
// stack, many stacks, labels and timestamps.
func TestEncodeMemoryCounts(t *testing.T) {
	defer func(old int) { streamFrom = old }(streamFrom)
	streamFrom = 0
	for name, p := range map[string]*model.Profile{"200k locations": manyLocations(200_000), "one stack of 8M frames": synth.DeepStack(8 << 20), "20k labeled stacks": synth.LabeledStacks(20_000, false)} {
		for _, json := range []bool{false, true} {
			enc := Encode
			if json {
				enc = EncodeJSON
			}
			least := peakOf(t, enc, p)
			count := EncodeMemory(p, json)
			t.Logf("%s (json %v): %d bytes held at most, %d counted", name, json, least, count)
			if int64(least) > count {
				t.Errorf("%s (json %v): writing held %d bytes, more than the %d counted", name, json, least, count)
			}
		}
	}
}

// The attribute table finds its entries by an index of entry numbers:
// 200k entries of their own (a perf script's samples each have their
// time) are held in 45 bytes an entry, where a map keyed by each
// entry's bytes, holding them again, took 69.
func TestAttributeTableMemory(t *testing.T) {
	const n = 200_000
	e := &encoder{aseed: maphash.MakeSeed()}
	bodies := make([][]byte, n)
	for k := range bodies {
		bodies[k] = fmt.Appendf(nil, "\x08\x01\x12\x05\x18%d", k)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, b := range bodies {
		e.attr(b)
	}
	for _, b := range bodies[:1000] {
		e.attr(b) // found again
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(e)
	runtime.KeepAlive(bodies)
	t.Logf("%d entries: %d bytes held, %.0f an entry", len(e.attrs), held, float64(held)/n)
	if len(e.attrs) != n {
		t.Fatalf("%d entries, want %d", len(e.attrs), n)
	}
	if held > 56*n {
		t.Errorf("held %d bytes for %d entries, more than 56 an entry", held, n)
	}
}
