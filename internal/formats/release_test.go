package formats

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// A large input, garbage once decoded, is handed back before Read
// returns: what the process holds then is the profile, not the profile and
// the input. Without that, the next collection's goal (twice the heap
// with the input in it) lets the output's buffers grow the process by as
// much again.
func TestLargeInputReleased(t *testing.T) {
	const frames = releaseAt + 1<<20 // one byte each: location index 1
	var buf bytes.Buffer
	if err := pprof.Encode(&buf, synth.DeepStack(frames), pprof.EncodeOptions{Raw: true}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	buf = bytes.Buffer{}
	if len(data) < releaseAt {
		t.Fatalf("%d bytes of input, want %d or more", len(data), releaseAt)
	}
	debug.FreeOSMemory()
	before := held()
	in, err := Read(bytes.NewReader(data), ReadOptions{Release: true})
	if err != nil {
		t.Fatal(err)
	}
	after := held()
	runtime.KeepAlive(data)
	model := in.Items[0].Profile.MemSize()
	// The input was read into a buffer of its own, too large for the
	// pool: 65 MiB that must not be held any more.
	if grew := after - before; grew > model+8<<20 {
		t.Errorf("after Read the process holds %d MiB more, for a profile of %d MiB: the input's %d MiB were not handed back", grew>>20, model>>20, frames>>20)
	}
	runtime.KeepAlive(in)
}

// held is the memory the Go runtime holds from the operating system.
func held() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
