package pprof

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// DecodeRawOwned gives the profile DecodeRaw gives; its strings point into
// the input instead of a copy.
func TestDecodeRawOwned(t *testing.T) {
	for _, name := range fixtures(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := Gunzip(bytes.NewReader(data), DefaultMaxSize)
		if err != nil {
			t.Fatal(err)
		}
		a, err := DecodeRaw(raw)
		if err != nil {
			t.Fatal(err)
		}
		b, err := DecodeRawOwned(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: DecodeRawOwned differs from DecodeRaw", name)
		}
	}
}

// Counts the input's bytes cannot justify are refused before the tables
// are allocated.
func TestCountsBeyondTheBytes(t *testing.T) {
	samples := append([]byte{0x32, 0x00, 0x32, 0x01, 's', 0x0a, 0x02, 0x08, 0x01}, bytes.Repeat([]byte{0x12, 0x02, 0x10, 0x01}, 2<<20)...)
	var err error
	alloc := memcheck.Of(func() { _, err = DecodeRaw(samples) })
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("2097152 samples")) {
		t.Fatalf("err = %v", err)
	}
	if alloc > 1<<20 {
		t.Errorf("allocated %d bytes before refusing", alloc)
	}
}
