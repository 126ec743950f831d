package pprofextended

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// The output is reserved once, from sizeHint: a guess short of the
// output makes append copy it into a buffer 1.25 times larger, the two
// held at once. The guess covers what is written, on every fixture and on
// generated profiles of many samples, stacks, locations and labels.
func TestSizeHintCoversOutput(t *testing.T) {
	var names []string
	var data [][]byte
	for _, f := range pprofFixtures(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		names, data = append(names, filepath.Base(f)), append(data, b)
	}
	for _, s := range synth.Shapes() {
		var buf bytes.Buffer
		if err := s.P.Write(&buf); err != nil {
			t.Fatal(err)
		}
		names, data = append(names, s.Name), append(data, buf.Bytes())
	}
	for i, b := range data {
		p, err := pprof.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		ps := []*model.Profile{p}
		var out bytes.Buffer
		if err := Encode(&out, ps, EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
		if hint := sizeHint(ps); hint < out.Len() {
			t.Errorf("%s: %d bytes written, sizeHint %d", names[i], out.Len(), hint)
		}
	}
}
