package folded_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/folded"
	"github.com/pprofx/pprofx/internal/testutil/viewtest"
)

// BenchmarkDecode reads a real file of folded stacks (Go's CPU profile
// folded, 21 KB) and 100k frames of their own (100 lines of 1000).
func BenchmarkDecode(b *testing.B) {
	real, err := os.ReadFile(filepath.Join(viewtest.Root(), "testdata", "folded", "go-cpu.folded"))
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range []struct {
		name string
		data []byte
	}{{"go-cpu", real}, {"distinct-100k", distinctFrames(100)}} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := folded.Decode(bytes.NewReader(in.data), folded.ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
