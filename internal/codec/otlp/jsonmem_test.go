package otlp

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// Writing JSON of a small binary encoding gives the text its room at once:
// 6 times the bytes are held to what the memory limit leaves before it
// starts.
func TestJSONHeldToTheLimit(t *testing.T) {
	p, _ := heapProfile(t)
	ps := []*model.Profile{p}
	bin, err := AppendProto(nil, ps, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer model.SetMemoryAvailable(0)
	model.SetMemoryInUse(func() int64 { return 0 }, 0)
	model.SetMemoryAvailable(6*int64(len(bin)) - 1)
	var buf bytes.Buffer
	if err := EncodeJSON(&buf, ps, EncodeOptions{}); err == nil || !strings.Contains(err.Error(), "as JSON would take") {
		t.Fatalf("under 6 x %d - 1 bytes: %v, want a refusal", len(bin), err)
	}
	model.SetMemoryAvailable(6 * int64(len(bin)))
	if err := EncodeJSON(&buf, ps, EncodeOptions{}); err != nil || buf.Len() == 0 {
		t.Fatalf("under 6 x %d bytes: %v", len(bin), err)
	}
}

// The JSON of a large binary encoding is written as it is made: writing
// 34 MB of text from 17 MB of binary allocates a few megabytes, where the
// generated structs alone would take 68 MB and the text 34 MB more.
func TestLargeJSONStreamed(t *testing.T) {
	const frames = streamJSONAt
	ps := []*model.Profile{synth.DeepStack(frames)}
	data, release, err := encode(ps, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if len(data) < streamJSONAt {
		t.Fatalf("%d bytes of binary, want %d or more", len(data), streamJSONAt)
	}
	var n countWriter
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := writeJSON(&n, data, false); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n < 2*frames {
		t.Fatalf("%d bytes of JSON, want %d or more", n, 2*frames)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("writing %d bytes of JSON allocated %d bytes, want 4 MiB at most", n, got)
	}
	// And it is the text the structs give.
	var streamed bytes.Buffer
	if err := writeJSON(&streamed, data, false); err != nil {
		t.Fatal(err)
	}
	want, err := protoToJSON(nil, data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(streamed.Bytes(), append(want, '\n')) {
		t.Errorf("streamed JSON differs from the JSON written whole")
	}
}

type countWriter int64

func (c *countWriter) Write(b []byte) (int, error) {
	*c += countWriter(len(b))
	return len(b), nil
}

var _ io.Writer = (*countWriter)(nil)
