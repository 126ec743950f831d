package pprof

import (
	"bytes"
	"os"
	"testing"
)

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
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeRaw(data)
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
