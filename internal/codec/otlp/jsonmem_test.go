package otlp

import (
	"bytes"
	"io"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// The JSON of a binary encoding is written as it is made, whatever its
// size: writing the text of 2M frames (8 MB from 4 MB of binary) allocates
// about a megabyte, and gzipped, the 4 MiB that tell the level too, where
// the text was held whole below 16 MiB of binary. And it is the text
// written whole, gzipped at the level its size calls for.
func TestJSONStreamed(t *testing.T) {
	for _, frames := range []int{1 << 10, 2 << 20} {
		ps := []*model.Profile{synth.DeepStack(frames)}
		data, release, err := encode(ps, EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		text, err := protoToJSON(nil, data)
		if err != nil {
			t.Fatal(err)
		}
		text = append(text, '\n')
		for _, gz := range []bool{false, true} {
			var n countWriter
			got := memcheck.Of(func() {
				if err := writeJSON(&n, data, gz); err != nil {
					t.Fatal(err)
				}
			})
			bound := uint64(3 << 19)
			if gz {
				bound += smallOutput + 1<<20
			}
			if got > bound {
				t.Errorf("%d frames, gzip %v: writing %d bytes allocated %d, want %d at most", frames, gz, n, got, bound)
			}
			var out, want bytes.Buffer
			if err := writeJSON(&out, data, gz); err != nil {
				t.Fatal(err)
			}
			if err := write(&want, text, gz); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want.Bytes()) {
				t.Errorf("%d frames, gzip %v: %d bytes written as made, %d written whole, not the same", frames, gz, out.Len(), want.Len())
			}
		}
		release()
	}
}

type countWriter int64

func (c *countWriter) Write(b []byte) (int, error) {
	*c += countWriter(len(b))
	return len(b), nil
}

var _ io.Writer = (*countWriter)(nil)
