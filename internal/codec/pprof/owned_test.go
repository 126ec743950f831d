package pprof

import (
	"bytes"
	"os"
	"reflect"
	"testing"
	"unsafe"

	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/modeldump"
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
		// DeepEqual sees a sample's values and timestamps by their first
		// element only (the model holds a pointer to it): Describe has all.
		if !reflect.DeepEqual(a, b) || modeldump.Describe(a) != modeldump.Describe(b) {
			t.Errorf("%s: DecodeRawOwned differs from DecodeRaw", name)
		}
	}
}

// Counts the input's bytes cannot justify are refused before the tables
// are allocated.
func TestCountsBeyondTheBytes(t *testing.T) {
	// Empty samples of 2 bytes, each 48 in the model.
	samples := append([]byte{0x32, 0x00, 0x32, 0x01, 's', 0x0a, 0x02, 0x08, 0x01}, bytes.Repeat([]byte{0x12, 0x00}, 2<<20)...)
	var err error
	alloc := memcheck.Of(func() { _, err = DecodeRaw(samples) })
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("2097152 samples")) {
		t.Fatalf("err = %v", err)
	}
	if alloc > 1<<20 {
		t.Errorf("allocated %d bytes before refusing", alloc)
	}
}

// DecodeRawOwned points strings into the input only when they are most of
// it: a profile that is mostly samples copies its few strings, so that it
// does not hold its whole input alive.
func TestOwnedOnlyWhenMostlyStrings(t *testing.T) {
	inData := func(s string, data []byte) bool {
		if len(s) == 0 {
			return false
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
		return p >= start && p < start+uintptr(len(data))
	}
	build := func(nameLen, samples int) []byte {
		// sample_type {type: 1, unit: 2}; string_table "", name, "count";
		// samples of one value each.
		b := []byte{0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x32, 0x00}
		b = append(b, 0x32, byte(nameLen))
		b = append(b, bytes.Repeat([]byte{'n'}, nameLen)...)
		b = append(b, 0x32, 0x05, 'c', 'o', 'u', 'n', 't')
		for range samples {
			b = append(b, 0x12, 0x02, 0x10, 0x01)
		}
		return b
	}
	for _, c := range []struct {
		nameLen, samples int
		alias            bool
	}{{100, 10, true}, {10, 100, false}} {
		data := build(c.nameLen, c.samples)
		p, err := DecodeRawOwned(data)
		if err != nil {
			t.Fatal(err)
		}
		if got := inData(p.Strings[1], data); got != c.alias {
			t.Errorf("%d-byte string, %d samples: string in the input %v, want %v", c.nameLen, c.samples, got, c.alias)
		}
	}
}
