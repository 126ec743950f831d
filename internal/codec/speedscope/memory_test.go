package speedscope

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// The frame table is made at its size: 1M frames of 12 bytes of text
// hold their 48 bytes each and the text, not a table grown by copies.
// A frame table that does not read gives encoding/json's error, in its
// place in the file, as the first of the file's errors.
func TestFramesMadeAtSize(t *testing.T) {
	const n = 1 << 20
	var text bytes.Buffer
	text.WriteString(`{"shared":{"frames":[`)
	for i := range n {
		if i > 0 {
			text.WriteByte(',')
		}
		text.WriteString(`{"name":""}`)
	}
	text.WriteString(`]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[[0]],"weights":[1]}]}`)
	data := text.Bytes()
	peak := memcheck.Peak(func() {
		if _, err := Decode(data, ReadOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d frames in %d bytes: %.1f MiB held at most", n, len(data), float64(peak)/(1<<20))
	if bound := uint64(64 * n); peak > bound {
		t.Errorf("reading %d frames held %d bytes at once, want %d at most (64 a frame)", n, peak, bound)
	}
	for in, want := range map[string]string{
		`{"shared":{"frames":[{"name":"a"},{"name":5}]},"profiles":[]}`: "speedscope: byte 43: shared.frames.name is a JSON number, want string",
		`{"name":7,"shared":{"frames":[{"name":5}]},"profiles":[]}`:     "speedscope: byte 9: name is a JSON number, want string",
	} {
		if _, err := Decode([]byte(in), ReadOptions{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

// The weights are made at their size too, each a part of one string:
// 1M samples of one frame and their weights (4 MB of text) hold 16 bytes
// a weight and the samples' frames. A weight that is not a number is
// named.
func TestWeightsMadeAtSize(t *testing.T) {
	const n = 1 << 20
	var text bytes.Buffer
	text.WriteString(`{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[`)
	text.WriteString(strings.Repeat("[0],", n-1) + "[0]")
	text.WriteString(`],"weights":[`)
	text.WriteString(strings.Repeat("1,", n-1) + "1")
	text.WriteString(`]}]}`)
	data := text.Bytes()
	var ps []Profile
	peak := memcheck.Peak(func() {
		var err error
		if ps, err = Decode(data, ReadOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	var total int64
	for _, s := range ps[0].Profile.Samples {
		total += s.Values()[0]
	}
	t.Logf("%d weights in %d bytes: %.1f MiB held at most", n, len(data), float64(peak)/(1<<20))
	if total != n {
		t.Errorf("the weights add to %d, want %d", total, n)
	}
	// 4.3 times the text; 8.2 while encoding/json grew the weights.
	if bound := 6 * uint64(len(data)); peak > bound {
		t.Errorf("reading held %d bytes at once, want %d at most (6 times the text)", peak, bound)
	}
	in := `{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[[0],[0]],"weights":[1,"x"]}]}`
	if _, err := Decode([]byte(in), ReadOptions{}); err == nil || err.Error() != "speedscope: weights[1]: want a number" {
		t.Errorf("a weight \"x\": %v", err)
	}
}
