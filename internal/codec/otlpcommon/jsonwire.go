package otlpcommon

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
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
	// streamed, when set, give the messages at their paths (not in their
	// bytes) in pieces (WriteJSONStreamed); at is the path of fields to
	// the message being written.
	streamed []*streamedField
	at       []protowire.Number
}

// streamedField gives the messages of the field at path, each in
// pieces of its bytes.
type streamedField struct {
	path []protowire.Number
	fill func(k int, emit func(piece []byte) error) error
	k    int // how many were given
}

// streamedAt returns the streamed field fd is, a field of the message
// being written, or nil.
func (j *wireJSON) streamedAt(fd protoreflect.FieldDescriptor) *streamedField {
	n := len(j.at)
	for _, s := range j.streamed {
		if n == len(s.path)-1 && fd.Number() == s.path[n] && slices.Equal(j.at, s.path[:n]) {
			return s
		}
	}
	return nil
}

// given writes the next message of s, a field fd, from its pieces.
func (j *wireJSON) given(s *streamedField, fd protoreflect.FieldDescriptor, depth int) error {
	k := s.k
	s.k++
	j.at = append(j.at, fd.Number())
	err := j.pieces(fd.Message(), func(emit func([]byte) error) error { return s.fill(k, emit) }, depth+1)
	j.at = j.at[:len(j.at)-1]
	return err
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
		if st := j.streamedAt(fd); st != nil && !fd.IsList() {
			if fd.Kind() != protoreflect.MessageKind {
				return fmt.Errorf("%s.%s: %w: a field given in pieces is a message", md.FullName(), fd.Name(), errWire)
			}
			if s.seen {
				_, _, n := protowire.ConsumeTag(data[s.last:])
				if v, _ := protowire.ConsumeBytes(data[s.last+n:]); len(v) > 0 {
					return fmt.Errorf("%s.%s: %w: given in its bytes and in pieces", md.FullName(), fd.Name(), errWire)
				}
			}
			j.key(fd, first)
			first = false
			if err := j.given(st, fd, depth); err != nil {
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
		return false, j.within(fd, v, depth)
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
			if st := j.streamedAt(fd); st != nil {
				if len(msg) > 0 {
					return fmt.Errorf("%s: %w: given in its bytes and in pieces", fd.FullName(), errWire)
				}
				j.elem(fd, first, open)
				if err := j.given(st, fd, depth); err != nil {
					return err
				}
				continue
			}
			j.elem(fd, first, open)
			if err := j.within(fd, msg, depth); err != nil {
				return err
			}
			continue
		}
		if typ == protowire.BytesType && wireType(fd.Kind()) != protowire.BytesType {
			packed, _ := protowire.ConsumeBytes(v)
			if _, err := j.packedValues(packed, fd, first, open, false); err != nil {
				return err
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

// packedValues writes the packed values of fd in b and returns the bytes
// they took: all of b, or with cut, up to a value b ends within.
func (j *wireJSON) packedValues(b []byte, fd protoreflect.FieldDescriptor, first, open *bool, cut bool) (int, error) {
	want := wireType(fd.Kind())
	off := 0
	for off < len(b) {
		k, err := scalarLen(b[off:], want)
		if err != nil {
			if cut && errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			return off, fmt.Errorf("%s: %v", fd.FullName(), err)
		}
		x, err := scalar(b[off:off+k], want, fd)
		if err != nil {
			return off, err
		}
		off += k
		j.elem(fd, first, open)
		j.b = appendJSONValue(j.b, fd, x)
		j.flush()
	}
	return off, nil
}

// within writes msg, a value of fd, a field of a message at depth.
func (j *wireJSON) within(fd protoreflect.FieldDescriptor, msg []byte, depth int) error {
	if len(j.streamed) == 0 {
		return j.message(msg, fd.Message(), depth+1)
	}
	j.at = append(j.at, fd.Number())
	err := j.message(msg, fd.Message(), depth+1)
	j.at = j.at[:len(j.at)-1]
	return err
}

// pieces writes message md from the pieces of its bytes fill gives, of
// any size: its fields in the order md declares them (as the writers give
// them), each repeated field's values in one run, a singular field once.
// A field is held until it is whole, but for packed values, written as
// they come.
func (j *wireJSON) pieces(md protoreflect.MessageDescriptor, fill func(emit func(piece []byte) error) error, depth int) error {
	j.b = append(j.b, '{')
	first, open := true, false
	var cur protoreflect.FieldDescriptor
	var carry []byte // the start of a field (or packed value) the next piece ends
	packed := 0      // bytes of cur's packed values still to come
	err := fill(func(piece []byte) error {
		data := piece
		if len(carry) > 0 {
			carry = append(carry, piece...)
			data = carry
		}
		off := 0
		for off < len(data) {
			if packed > 0 {
				end := off + min(packed, len(data)-off)
				k, err := j.packedValues(data[off:end], cur, &first, &open, end-off < packed)
				if err != nil {
					return err
				}
				off, packed = off+k, packed-k
				if packed > 0 && off < end {
					break // a value goes on in the next piece
				}
				continue
			}
			num, typ, n := protowire.ConsumeTag(data[off:])
			if n < 0 {
				if incomplete(data[off:]) {
					break
				}
				return fmt.Errorf("%s: byte %d of a piece: %v", md.FullName(), off, protowire.ParseError(n))
			}
			fd := md.Fields().ByNumber(num)
			switch {
			case fd == nil:
				return fmt.Errorf("%s: %w: field %d in a piece, not a field of it", md.FullName(), errWire, num)
			case !wireTypeFits(fd, typ):
				return fmt.Errorf("%s.%s: %w: wire type %d", md.FullName(), fd.Name(), errWire, typ)
			case cur != nil && (fd.Index() < cur.Index() || fd == cur && !fd.IsList()):
				return fmt.Errorf("%s.%s: %w: after %s", md.FullName(), fd.Name(), errWire, cur.Name())
			}
			isPacked := typ == protowire.BytesType && wireType(fd.Kind()) != protowire.BytesType
			m := 0
			if isPacked {
				// Only the length: the values follow as they come.
				var length uint64
				length, m = protowire.ConsumeVarint(data[off+n:])
				if m >= 0 && length > math.MaxInt32 {
					return fmt.Errorf("%s.%s: byte %d of a piece: %d bytes of packed values", md.FullName(), fd.Name(), off, length)
				}
				if m >= 0 {
					packed = int(length)
				}
			} else {
				m = protowire.ConsumeFieldValue(num, typ, data[off+n:])
			}
			if m < 0 {
				if errors.Is(protowire.ParseError(m), io.ErrUnexpectedEOF) {
					break
				}
				return fmt.Errorf("%s: byte %d of a piece: %v", md.FullName(), off, protowire.ParseError(m))
			}
			if fd.Kind() == protoreflect.StringKind && typ == protowire.BytesType {
				if v, _ := protowire.ConsumeBytes(data[off+n:]); !utf8.Valid(v) {
					return fmt.Errorf("%s: string field contains invalid UTF-8", fd.FullName())
				}
			}
			if fd != cur {
				if open {
					j.b = append(j.b, ']')
				}
				cur, open = fd, false
			}
			var err error
			switch {
			case isPacked:
			case fd.IsList():
				err = j.listOf(data[off:off+n+m], fd, &first, &open, depth)
			default:
				first, err = j.single(data[off:off+n+m], fd, first, depth)
			}
			if err != nil {
				return err
			}
			off += n + m
		}
		carry = append(carry[:0], data[off:]...)
		return j.err
	})
	if err != nil {
		return err
	}
	if len(carry) > 0 || packed > 0 {
		return fmt.Errorf("%s: %d bytes of a field cut off at the end of its pieces", md.FullName(), len(carry)+packed)
	}
	if open {
		j.b = append(j.b, ']')
	}
	j.b = append(j.b, '}')
	j.flush()
	return j.err
}

// incomplete reports whether b is the start of a field whose tag, length
// or value goes on past b's end (rather than one that is bad).
func incomplete(b []byte) bool {
	truncated := func(n int) bool { return n < 0 && errors.Is(protowire.ParseError(n), io.ErrUnexpectedEOF) }
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return truncated(n)
	}
	return truncated(protowire.ConsumeFieldValue(num, typ, b[n:]))
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
