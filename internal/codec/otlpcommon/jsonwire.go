package otlpcommon

import (
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The JSON of a binary encoding is written straight from its bytes, walking
// md's descriptors, rather than from the generated structs the bytes would
// be read into: those take 4 to 9 times the bytes (a location index is 4
// bytes there, 1 on the wire). The text is the one the structs would give
// (the tests' AppendJSON writes it from them): fields in the order the schema declares them, a
// field without presence only when it is not zero, the last value of a
// singular field, unknown fields left out.
//
// It takes what pprofx's encoders write. It refuses what it would have to
// merge or choose from to read as protobuf does (a singular message field
// given twice, two fields of one oneof), a known field of another wire
// type, and what protobuf refuses (a string that is not UTF-8, a bad
// length).

// wireJSON writes JSON text to b, and hands b to w (when w is set) each
// time it holds flushAt bytes.
type wireJSON struct {
	b   []byte
	w   io.Writer
	err error
	// streamed, when set, gives the top message's field of its number
	// (not in its bytes) in pieces (WriteJSONStreamed).
	streamed *streamedField
}

// streamedField is a field of the top message whose value, a message of
// repeated fields only, is given in pieces of whole fields.
type streamedField struct {
	num  protowire.Number
	fill func(emit func(piece []byte) error) error
}

const flushAt = 1 << 20

// errWire is a binary encoding the writer does not take.
var errWire = errors.New("unexpected encoding")

func (j *wireJSON) flush() {
	if j.w == nil || j.err != nil || len(j.b) < flushAt {
		return
	}
	_, j.err = j.w.Write(j.b)
	j.b = j.b[:0]
}

// fieldSpan is where a field of a message is found: the first and the last
// of its tags (offsets in the message's bytes), so that a repeated field,
// written in one run as encoders do, is read again over its own bytes only.
type fieldSpan struct {
	first, last, end int
	seen             bool
}

// message writes the message md encoded in data.
func (j *wireJSON) message(data []byte, md protoreflect.MessageDescriptor, depth int) error {
	if depth > maxWireDepth {
		return fmt.Errorf("%s: nested more than %d deep", md.FullName(), maxWireDepth)
	}
	fds := md.Fields()
	var small [24]fieldSpan
	spans := small[:0]
	if fds.Len() <= len(small) {
		spans = small[:fds.Len()]
	} else {
		spans = make([]fieldSpan, fds.Len())
	}
	var oneofs map[int]int // oneof index -> the field of it given
	for off := 0; off < len(data); {
		num, typ, n := protowire.ConsumeTag(data[off:])
		if n < 0 {
			return fmt.Errorf("%s: byte %d: %v", md.FullName(), off, protowire.ParseError(n))
		}
		if num > protowire.MaxValidNumber {
			return fmt.Errorf("%s: byte %d: field number %d out of range", md.FullName(), off, num)
		}
		m := protowire.ConsumeFieldValue(num, typ, data[off+n:])
		if m < 0 {
			return fmt.Errorf("%s: byte %d: %v", md.FullName(), off, protowire.ParseError(m))
		}
		if fd := fds.ByNumber(num); fd != nil {
			if !wireTypeFits(fd, typ) {
				return fmt.Errorf("%s.%s: %w: wire type %d", md.FullName(), fd.Name(), errWire, typ)
			}
			// Every value of a string field is UTF-8, the ones a later
			// value overrides too.
			if fd.Kind() == protoreflect.StringKind && typ == protowire.BytesType {
				if v, _ := protowire.ConsumeBytes(data[off+n:]); !utf8.Valid(v) {
					return fmt.Errorf("%s: string field contains invalid UTF-8", fd.FullName())
				}
			}
			s := &spans[fd.Index()]
			if s.seen && !fd.IsList() && fd.Kind() == protoreflect.MessageKind {
				return fmt.Errorf("%s.%s: %w: a singular message given twice", md.FullName(), fd.Name(), errWire)
			}
			if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
				if prev, ok := oneofs[od.Index()]; ok && prev != fd.Index() {
					return fmt.Errorf("%s.%s: %w: two fields of one oneof", md.FullName(), od.Name(), errWire)
				}
				if oneofs == nil {
					oneofs = map[int]int{}
				}
				oneofs[od.Index()] = fd.Index()
			}
			if !s.seen {
				s.first = off
			}
			s.seen, s.last, s.end = true, off, off+n+m
		}
		off += n + m
	}
	j.b = append(j.b, '{')
	first := true
	for i := range spans {
		s := spans[i]
		fd := fds.Get(i)
		if depth == 0 && j.streamed != nil && fd.Number() == j.streamed.num {
			if s.seen {
				return fmt.Errorf("%s.%s: %w: given in its bytes and in pieces", md.FullName(), fd.Name(), errWire)
			}
			j.key(fd, first)
			first = false
			if err := j.pieces(fd.Message(), j.streamed.fill, depth+1); err != nil {
				return err
			}
			continue
		}
		if !s.seen {
			continue
		}
		var err error
		if fd.IsList() {
			first, err = j.list(data[s.first:s.end], fd, first, depth)
		} else {
			first, err = j.single(data[s.last:s.end], fd, first, depth)
		}
		if err != nil {
			return err
		}
	}
	j.b = append(j.b, '}')
	j.flush()
	return j.err
}

// maxWireDepth is how deeply messages may nest, as protobuf's own reader
// allows.
const maxWireDepth = 10000

func wireTypeFits(fd protoreflect.FieldDescriptor, typ protowire.Type) bool {
	want := wireType(fd.Kind())
	if typ == want {
		return true
	}
	// A repeated scalar may be packed.
	return fd.IsList() && typ == protowire.BytesType && want != protowire.BytesType
}

func wireType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	case protoreflect.GroupKind:
		return protowire.StartGroupType
	}
	return protowire.VarintType
}

func (j *wireJSON) key(fd protoreflect.FieldDescriptor, first bool) {
	if !first {
		j.b = append(j.b, ',')
	}
	j.b = appendJSONString(j.b, fd.JSONName())
	j.b = append(j.b, ':')
}

// single writes a singular field from its last occurrence, b (tag first).
func (j *wireJSON) single(b []byte, fd protoreflect.FieldDescriptor, first bool, depth int) (bool, error) {
	_, typ, n := protowire.ConsumeTag(b)
	b = b[n:]
	if fd.Kind() == protoreflect.MessageKind {
		v, _ := protowire.ConsumeBytes(b)
		j.key(fd, first)
		return false, j.message(v, fd.Message(), depth+1)
	}
	v, err := scalar(b, typ, fd)
	if err != nil {
		return first, err
	}
	if !fd.HasPresence() && isZero(v, fd.Kind()) {
		return first, nil
	}
	j.key(fd, first)
	j.b = appendJSONValue(j.b, fd, v)
	return false, nil
}

// list writes a repeated field from b, which runs from its first tag to
// the end of its last value and may hold other fields between.
func (j *wireJSON) list(b []byte, fd protoreflect.FieldDescriptor, first bool, depth int) (bool, error) {
	open := false
	if err := j.listOf(b, fd, &first, &open, depth); err != nil {
		return first, err
	}
	if open {
		j.b = append(j.b, ']')
	}
	return first, j.err
}

// listOf writes the values of fd in b, the key and "[" before the first
// unless open; the caller closes the list.
func (j *wireJSON) listOf(b []byte, fd protoreflect.FieldDescriptor, first, open *bool, depth int) error {
	num := fd.Number()
	for off := 0; off < len(b); {
		n, typ, k := protowire.ConsumeTag(b[off:])
		m := protowire.ConsumeFieldValue(n, typ, b[off+k:])
		v := b[off+k : off+k+m]
		off += k + m
		if n != num {
			continue
		}
		if fd.Kind() == protoreflect.MessageKind {
			msg, _ := protowire.ConsumeBytes(v)
			j.elem(fd, first, open)
			if err := j.message(msg, fd.Message(), depth+1); err != nil {
				return err
			}
			continue
		}
		if typ == protowire.BytesType && wireType(fd.Kind()) != protowire.BytesType {
			packed, _ := protowire.ConsumeBytes(v)
			want := wireType(fd.Kind())
			for len(packed) > 0 {
				k, err := scalarLen(packed, want)
				if err != nil {
					return fmt.Errorf("%s: %v", fd.FullName(), err)
				}
				x, err := scalar(packed[:k], want, fd)
				if err != nil {
					return err
				}
				packed = packed[k:]
				j.elem(fd, first, open)
				j.b = appendJSONValue(j.b, fd, x)
				j.flush()
			}
			continue
		}
		x, err := scalar(v, typ, fd)
		if err != nil {
			return err
		}
		j.elem(fd, first, open)
		j.b = appendJSONValue(j.b, fd, x)
		j.flush()
	}
	return nil
}

// pieces writes message md, all of whose fields are repeated, from the
// pieces fill gives: each whole fields, a field's values in one run, the
// fields in the order md declares them (as the writers give them).
func (j *wireJSON) pieces(md protoreflect.MessageDescriptor, fill func(emit func(piece []byte) error) error, depth int) error {
	j.b = append(j.b, '{')
	first, open := true, false
	var cur protoreflect.FieldDescriptor
	err := fill(func(piece []byte) error {
		for off := 0; off < len(piece); {
			num, typ, n := protowire.ConsumeTag(piece[off:])
			if n < 0 {
				return fmt.Errorf("%s: byte %d of a piece: %v", md.FullName(), off, protowire.ParseError(n))
			}
			m := protowire.ConsumeFieldValue(num, typ, piece[off+n:])
			if m < 0 {
				return fmt.Errorf("%s: byte %d of a piece: %v", md.FullName(), off, protowire.ParseError(m))
			}
			fd := md.Fields().ByNumber(num)
			switch {
			case fd == nil || !fd.IsList():
				return fmt.Errorf("%s: %w: field %d in a piece, not a repeated field", md.FullName(), errWire, num)
			case !wireTypeFits(fd, typ):
				return fmt.Errorf("%s.%s: %w: wire type %d", md.FullName(), fd.Name(), errWire, typ)
			case cur != nil && fd.Index() < cur.Index():
				return fmt.Errorf("%s.%s: %w: after %s", md.FullName(), fd.Name(), errWire, cur.Name())
			}
			if fd.Kind() == protoreflect.StringKind && typ == protowire.BytesType {
				if v, _ := protowire.ConsumeBytes(piece[off+n:]); !utf8.Valid(v) {
					return fmt.Errorf("%s: string field contains invalid UTF-8", fd.FullName())
				}
			}
			if fd != cur {
				if open {
					j.b = append(j.b, ']')
				}
				cur, open = fd, false
			}
			if err := j.listOf(piece[off:off+n+m], fd, &first, &open, depth); err != nil {
				return err
			}
			off += n + m
		}
		return j.err
	})
	if err != nil {
		return err
	}
	if open {
		j.b = append(j.b, ']')
	}
	j.b = append(j.b, '}')
	j.flush()
	return j.err
}

// elem starts a list's element: its key and "[" before the first.
func (j *wireJSON) elem(fd protoreflect.FieldDescriptor, first, open *bool) {
	if !*open {
		j.key(fd, *first)
		j.b = append(j.b, '[')
		*first, *open = false, true
		return
	}
	j.b = append(j.b, ',')
}

func scalarLen(b []byte, typ protowire.Type) (int, error) {
	var n int
	switch typ {
	case protowire.VarintType:
		_, n = protowire.ConsumeVarint(b)
	case protowire.Fixed32Type:
		_, n = protowire.ConsumeFixed32(b)
	case protowire.Fixed64Type:
		_, n = protowire.ConsumeFixed64(b)
	default:
		return 0, errWire
	}
	if n < 0 {
		return 0, protowire.ParseError(n)
	}
	return n, nil
}

// scalar decodes the value b of wire type typ as fd's kind.
func scalar(b []byte, typ protowire.Type, fd protoreflect.FieldDescriptor) (protoreflect.Value, error) {
	switch typ {
	case protowire.VarintType:
		v, _ := protowire.ConsumeVarint(b)
		switch fd.Kind() {
		case protoreflect.BoolKind:
			return protoreflect.ValueOfBool(v != 0), nil
		case protoreflect.EnumKind:
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(int32(v))), nil
		case protoreflect.Int32Kind:
			return protoreflect.ValueOfInt32(int32(v)), nil
		case protoreflect.Sint32Kind:
			return protoreflect.ValueOfInt32(int32(protowire.DecodeZigZag(v & math.MaxUint32))), nil
		case protoreflect.Uint32Kind:
			return protoreflect.ValueOfUint32(uint32(v)), nil
		case protoreflect.Int64Kind:
			return protoreflect.ValueOfInt64(int64(v)), nil
		case protoreflect.Sint64Kind:
			return protoreflect.ValueOfInt64(protowire.DecodeZigZag(v)), nil
		case protoreflect.Uint64Kind:
			return protoreflect.ValueOfUint64(v), nil
		}
	case protowire.Fixed32Type:
		v, _ := protowire.ConsumeFixed32(b)
		switch fd.Kind() {
		case protoreflect.Fixed32Kind:
			return protoreflect.ValueOfUint32(v), nil
		case protoreflect.Sfixed32Kind:
			return protoreflect.ValueOfInt32(int32(v)), nil
		case protoreflect.FloatKind:
			return protoreflect.ValueOfFloat32(math.Float32frombits(v)), nil
		}
	case protowire.Fixed64Type:
		v, _ := protowire.ConsumeFixed64(b)
		switch fd.Kind() {
		case protoreflect.Fixed64Kind:
			return protoreflect.ValueOfUint64(v), nil
		case protoreflect.Sfixed64Kind:
			return protoreflect.ValueOfInt64(int64(v)), nil
		case protoreflect.DoubleKind:
			return protoreflect.ValueOfFloat64(math.Float64frombits(v)), nil
		}
	case protowire.BytesType:
		v, _ := protowire.ConsumeBytes(b)
		switch fd.Kind() {
		case protoreflect.StringKind: // UTF-8: message checked it
			return protoreflect.ValueOfString(string(v)), nil
		case protoreflect.BytesKind:
			return protoreflect.ValueOfBytes(v), nil
		}
	}
	return protoreflect.Value{}, fmt.Errorf("%s: %w: wire type %d", fd.FullName(), errWire, typ)
}

// isZero reports whether v is the zero value a field without presence
// leaves out (a float's negative zero is not).
func isZero(v protoreflect.Value, k protoreflect.Kind) bool {
	switch k {
	case protoreflect.BoolKind:
		return !v.Bool()
	case protoreflect.EnumKind:
		return v.Enum() == 0
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int() == 0
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return v.Uint() == 0
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return math.Float64bits(v.Float()) == 0
	case protoreflect.StringKind:
		return v.String() == ""
	case protoreflect.BytesKind:
		return len(v.Bytes()) == 0
	}
	return false
}
