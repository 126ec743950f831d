package otlp

import (
	"bytes"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// allocBound is what reading an input of n (uncompressed) bytes may
// allocate: the generated messages of the parse (up to about 100 bytes of
// structs per field of a few bytes), the model, and a fixed part.
func allocBound(n int) uint64 { return 4<<20 + 400*uint64(n) }

// seeds are pprofx's outputs of the real fixtures in every layout, and the
// collector-written files of testdata/otlp-dev.
func seeds(f *testing.F) {
	for _, m := range decodedPprofFixtures(f) {
		for _, c := range codecs {
			var buf bytes.Buffer
			if err := c.enc(&buf, []*model.Profile{m}, EncodeOptions{}); err != nil {
				f.Fatal(err)
			}
			f.Add(buf.Bytes())
		}
	}
	for _, name := range []string{"cpu.otlp", "cpu.framed", "cpu.otlp.json", "ebpf-v1.9.otlp"} {
		data, err := os.ReadFile("../../../testdata/otlp-dev/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte{0x12, 0x00})                         // an empty dictionary
	f.Add([]byte{0x0a, 0x04, 0x12, 0x02, 0x12, 0x00}) // a profile, no dictionary
	runtime.GC()
}

// FuzzDecode: the reader (binary, JSON, JSON lines, framed; each Sample
// layout, and the layout told from the bytes) never panics, allocates
// within its bound, reads what it reads through the generated structs,
// and what it accepts is a valid model that writes and reads back.
func FuzzDecode(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			return // gzip: formats bounds what it expands to (--max-input-size)
		}
		// The hand-written parser, when it takes an input, reads what the
		// generated code reads.
		if fast, err := (&parser{}).data(data); err == nil {
			slow := &pb.ProfilesData{}
			if err := proto.Unmarshal(data, slow); err != nil {
				t.Fatalf("fast parser took what proto.Unmarshal refuses: %v", err)
			}
			if !proto.Equal(fast, slow) {
				t.Fatal("the parsers disagree")
			}
		}
		for _, layout := range []SampleLayout{LayoutAuto, LayoutV110, LayoutV19} {
			var ps []*model.Profile
			var err error
			if alloc, over := memcheck.Over(allocBound(len(data)), func() { ps, err = Decode(data, DecodeOptions{Layout: layout}) }); over {
				t.Fatalf("allocated %d bytes for a %d-byte input (bound %d)", alloc, len(data), allocBound(len(data)))
			}
			// Decode reads location tables compact, in the model's
			// layout: through the generated structs, the same profiles,
			// or the same error.
			decodeBoth(t, "input", data, DecodeOptions{Layout: layout})
			if err != nil {
				continue
			}
			for _, p := range ps {
				if err := p.Validate(); err != nil {
					t.Fatalf("invalid profile: %v", err)
				}
			}
			var buf bytes.Buffer
			if err := Encode(&buf, ps, EncodeOptions{}); err != nil {
				t.Fatalf("re-encode of an accepted input: %v", err)
			}
			if _, err := Decode(buf.Bytes(), DecodeOptions{}); err != nil {
				t.Fatalf("re-read: %v", err)
			}
			sameStreamed(t, ps)
		}
	})
}

// sameStreamed fails t unless ps written as they are encoded, in pieces
// of one sample or entry, are the bytes of ps written whole, binary and
// JSON.
func sameStreamed(t *testing.T, ps []*model.Profile) {
	t.Helper()
	defer func(from, chunk int) { streamFrom, spillChunk = from, chunk }(streamFrom, spillChunk)
	for _, enc := range []func(io.Writer, []*model.Profile, EncodeOptions) error{Encode, EncodeJSON} {
		var whole, streamed bytes.Buffer
		streamFrom = math.MaxInt
		werr := enc(&whole, ps, EncodeOptions{})
		streamFrom, spillChunk = 0, 1
		serr := enc(&streamed, ps, EncodeOptions{})
		if (werr == nil) != (serr == nil) || !bytes.Equal(whole.Bytes(), streamed.Bytes()) {
			t.Fatalf("written whole (%v) and as encoded (%v): %d and %d bytes, not the same", werr, serr, whole.Len(), streamed.Len())
		}
	}
}

// FuzzValidate: the validator never panics and reports at least one
// MUST failure for whatever the reader refuses after parsing, and the
// reader refuses what breaks a MUST, but for the one it reads past by
// design: a function that names nothing is read as a function with empty
// names, with a warning (readerReadsPast).
func FuzzValidate(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			return
		}
		var fs []Finding
		var err error
		if alloc, over := memcheck.Over(allocBound(len(data)), func() { fs, _, err = ValidateData(data, DecodeOptions{}, 0) }); over {
			t.Fatalf("validate allocated %d bytes for a %d-byte input (bound %d)", alloc, len(data), allocBound(len(data)))
		}
		if err != nil {
			return
		}
		must := false
		for _, f := range fs {
			must = must || (f.Severity == Must && !readerReadsPast(f))
		}
		if _, err := Messages(data, DecodeOptions{}); (err != nil) != must {
			t.Fatalf("validator says must-failure %v, reader says %v", must, err)
		}
	})
}

// readerReadsPast reports whether f is a MUST failure the reader reads
// past: a function_table entry that names nothing.
func readerReadsPast(f Finding) bool {
	return strings.HasPrefix(f.Path, "dictionary.function_table[") && strings.HasPrefix(f.Msg, "names nothing:")
}
