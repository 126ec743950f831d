package bundle

import (
	"bytes"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// TestDeepStackMemory holds what writing and reading a stack of 2M frames
// of one location (a chain of 2M prefix-tree nodes) takes at once, per
// node. The writer holds 4 bytes and a bit a node while it adds them (a
// location, in chunks; a node added after its parent keeps no parent)
// and, while Close orders and writes them, the encoded tables beside,
// with its zstd encoder's tables. The reader holds 4 bytes and a bit a
// node (a location; a node that is its parent's first child keeps no
// parent) beside the decompressed tables, and then the profile's 4 bytes
// a frame. They took 58 and 30 bytes a node, then 31 and 18; now about
// 17 and 11.
func TestDeepStackMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("2M-node chain")
	}
	const n = 2 << 20
	b := synth.Locations(1)
	p := b.P
	frames := make([]int32, n)
	p.Samples = []model.Sample{model.NewSample(b.Stack(frames), []int64{1})}
	frames = nil
	var buf bytes.Buffer
	write := memcheck.Peak(func() {
		w := NewWriter(&buf, WriterOptions{})
		if err := w.Add(Entry{Name: "deep"}, p); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	})
	data := buf.Bytes()
	var q *model.Profile
	read := memcheck.Peak(func() {
		r, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if q, err = r.ProfileLast(0); err != nil {
			t.Fatal(err)
		}
	})
	if q.Stacks.Len() != 1 || q.Stacks.StackLen(0) != n {
		t.Fatalf("read back %d stacks, the first of %d frames; want 1 of %d", q.Stacks.Len(), q.Stacks.StackLen(0), n)
	}
	t.Logf("write %.1f, read %.1f bytes a node", float64(write)/n, float64(read)/n)
	if write > 22*n {
		t.Errorf("writing took %d bytes at once, %.1f a node; want at most 22", write, float64(write)/n)
	}
	if read > 14*n {
		t.Errorf("reading took %d bytes at once, %.1f a node; want at most 14", read, float64(read)/n)
	}
}
