package formats

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
)

// Under a memory limit, a write that would take more than the limit
// leaves now (twice what the profile holds) is refused in one line before
// it starts; one that fits is written.
func TestWriteHeldToTheLimit(t *testing.T) {
	in := readHeap(t)
	size := in.Items[0].Profile.MemSize()
	defer model.SetMemoryAvailable(0)
	model.SetMemoryInUse(func() int64 { return 0 }, 0)
	for _, f := range []OutFormat{OutPprof, OutOTLP, OutOTLPJSON, OutFolded} {
		model.SetMemoryAvailable(2*size - 1)
		var buf bytes.Buffer
		err := Write(&buf, f, in.Items, WriteOptions{})
		if err == nil || !strings.Contains(err.Error(), "the memory limit leaves now") || strings.Contains(err.Error(), "\n") || buf.Len() != 0 {
			t.Errorf("%s, limit 2 x %d - 1: %v (%d bytes written), want a one-line refusal", f, size, err, buf.Len())
		}
		model.SetMemoryAvailable(64 << 20)
		if err := Write(&buf, f, in.Items, WriteOptions{}); err != nil || buf.Len() == 0 {
			t.Errorf("%s, limit 64 MiB: %v, %d bytes", f, err, buf.Len())
		}
	}
}
