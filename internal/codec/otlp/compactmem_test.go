package otlp

import (
	"bytes"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// A profile of many locations and functions is read into the model's
// layout: reading one of 200k, each location of one line and its own
// function, allocates 200 bytes an entry or less (the model's location,
// line and function take 72, its string 24), where reading through the
// generated structs allocates over 400.
func TestDecodeCompactMemory(t *testing.T) {
	const n = 200_000
	b := synth.Locations(n)
	frames := make([]int32, n)
	for i := range frames {
		frames[i] = int32(i)
	}
	b.P.Samples = []model.Sample{model.NewSample(b.Stack(frames), []int64{1})}
	var buf bytes.Buffer
	if err := Encode(&buf, []*model.Profile{b.P}, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	var ps []*model.Profile
	var err error
	compact := memcheck.Of(func() { ps, err = Decode(data, DecodeOptions{}) })
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ps[0].Locations); got != n {
		t.Fatalf("%d locations, want %d", got, n)
	}
	generated := memcheck.Of(func() {
		msgs, err := Messages(data, DecodeOptions{})
		if err == nil {
			_, err = DecodeMessages(msgs, DecodeOptions{Release: true})
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d entries: %d bytes each read compact, %d through the generated structs", n, compact/n, generated/n)
	if compact > 200*n || generated < 400*n {
		t.Errorf("%d bytes an entry read compact (want 200 or less), %d through the generated structs (want over 400)", compact/n, generated/n)
	}
}
