package gperftools

import (
	"os"
	"testing"
)

// TestWriteLargeFile writes the 272 MB benchmark file (writeLarge) to the
// path in PPROFX_WRITE_LARGE, for benchmark scripts that time other tools
// on it (scripts/bench/views-bench.sh); without the variable it does nothing.
func TestWriteLargeFile(t *testing.T) {
	path := os.Getenv("PPROFX_WRITE_LARGE")
	if path == "" {
		t.Skip("PPROFX_WRITE_LARGE not set")
	}
	if err := writeLarge(path); err != nil {
		t.Fatal(err)
	}
}
