package otlp

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// A framed file whose messages are 16 MiB or more, so that their
// lengths begin with a byte other than 0 (as the collector's fileexporter
// writes a large batch), reads as its messages; so does one such frame
// after a short one.
func TestFramedLargeMessages(t *testing.T) {
	b := synth.Locations(10)
	b.P.Samples = []model.Sample{model.NewSample(b.Stack([]int32{0, 1, 2}), []int64{1})}
	b.P.Comments = []int32{b.String(strings.Repeat("pprofx ", 17<<20/7))}
	large := b.P
	small := synth.DeepStack(5)
	var one, frames bytes.Buffer
	if err := Encode(&one, []*model.Profile{large}, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*model.Profile{large, small, large} {
		if err := EncodeFramed(&frames, []*model.Profile{p}, EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if frames.Bytes()[0] == 0 {
		t.Fatalf("the first frame's length, %d, is under 16 MiB", binary.BigEndian.Uint32(frames.Bytes()))
	}
	want, err := Decode(one.Bytes(), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := ReadForDecode(frames.Bytes(), DecodeOptions{})
	if err != nil {
		t.Fatalf("framed: %v", err)
	}
	if !parsed.Framed || len(parsed.Messages) != 3 {
		t.Fatalf("framed: %d messages (framed %v), want 3 framed", len(parsed.Messages), parsed.Framed)
	}
	got, err := parsed.Decode(DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d profiles, want 3", len(got))
	}
	sameProfiles(t, "the first frame", want, got[:1])
	sameProfiles(t, "the last frame", want, got[2:])
	// Cut short, the file is refused where its framing breaks.
	_, err = Decode(frames.Bytes()[:1000], DecodeOptions{})
	if err == nil || !strings.Contains(err.Error(), "framed message 0 at byte 0:") || !strings.Contains(err.Error(), "past the end of the input (996 left)") {
		t.Errorf("cut short: %v, want where its framing breaks", err)
	}
	// The plain message is not split: its first bytes frame nothing.
	if p, err := ReadForDecode(one.Bytes(), DecodeOptions{}); err != nil || p.Framed || len(p.Messages) != 1 {
		t.Errorf("plain message: %v, framed %v", err, p != nil && p.Framed)
	}
}

// A framed file starts with a byte below 8 (a first length under 128
// MiB), which no message starts with; the frames end exactly at its end.
func TestSplitFramed(t *testing.T) {
	frame := func(n int) []byte {
		return append(binary.BigEndian.AppendUint32(nil, uint32(n)), make([]byte, n)...)
	}
	for _, c := range []struct {
		name   string
		data   []byte
		frames int
	}{
		{"one short frame", frame(3), 1},
		{"a frame of 16 MiB and one of 1 byte", append(frame(16<<20), frame(1)...), 2},
		{"a frame cut short", frame(16 << 20)[:100], 0},
		{"a message starting with resource_profiles", []byte{0x0a, 0, 0, 0}, 0},
		{"a first length of 128 MiB", []byte{8, 0, 0, 0}, 0},
		{"three bytes", []byte{0, 0, 0}, 0},
	} {
		fr, ok := splitFramed(c.data)
		if len(fr) != c.frames || ok != (c.frames > 0) {
			t.Errorf("%s: %d frames (%v), want %d", c.name, len(fr), ok, c.frames)
		}
	}
}
