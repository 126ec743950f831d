package otlpcommon_test

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	devpb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/codec/otlpcommon"
)

// splitDictionary returns the fields of a binary ProfilesData other than
// its dictionary (field 2), and the dictionary's fields, each its own
// piece.
func splitDictionary(t *testing.T, data []byte) (rest []byte, pieces [][]byte) {
	t.Helper()
	for off := 0; off < len(data); {
		num, typ, n := protowire.ConsumeTag(data[off:])
		m := protowire.ConsumeFieldValue(num, typ, data[off+n:])
		if n < 0 || m < 0 {
			t.Fatalf("bad encoding at byte %d", off)
		}
		if num != 2 {
			rest = append(rest, data[off:off+n+m]...)
			off += n + m
			continue
		}
		dict, _ := protowire.ConsumeBytes(data[off+n:])
		for d := 0; d < len(dict); {
			dn, dt, k := protowire.ConsumeTag(dict[d:])
			l := protowire.ConsumeFieldValue(dn, dt, dict[d+k:])
			pieces = append(pieces, dict[d:d+k+l])
			d += k + l
		}
		off += n + m
	}
	return rest, pieces
}

// The JSON of a message whose dictionary comes in pieces (one field a
// piece, or cut every few bytes) is the structs' JSON of the whole
// message.
func TestWriteJSONStreamed(t *testing.T) {
	dev, _ := encodings(t)
	md := (&devpb.ProfilesData{}).ProtoReflect().Descriptor()
	for i, data := range dev {
		want, err := reference(data, &devpb.ProfilesData{})
		if err != nil {
			t.Fatal(err)
		}
		rest, fields := splitDictionary(t, data)
		// Whole fields, one a piece; and the same bytes cut every 1
		// and every 7 bytes, across fields.
		all := bytes.Join(fields, nil)
		for _, size := range []int{0, 1, 7} {
			pieces := fields
			if size > 0 {
				pieces = nil
				for b := all; len(b) > 0; b = b[min(size, len(b)):] {
					pieces = append(pieces, b[:min(size, len(b))])
				}
			}
			var w bytes.Buffer
			err = otlpcommon.WriteJSONStreamed(&w, rest, md, "otlp json", []protowire.Number{2}, func(_ int, emit func([]byte) error) error {
				for _, p := range pieces {
					if err := emit(p); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatalf("message %d, pieces of %d: %v", i, size, err)
			}
			if !bytes.Equal(w.Bytes(), append(want, '\n')) {
				t.Fatalf("message %d, pieces of %d: the streamed JSON differs from the structs' at byte %d", i, size, firstDiff(w.Bytes(), append(want, '\n')))
			}
		}
	}
}

// Pieces out of the schema's order, of a field the message does not
// have, of a string that is not UTF-8, or ending within a field are
// refused; so is the field both in the message's bytes and in pieces.
func TestWriteJSONStreamedRefuses(t *testing.T) {
	md := (&devpb.ProfilesData{}).ProtoReflect().Descriptor()
	field := func(num protowire.Number, body []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), body)
	}
	for _, c := range []struct {
		name   string
		rest   []byte
		pieces [][]byte
		want   string
	}{
		{"string_table before location_table", nil, [][]byte{field(5, []byte("a")), field(2, nil)}, "after string_table"},
		{"an unknown field", nil, [][]byte{field(99, nil)}, "not a field of it"},
		{"a string not UTF-8", nil, [][]byte{field(5, []byte{0xff})}, "invalid UTF-8"},
		{"the dictionary also in the bytes", field(2, field(5, []byte("a"))), nil, "given in its bytes and in pieces"},
		{"a field cut off", nil, [][]byte{field(5, []byte("abc"))[:3]}, "cut off at the end of its pieces"},
		{"a bad length", nil, [][]byte{{5<<3 | 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, "byte 0 of a piece"},
	} {
		err := otlpcommon.WriteJSONStreamed(&bytes.Buffer{}, c.rest, md, "otlp json", []protowire.Number{2}, func(_ int, emit func([]byte) error) error {
			for _, p := range c.pieces {
				if err := emit(p); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
