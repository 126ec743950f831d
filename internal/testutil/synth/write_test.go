package synth

import (
	"os"
	"testing"
)

// TestWriteWide writes, when PPROFX_WRITE_WIDE names a file, a generated
// pprof of 200k samples over 20k functions and 600k locations, stacks of
// depth 60 to 120 (54 MB gzipped, 67 MiB decompressed): the input of
// scripts/bench/wide-convert.sh.
func TestWriteWide(t *testing.T) {
	out := os.Getenv("PPROFX_WRITE_WIDE")
	if out == "" {
		t.Skip("PPROFX_WRITE_WIDE names the file to write")
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := Pprof(200000, 20000, 60, 120, 200000).Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
