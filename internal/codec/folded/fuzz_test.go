package folded_test

import (
	"bytes"
	"testing"

	"github.com/pprofx/pprofx/internal/testutil/memcheck"

	"github.com/pprofx/pprofx/internal/codec/folded"
	"github.com/pprofx/pprofx/internal/model"
)

func FuzzDecode(f *testing.F) {
	f.Add([]byte("a;b;c 42\nmain;x_[j] 3\n"))
	f.Add([]byte("a 1\n\n b;;c 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p *model.Profile
		var err error
		if alloc, over := memcheck.Over(allocBound(len(data)), func() { p, err = folded.Decode(bytes.NewReader(data), folded.ReadOptions{}) }); over {
			t.Fatalf("allocated %d bytes for a %d-byte input (bound %d)", alloc, len(data), allocBound(len(data)))
		}
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("invalid profile: %v", err)
		}
		var out bytes.Buffer
		if err := folded.Encode(&out, p, folded.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

// allocBound is what Decode may allocate for an input of n bytes: a fixed
// part (the read buffer, the builder's tables) and a multiple of the
// input.
func allocBound(n int) uint64 { return 1<<20 + 64*uint64(n) }
