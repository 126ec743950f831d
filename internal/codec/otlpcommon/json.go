// Package otlpcommon holds what both OTLP profile dialects share: the
// schema-agnostic OTLP JSON mapping, the location of a wire error, and the
// text of an attribute value.
package otlpcommon

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pprofx/pprofx/internal/model"
)

// OTLP JSON is protobuf's JSON mapping with OTLP's changes: keys are the
// lowerCamelCase JSON names, trace_id/span_id/profile_id are hex strings
// (not base64), enums are integers, 64-bit integers are decimal strings.
// Readers ignore unknown fields and accept the proto (snake_case) names too.
// The writer and reader below walk the generated descriptors, so they cover
// every message of the schema.

// isHexID reports whether a bytes field is one of the ids OTLP JSON writes
// in hex.
func isHexID(fd protoreflect.FieldDescriptor) bool {
	switch fd.Name() {
	case "trace_id", "span_id", "profile_id":
		return true
	}
	return false
}

// appendJSONValue appends v, a value of fd that is no message, in OTLP JSON.
func appendJSONValue(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	switch fd.Kind() {
	case protoreflect.EnumKind:
		return strconv.AppendInt(b, int64(v.Enum()), 10)
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, v.Int(), 10)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, v.Uint(), 10)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		b = append(b, '"')
		b = strconv.AppendInt(b, v.Int(), 10)
		return append(b, '"')
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		b = append(b, '"')
		b = strconv.AppendUint(b, v.Uint(), 10)
		return append(b, '"')
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return append(b, `"NaN"`...)
		case math.IsInf(f, 1):
			return append(b, `"Infinity"`...)
		case math.IsInf(f, -1):
			return append(b, `"-Infinity"`...)
		}
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	case protoreflect.StringKind:
		return appendJSONString(b, v.String())
	case protoreflect.BytesKind:
		b = append(b, '"')
		if isHexID(fd) {
			b = hex.AppendEncode(b, v.Bytes())
		} else {
			b = base64.StdEncoding.AppendEncode(b, v.Bytes())
		}
		return append(b, '"')
	}
	return append(b, "null"...)
}

func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
	}
	return append(b, '"')
}

// jpath is a field path, rendered only when an error needs it.
type jpath struct {
	parent *jpath
	name   string
	index  int // -1: not a list element
}

func (p *jpath) String() string {
	if p == nil {
		return ""
	}
	s := p.parent.String()
	if p.name != "" {
		if s != "" {
			s += "."
		}
		s += p.name
	}
	if p.index >= 0 {
		s += "[" + strconv.Itoa(p.index) + "]"
	}
	return s
}

// jsonObjectSize is what one JSON object may cost once read, counted
// before the text is: a generated struct (a binary reader's slow path
// parses into them), and its share of the model's tables. A million "{}"
// are refused before they are read.
const jsonObjectSize = 200

// jsonObjects counts the objects of a JSON text: the '{' outside strings.
func jsonObjects(data []byte) int64 {
	var n int64
	in, esc := false, false
	for _, c := range data {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && c == '{':
			n++
		}
	}
	return n
}

// jsonReader reads tokens, naming the byte of a syntax error.
type jsonReader struct {
	dec   tokenSource
	depth int // objects open
}

func (r *jsonReader) token() (json.Token, error) {
	tok, err := r.dec.Token()
	if err != nil {
		off := r.dec.InputOffset()
		var se *json.SyntaxError
		var ce *scanError
		switch {
		case errors.As(err, &ce):
			off = ce.Offset // the bad byte
		case errors.As(err, &se):
			off = se.Offset // the bad byte (Token, unlike Decode, has not counted it)
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("byte %d: %v", off, err)
	}
	return tok, nil
}

// skip reads the rest of a value that began with tok.
func (r *jsonReader) skip(tok json.Token) error {
	depth := 0
	for {
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
		var err error
		if tok, err = r.token(); err != nil {
			return err
		}
	}
}

func tokenKind(tok json.Token) string {
	switch tok {
	case json.Delim('{'):
		return "an object"
	case json.Delim('['):
		return "an array"
	}
	return jsonKind(tok)
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

func pathOrTop(p *jpath) string {
	if p == nil {
		return "top level"
	}
	return p.String()
}

// jsonNumberText returns the text of an integer given as a JSON number or a
// decimal string.
func jsonNumberText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case string:
		return x, true
	}
	return "", false
}

func jsonScalar(fd protoreflect.FieldDescriptor, v any, path *jpath) (protoreflect.Value, error) {
	bad := func(what string) (protoreflect.Value, error) {
		return protoreflect.Value{}, fmt.Errorf("%s: want %s, got %s", path, what, jsonKind(v))
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		if x, ok := v.(bool); ok {
			return protoreflect.ValueOfBool(x), nil
		}
		return bad("a boolean")
	case protoreflect.EnumKind:
		if s, ok := v.(string); ok {
			if ev := fd.Enum().Values().ByName(protoreflect.Name(s)); ev != nil {
				return protoreflect.ValueOfEnum(ev.Number()), nil
			}
		}
		t, ok := jsonNumberText(v)
		if !ok {
			return bad("an enum number")
		}
		n, err := strconv.ParseInt(t, 10, 32)
		if err != nil {
			return protoreflect.Value{}, fmt.Errorf("%s: %q is not an enum number", path, t)
		}
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		t, ok := jsonNumberText(v)
		if !ok {
			return bad("an integer")
		}
		bits := 64
		if fd.Kind() == protoreflect.Int32Kind || fd.Kind() == protoreflect.Sint32Kind || fd.Kind() == protoreflect.Sfixed32Kind {
			bits = 32
		}
		n, err := strconv.ParseInt(t, 10, bits)
		if err != nil {
			return protoreflect.Value{}, fmt.Errorf("%s: %q is not a %d-bit integer", path, t, bits)
		}
		if bits == 32 {
			return protoreflect.ValueOfInt32(int32(n)), nil
		}
		return protoreflect.ValueOfInt64(n), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		t, ok := jsonNumberText(v)
		if !ok {
			return bad("an unsigned integer")
		}
		bits := 64
		if fd.Kind() == protoreflect.Uint32Kind || fd.Kind() == protoreflect.Fixed32Kind {
			bits = 32
		}
		n, err := strconv.ParseUint(t, 10, bits)
		if err != nil {
			return protoreflect.Value{}, fmt.Errorf("%s: %q is not an unsigned %d-bit integer", path, t, bits)
		}
		if bits == 32 {
			return protoreflect.ValueOfUint32(uint32(n)), nil
		}
		return protoreflect.ValueOfUint64(n), nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		t, ok := jsonNumberText(v)
		if !ok {
			return bad("a number")
		}
		var f float64
		switch t {
		case "NaN":
			f = math.NaN()
		case "Infinity":
			f = math.Inf(1)
		case "-Infinity":
			f = math.Inf(-1)
		default:
			var err error
			if f, err = strconv.ParseFloat(t, 64); err != nil {
				return protoreflect.Value{}, fmt.Errorf("%s: %q is not a number", path, t)
			}
		}
		if fd.Kind() == protoreflect.FloatKind {
			return protoreflect.ValueOfFloat32(float32(f)), nil
		}
		return protoreflect.ValueOfFloat64(f), nil
	case protoreflect.StringKind:
		if s, ok := v.(string); ok {
			return protoreflect.ValueOfString(s), nil
		}
		return bad("a string")
	case protoreflect.BytesKind:
		s, ok := v.(string)
		if !ok {
			return bad("a string")
		}
		if isHexID(fd) {
			x, err := hex.DecodeString(s)
			if err != nil {
				// protojson writes ids in base64: take that too.
				if y, err := base64.StdEncoding.DecodeString(s); err == nil && len(s) != 2*len(y) {
					return protoreflect.ValueOfBytes(y), nil
				}
				return protoreflect.Value{}, fmt.Errorf("%s: %q is not hex", path, s)
			}
			return protoreflect.ValueOfBytes(x), nil
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			if x, err := enc.DecodeString(s); err == nil {
				return protoreflect.ValueOfBytes(x), nil
			}
		}
		return protoreflect.Value{}, fmt.Errorf("%s: %q is not base64", path, s)
	}
	return protoreflect.Value{}, fmt.Errorf("%s: unsupported field kind %v", path, fd.Kind())
}

// locateWireError finds where binary data fails to parse as message md:
// the byte offset and field path of the first bad field. It falls back to
// err when it finds nothing wrong.
func locateWireError(data []byte, md protoreflect.MessageDescriptor, err error) error {
	if e := walkWire(data, 0, md, nil, 0); e != nil {
		return e
	}
	return err
}

func walkWire(b []byte, base int, md protoreflect.MessageDescriptor, path *jpath, depth int) error {
	if depth > 100 {
		return fmt.Errorf("byte %d: %s: messages nested too deep", base, pathOrTop(path))
	}
	counts := map[protowire.Number]int{}
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return fmt.Errorf("byte %d: %s: bad field tag: %v", base+off, pathOrTop(path), protowire.ParseError(n))
		}
		fd := md.Fields().ByNumber(num)
		fp := path
		if fd != nil {
			idx := -1
			if fd.IsList() {
				idx = counts[num]
				counts[num]++
			}
			fp = &jpath{parent: path, name: string(fd.Name()), index: idx}
		} else {
			fp = &jpath{parent: path, name: fmt.Sprintf("field %d", num), index: -1}
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return fmt.Errorf("byte %d: %s: bad %s value: %v", base+off, fp, wireTypeName(typ), protowire.ParseError(m))
		}
		if fd != nil && typ == protowire.BytesType {
			body, hl := protowire.ConsumeBytes(b[off+n:])
			bodyOff := base + off + n + (hl - len(body))
			switch {
			case fd.Kind() == protoreflect.MessageKind:
				if e := walkWire(body, bodyOff, fd.Message(), fp, depth+1); e != nil {
					return e
				}
			case fd.Kind() == protoreflect.StringKind && !utf8.Valid(body):
				return fmt.Errorf("byte %d: %s: string is not valid UTF-8", bodyOff, fp)
			case fd.IsList() && fd.Kind() != protoreflect.BytesKind && fd.Kind() != protoreflect.StringKind:
				for p := 0; p < len(body); {
					k := consumePacked(fd.Kind(), body[p:])
					if k < 0 {
						return fmt.Errorf("byte %d: %s: bad packed value", bodyOff+p, fp)
					}
					p += k
				}
			}
		}
		off += n + m
	}
	return nil
}

func consumePacked(k protoreflect.Kind, b []byte) int {
	switch k {
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		_, n := protowire.ConsumeFixed32(b)
		return n
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		_, n := protowire.ConsumeFixed64(b)
		return n
	}
	_, n := protowire.ConsumeVarint(b)
	return n
}

func wireTypeName(t protowire.Type) string {
	switch t {
	case protowire.VarintType:
		return "varint"
	case protowire.Fixed32Type:
		return "fixed32"
	case protowire.Fixed64Type:
		return "fixed64"
	case protowire.BytesType:
		return "length-delimited"
	case protowire.StartGroupType:
		return "group"
	}
	return fmt.Sprintf("wire type %d", t)
}

// jsonTextPerByte is the room BinaryToJSON gives the text per byte of
// the binary encoding: the Go runtime's profiles take 3.3 to 4 times their
// bytes as OTLP JSON, a field whose name is long and value small more.
const jsonTextPerByte = 6

// BinaryToJSON appends to b the OTLP JSON of data, the binary encoding of
// a message md describes. What the text takes is
// checked first against what the memory limit leaves (a refusal names
// format), and the text is given its room once rather than grown by
// doubling.
func BinaryToJSON(b, data []byte, md protoreflect.MessageDescriptor, format string) ([]byte, error) {
	if err := model.CheckAvailableNow(format, jsonTextPerByte*int64(len(data)), fmt.Sprintf("writing %d bytes of binary encoding as JSON", len(data))); err != nil {
		return b, err
	}
	j := wireJSON{b: slices.Grow(b, 4*len(data)+64)}
	if err := j.message(data, md, 0); err != nil {
		return b, fmt.Errorf("%s: %v", format, err)
	}
	return j.b, nil
}

// WriteJSON writes to w the OTLP JSON of data, the binary encoding of a
// message md describes, then a newline. It holds a megabyte of the text
// at most.
func WriteJSON(w io.Writer, data []byte, md protoreflect.MessageDescriptor, format string) error {
	// The text is about 4 times the binary: a small one is written at
	// once, a large one a megabyte at a time.
	return writeJSON(&wireJSON{b: make([]byte, 0, min(4*len(data)+64, flushAt+64<<10)), w: w}, data, md, format)
}

// writeJSON writes the JSON of data with j, then a newline.
func writeJSON(j *wireJSON, data []byte, md protoreflect.MessageDescriptor, format string) error {
	if err := j.message(data, md, 0); err != nil {
		if j.err != nil {
			return j.err
		}
		return fmt.Errorf("%s: %v", format, err)
	}
	_, err := j.w.Write(append(j.b, '\n'))
	return err
}

// WriteJSONStreamed writes to w, as WriteJSON does, the JSON of a message
// md describes, data, whose messages of the field at path (the top
// message's field path[0], in it path[1], and so on) are given apart:
// absent from data, or empty there, the k-th of them is written from the
// bytes fill(k, emit) gives, in pieces of any size, its fields in the
// order the schema declares them (not their numbers'), each repeated
// field's values in one run, a singular field once. The text is the one
// WriteJSON writes for data with those messages in it; a field of theirs
// is held until it is whole, no piece once it is written.
func WriteJSONStreamed(w io.Writer, data []byte, md protoreflect.MessageDescriptor, format string, path []protowire.Number, fill func(k int, emit func(piece []byte) error) error) error {
	return WriteJSONStreamedAt(w, data, md, format, StreamedField{Path: path, Fill: fill})
}

// StreamedField is a field whose messages WriteJSONStreamedAt is given in
// pieces: the message's field Path[0], in it Path[1], and so on; the k-th
// of them is written from the bytes Fill(k, emit) gives.
type StreamedField struct {
	Path []protowire.Number
	Fill func(k int, emit func(piece []byte) error) error
}

// WriteJSONStreamedAt is WriteJSONStreamed with messages of several
// fields given in pieces. A repeated field's are each an empty message in
// data, in its place, written from its pieces.
func WriteJSONStreamedAt(w io.Writer, data []byte, md protoreflect.MessageDescriptor, format string, fields ...StreamedField) error {
	j := &wireJSON{b: make([]byte, 0, flushAt+64<<10), w: w}
	for _, f := range fields {
		j.streamed = append(j.streamed, &streamedField{path: f.Path, fill: f.Fill})
	}
	return writeJSON(j, data, md, format)
}

// LocateWireError finds where binary data fails to parse as md: the byte
// offset and field path of the first bad field; err when it finds none.
func LocateWireError(data []byte, md protoreflect.MessageDescriptor, err error) error {
	return locateWireError(data, md, err)
}
