package formats

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// Under a memory limit, a write that would take more than the limit
// leaves now (what its format may take, writer.memory) is refused in one
// line before it starts; one that fits is written.
func TestWriteHeldToTheLimit(t *testing.T) {
	in := readHeap(t)
	size := in.Items[0].Profile.MemSize()
	defer model.SetMemoryAvailable(0)
	model.SetMemoryInUse(func() int64 { return 0 }, 0)
	for _, f := range []OutFormat{OutPprof, OutOTLP, OutOTLPJSON, OutFolded} {
		w := writers[f]
		model.SetMemoryAvailable(w.memory(in.Items[0].Profile) - 1)
		var buf bytes.Buffer
		err := Write(&buf, f, in.Items, WriteOptions{})
		if err == nil || !strings.Contains(err.Error(), "the memory limit leaves now") || strings.Contains(err.Error(), "\n") || buf.Len() != 0 {
			t.Errorf("%s, limit %d - 1 (the profile holds %d): %v (%d bytes written), want a one-line refusal", f, w.memory(in.Items[0].Profile), size, err, buf.Len())
		}
		model.SetMemoryAvailable(64 << 20)
		if err := Write(&buf, f, in.Items, WriteOptions{}); err != nil || buf.Len() == 0 {
			t.Errorf("%s, limit 64 MiB: %v, %d bytes", f, err, buf.Len())
		}
	}
}

// What each writer takes at most, as sampled while it writes, is within
// what the check before it counts (writer.memory), with a few MiB for the
// compressors' state, on the generated shapes, the Go fixture and one
// stack of 1M frames (whose views once built each stack's text, and its
// key of names, whole: 16 times the profile).
func TestWriteMemoryWithinCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("writes every format of five profiles")
	}
	ps := []*model.Profile{readHeap(t).Items[0].Profile, synth.DeepStack(1 << 20)}
	for _, sh := range synth.Shapes() {
		var buf bytes.Buffer
		if err := sh.P.Write(&buf); err != nil {
			t.Fatal(err)
		}
		p, err := pprof.Decode(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	const slack = 4 << 20
	for f, w := range writers {
		if !w.stackView && w.memPerByte <= 0 && w.memOf == nil {
			t.Errorf("%s: no memory counted per byte of the profile", f)
		}
		for i, p := range ps {
			peak := memcheck.Peak(func() {
				if err := Write(io.Discard, f, []Item{{Profile: p}}, WriteOptions{}); err != nil {
					t.Errorf("%s, profile %d: %v", f, i, err)
				}
			})
			if need := w.memory(p); int64(peak) > need+slack {
				t.Errorf("%s, profile %d (%d bytes): took %d bytes, more than the %d counted and %d more", f, i, p.MemSize(), peak, need, slack)
			}
		}
	}
}
