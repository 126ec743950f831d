package folded_test

import (
	"bytes"
	"fmt"
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
	var distinct bytes.Buffer
	for l := range 100 {
		for f := range 1000 {
			if f > 0 {
				distinct.WriteByte(';')
			}
			fmt.Fprintf(&distinct, "pkg.fn%d", l*1000+f)
		}
		fmt.Fprintf(&distinct, " %d\n", l+1)
	}
	for _, in := range []struct {
		name string
		data []byte
	}{{"go-cpu", real}, {"distinct-100k", distinct.Bytes()}} {
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
