package pprofextended

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/fixture"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// allocBound is what Decode may allocate for an input of n bytes (plain:
// the fuzzer's gzip inputs are small): the generated messages and the
// model, both estimated and checked before they are allocated, the JSON
// tokens' garbage, and a fixed part.
func allocBound(n int) uint64 { return 2<<20 + 64*uint64(n) }

// FuzzDecode feeds the reader binary and JSON inputs, plain and gzipped. It
// must never panic, and whatever it accepts must re-encode and read back.
func FuzzDecode(f *testing.F) {
	p := richModel()
	for _, o := range []EncodeOptions{{}, {JSON: true}, {Gzip: true}, {KeepOriginal: true}} {
		var buf bytes.Buffer
		if err := Encode(&buf, singleton(p), o); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add(mustMarshal(f, validPD()))
	// The OTLP encodings of the real pprof fixtures, binary and JSON.
	for _, name := range pprofFixtures(f) {
		m := fixture.DecodePprof(f, name)
		for _, json := range []bool{false, true} {
			var buf bytes.Buffer
			if err := Encode(&buf, singleton(m), EncodeOptions{JSON: json}); err != nil {
				f.Fatal(err)
			}
			f.Add(buf.Bytes())
		}
	}
	// Hostile shapes: empty samples, an attribute table of empty entries,
	// samples slicing one long location_indices range, JSON "{}" samples.
	wrap := func(body []byte) []byte {
		for _, num := range []protowire.Number{8, 2, 2, 1} {
			body = protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), body)
		}
		return body
	}
	f.Add(wrap(append([]byte{0x32, 0x00}, bytes.Repeat([]byte{0x12, 0x00}, 4096)...)))
	f.Add(wrap(append([]byte{0x32, 0x00}, bytes.Repeat([]byte{0x82, 0x01, 0x00}, 4096)...)))
	slices := []byte{0x32, 0x00, 0x22, 0x00, 0x7a, 0x80, 0x08}
	slices = append(slices, make([]byte, 1024)...)
	f.Add(wrap(append(slices, bytes.Repeat([]byte{0x12, 0x03, 0x40, 0x80, 0x08}, 1024)...)))
	f.Add([]byte(`{"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"profile":{"stringTable":[""],"sample":[{}` +
		strings.Repeat(",{}", 4096) + "]}}]}]}]}"))
	runtime.GC() // count nothing the seeds' setup allocated
	f.Fuzz(func(t *testing.T, data []byte) {
		var ps []*model.Profile
		var err error
		decode := func() { ps, err = Decode(data, DecodeOptions{}) }
		decode()
		// A gzipped input is bounded by what it decompresses to.
		n := len(data)
		if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
			if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
				k, _ := io.Copy(io.Discard, zr)
				n = max(n, int(k))
			}
		}
		if alloc, over := memcheck.Over(allocBound(n), decode); over {
			t.Fatalf("allocated %d bytes for a %d-byte input (bound %d)", alloc, n, allocBound(n))
		}
		if err != nil {
			return
		}
		for _, json := range []bool{false, true} {
			var buf bytes.Buffer
			if err := Encode(&buf, ps, EncodeOptions{JSON: json}); err != nil {
				t.Fatalf("re-encode (json=%v) of an accepted input: %v", json, err)
			}
			if _, err := Decode(buf.Bytes(), DecodeOptions{}); err != nil {
				t.Fatalf("re-read (json=%v): %v", json, err)
			}
			// Spilled in pieces of a byte, the same bytes.
			var spilled bytes.Buffer
			withSpill(0, 1, func() { err = Encode(&spilled, ps, EncodeOptions{JSON: json}) })
			if err != nil || !bytes.Equal(spilled.Bytes(), buf.Bytes()) {
				t.Fatalf("spilled re-encode (json=%v): %v; %d bytes, want the %d written whole", json, err, spilled.Len(), buf.Len())
			}
		}
	})
}
