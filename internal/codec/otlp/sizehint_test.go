package otlp

import (
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
	for _, in := range synth.Inputs(t, pprofFixtures(t)) {
		p, err := pprof.Decode(in.Data)
		if err != nil {
			t.Fatal(err)
		}
		ps := []*model.Profile{p}
		out, err := AppendProto(nil, ps, EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if hint := sizeHint(ps); hint < len(out) {
			t.Errorf("%s: %d bytes written, sizeHint %d", in.Name, len(out), hint)
		}
	}
}
