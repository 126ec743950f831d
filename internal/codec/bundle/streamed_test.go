package bundle_test

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/testutil/hostile"
)

// A block whose frame does not state its size, or compresses more than
// 16 times, is decompressed as a stream. Its buffer is made once, at the
// size the data proved to have: reading the crafted tables block of
// 64 MiB of zeros (128 KB in a file) allocates that block once, where a
// buffer grown as the data came allocated about twice it.
func TestStreamedBlockAllocatedOnce(t *testing.T) {
	data, err := hostile.File("bundle-tables-zeros.ppxb", true)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := hostile.BundleRaw(data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := bundle.OpenLimit(bytes.NewReader(data), int64(len(data)), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = r.Profile(0)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "tables block, byte 1: profile_strings: no strings") {
		t.Fatalf("%v, want the tables refused at their first byte", err)
	}
	if got := int64(after.TotalAlloc - before.TotalAlloc); got > raw+raw/8 {
		t.Errorf("reading a %d-byte block of zeros allocated %d bytes", raw, got)
	}
}
