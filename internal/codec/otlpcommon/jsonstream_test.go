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

// emptyProfiles returns a binary ProfilesData with each Profile
// (resource_profiles.scope_profiles.profiles) empty, and their bytes.
func emptyProfiles(t *testing.T, data []byte, depth int, out *[][]byte) []byte {
	t.Helper()
	var b []byte
	for off := 0; off < len(data); {
		num, typ, n := protowire.ConsumeTag(data[off:])
		m := protowire.ConsumeFieldValue(num, typ, data[off+n:])
		if n < 0 || m < 0 {
			t.Fatalf("bad encoding at byte %d", off)
		}
		field := data[off : off+n+m]
		off += n + m
		// ProfilesData.resource_profiles (1), ResourceProfiles.scope_profiles (2),
		// ScopeProfiles.profiles (2).
		if typ != protowire.BytesType || num != [3]protowire.Number{1, 2, 2}[depth] {
			b = append(b, field...)
			continue
		}
		body, _ := protowire.ConsumeBytes(field[n:])
		if depth == 2 {
			*out = append(*out, body)
			b = protowire.AppendBytes(protowire.AppendTag(b, num, typ), nil)
			continue
		}
		b = protowire.AppendBytes(protowire.AppendTag(b, num, typ), emptyProfiles(t, body, depth+1, out))
	}
	return b
}

// The JSON of a message whose dictionary and Profiles come in pieces
// (each Profile empty in the message, in its place) is the structs' JSON
// of the whole message, pieces cut anywhere.
func TestWriteJSONStreamedProfiles(t *testing.T) {
	dev, _ := encodings(t)
	md := (&devpb.ProfilesData{}).ProtoReflect().Descriptor()
	cut := func(b []byte, size int) [][]byte {
		var pieces [][]byte
		for ; len(b) > 0; b = b[min(size, len(b)):] {
			pieces = append(pieces, b[:min(size, len(b))])
		}
		return pieces
	}
	give := func(pieces [][]byte, emit func([]byte) error) error {
		for _, p := range pieces {
			if err := emit(p); err != nil {
				return err
			}
		}
		return nil
	}
	profiles := 0
	for i, data := range dev {
		want, err := reference(data, &devpb.ProfilesData{})
		if err != nil {
			t.Fatal(err)
		}
		rest, fields := splitDictionary(t, data)
		var bodies [][]byte
		rest = emptyProfiles(t, rest, 0, &bodies)
		profiles += len(bodies)
		dict := bytes.Join(fields, nil)
		for _, size := range []int{1, 7, 1 << 20} {
			var w bytes.Buffer
			err = otlpcommon.WriteJSONStreamedAt(&w, rest, md, "otlp json",
				otlpcommon.StreamedField{Path: []protowire.Number{2}, Fill: func(_ int, emit func([]byte) error) error {
					return give(cut(dict, size), emit)
				}},
				otlpcommon.StreamedField{Path: []protowire.Number{1, 2, 2}, Fill: func(k int, emit func([]byte) error) error {
					return give(cut(bodies[k], size), emit)
				}})
			if err != nil {
				t.Fatalf("message %d, pieces of %d: %v", i, size, err)
			}
			if !bytes.Equal(w.Bytes(), append(want, '\n')) {
				t.Fatalf("message %d, pieces of %d: the streamed JSON differs from the structs' at byte %d", i, size, firstDiff(w.Bytes(), append(want, '\n')))
			}
		}
	}
	if profiles < len(dev) {
		t.Fatalf("%d Profiles in %d messages", profiles, len(dev))
	}
	// A Profile also in the message's bytes is refused.
	data := dev[0]
	err := otlpcommon.WriteJSONStreamedAt(&bytes.Buffer{}, data, md, "otlp json",
		otlpcommon.StreamedField{Path: []protowire.Number{1, 2, 2}, Fill: func(int, func([]byte) error) error { return nil }})
	if err == nil || !strings.Contains(err.Error(), "given in its bytes and in pieces") {
		t.Errorf("a Profile in the bytes and in pieces: %v", err)
	}
}
