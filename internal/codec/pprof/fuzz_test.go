package pprof

import (
	"bytes"
	"os"
	"runtime"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// allocBound is what DecodeRaw may allocate for an input of n bytes: the
// model's tables (model.MemoryPerInputByte per byte, checked before they
// are allocated), the maps that intern stacks and label sets, and a fixed
// part; never more.
func allocBound(n int) uint64 { return 1<<20 + 32*uint64(n) }

// FuzzDecode: no input makes the decoder panic, and whatever it accepts
// is valid, encodes, and decodes again to the same encoding.
func FuzzDecode(f *testing.F) {
	for _, name := range fixtures(f) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		raw, err := Gunzip(bytes.NewReader(data), DefaultMaxSize)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte{0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x32, 0x00, 0x32, 0x01, 0x61})
	// Hostile shapes: many 4-byte samples, many empty strings, one long
	// stack of one location.
	f.Add(append([]byte{0x32, 0x00, 0x32, 0x01, 's', 0x0a, 0x02, 0x08, 0x01}, bytes.Repeat([]byte{0x12, 0x02, 0x10, 0x01}, 4096)...))
	f.Add(bytes.Repeat([]byte{0x32, 0x00}, 8192))
	f.Add(append([]byte{0x32, 0x00, 0x22, 0x02, 0x08, 0x01, 0x12, 0x83, 0x20, 0x0a, 0x80, 0x20}, bytes.Repeat([]byte{1}, 4096)...))
	runtime.GC() // count nothing the seeds' setup allocated
	f.Fuzz(func(t *testing.T, data []byte) {
		var p *model.Profile
		var err error
		if alloc, over := memcheck.Over(allocBound(len(data)), func() { p, err = DecodeRaw(data) }); over {
			t.Fatalf("allocated %d bytes for a %d-byte input (bound %d)", alloc, len(data), allocBound(len(data)))
		}
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("decoded an invalid profile: %v", err)
		}
		var a bytes.Buffer
		if err := Encode(&a, p, EncodeOptions{Raw: true}); err != nil {
			t.Fatalf("cannot encode what was decoded: %v", err)
		}
		q, err := DecodeRaw(a.Bytes())
		if err != nil {
			t.Fatalf("cannot decode our own encoding: %v", err)
		}
		var b bytes.Buffer
		if err := Encode(&b, q, EncodeOptions{Raw: true}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatal("encoding is not a fixed point")
		}
	})
}
