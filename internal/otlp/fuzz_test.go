package otlp

import (
	"bytes"
	"os"
	"testing"

	"github.com/pprofx/pprofx/internal/pprof"
)

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
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		m, err := pprof.Decode(data)
		if err != nil {
			f.Fatal(err)
		}
		for _, json := range []bool{false, true} {
			var buf bytes.Buffer
			if err := Encode(&buf, singleton(m), EncodeOptions{JSON: json}); err != nil {
				f.Fatal(err)
			}
			f.Add(buf.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := Decode(data, DecodeOptions{})
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
		}
	})
}
