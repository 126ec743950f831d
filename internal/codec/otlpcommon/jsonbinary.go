package otlpcommon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pprofx/pprofx/internal/model"
)

// JSONToBinary reads one OTLP JSON object of message md and returns its
// binary encoding. It takes snake_case keys too, ignores unknown ones, and
// names a bad value by its field path. A binary reader then reads JSON as
// it reads its own encoding, without the generated structs of the whole
// text: the binary is about a third of the text.
//
// Every field the text sets is written, zero values too, in the text's
// order (a key given twice is written twice: the last scalar wins, and
// messages merge, as they do in the text); lists of numbers are packed.
func JSONToBinary(data []byte, md protoreflect.MessageDescriptor) ([]byte, error) {
	return jsonToBinary(data, md, false)
}

// jsonTokens returns a reader of the tokens of data: a jsonScanner, or,
// with library, encoding/json's Decoder, which it reads as
// (FuzzJSONScanner) in a third to a quarter of the time
// (BenchmarkJSONToBinary).
func jsonTokens(data []byte, library bool) tokenSource {
	if library {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		return dec
	}
	return newJSONScanner(data)
}

func jsonToBinary(data []byte, md protoreflect.MessageDescriptor, library bool) ([]byte, error) {
	objects := jsonObjects(data)
	if err := model.CheckMemory("otlp json", objects*jsonObjectSize, int64(len(data)),
		fmt.Sprintf("%d objects", objects)); err != nil {
		return nil, err
	}
	dec := jsonTokens(data, library)
	w := &jsonWire{r: jsonReader{dec: dec}, in: int64(len(data)), checked: int64(len(data))}
	w.b = make([]byte, 0, len(data)/3+64)
	tok, err := w.r.token()
	if err == nil {
		err = w.message(md, tok, nil)
	}
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = fmt.Errorf("byte %d: data after the top-level object", dec.InputOffset())
		}
	}
	if err != nil {
		return nil, err
	}
	return w.b, nil
}

// jsonWire writes the binary encoding of the JSON its reader reads.
type jsonWire struct {
	r jsonReader
	b []byte
	// in is the text's size; checked, the size of b past which its
	// growth is held to the memory limit again (a list of small negative
	// numbers takes three times its text).
	in, checked int64
}

// grown holds b, once it grew past what was checked, to what the memory
// limit leaves.
func (w *jsonWire) grown() error {
	if int64(len(w.b)) <= w.checked {
		return nil
	}
	w.checked = 2 * int64(len(w.b))
	return model.CheckMemory("otlp json", w.checked, w.in, "its binary encoding")
}

// open starts a length-delimited field: its tag, and a byte for its
// length, which close writes.
func (w *jsonWire) open(num protowire.Number) int {
	w.b = protowire.AppendTag(w.b, num, protowire.BytesType)
	w.b = append(w.b, 0)
	return len(w.b)
}

// close writes the length of the field open began at start, moving its
// contents when the length takes more than one byte.
func (w *jsonWire) close(start int) {
	n := len(w.b) - start
	k := protowire.SizeVarint(uint64(n))
	if k > 1 {
		w.b = append(w.b, make([]byte, k-1)...)
		copy(w.b[start+k-1:], w.b[start:start+n])
	}
	protowire.AppendVarint(w.b[:start-1], uint64(n))
}

// message writes the fields of the object that begins with tok, a message
// md, as jsonReader.message reads them into a message.
func (w *jsonWire) message(md protoreflect.MessageDescriptor, tok json.Token, path *jpath) error {
	r := &w.r
	if tok != json.Delim('{') {
		return fmt.Errorf("%s: want an object, got %s", pathOrTop(path), tokenKind(tok))
	}
	if r.depth++; r.depth > 100 {
		return fmt.Errorf("byte %d: %s: objects nested deeper than 100", r.dec.InputOffset(), pathOrTop(path))
	}
	defer func() { r.depth-- }()
	for r.dec.More() {
		kt, err := r.token()
		if err != nil {
			return err
		}
		k, _ := kt.(string)
		val, err := r.token()
		if err != nil {
			return err
		}
		fd := jsonField(md.Fields(), k)
		if fd == nil || val == nil {
			// unknown fields are ignored; null is unset
			if err := r.skip(val); err != nil {
				return err
			}
			continue
		}
		fp := &jpath{parent: path, name: string(fd.Name()), index: -1}
		switch {
		case fd.IsList():
			err = w.list(fd, val, path, fp)
		case fd.Kind() == protoreflect.MessageKind:
			start := w.open(fd.Number())
			err = w.message(fd.Message(), val, fp)
			w.close(start)
		default:
			err = w.single(fd, val, fp)
		}
		if err == nil {
			err = w.grown()
		}
		if err != nil {
			return err
		}
	}
	_, err := r.token() // '}'
	return err
}

// jsonField finds the field a key names: its JSON name, its proto name, or
// the OTEP's name for Sample.timestamps_unix_nano (the same field 13).
func jsonField(fds protoreflect.FieldDescriptors, k string) protoreflect.FieldDescriptor {
	fd := fds.ByJSONName(k)
	if fd == nil {
		fd = fds.ByName(protoreflect.Name(k))
	}
	if fd == nil && k == "timestamps" {
		fd = fds.ByName("timestamps_unix_nano")
	}
	return fd
}

// list writes the array that begins with val, of list field fd: a
// message or a string a field each, numbers packed in one field.
func (w *jsonWire) list(fd protoreflect.FieldDescriptor, val json.Token, path, fp *jpath) error {
	r := &w.r
	if val != json.Delim('[') {
		return fmt.Errorf("%s: want an array, got %s", fp, tokenKind(val))
	}
	packed := wireType(fd.Kind()) != protowire.BytesType
	tag, start := len(w.b), 0
	if packed {
		start = w.open(fd.Number())
	}
	for j := 0; r.dec.More(); j++ {
		e, err := r.token()
		if err != nil {
			return err
		}
		ep := &jpath{parent: path, name: string(fd.Name()), index: j}
		if fd.Kind() == protoreflect.MessageKind {
			s := w.open(fd.Number())
			err := w.message(fd.Message(), e, ep)
			w.close(s)
			if err != nil {
				return err
			}
			continue
		}
		if _, ok := e.(json.Delim); ok {
			return fmt.Errorf("%s: want a scalar, got %s", ep, tokenKind(e))
		}
		x, err := jsonScalar(fd, e, ep)
		if err != nil {
			return err
		}
		if !packed {
			w.b = protowire.AppendTag(w.b, fd.Number(), protowire.BytesType)
		}
		w.b = appendScalar(w.b, fd.Kind(), x)
	}
	if packed {
		if len(w.b) == start {
			w.b = w.b[:tag] // no numbers: no field
		} else {
			w.close(start)
		}
	}
	_, err := r.token() // ']'
	return err
}

// single writes the scalar val of field fd.
func (w *jsonWire) single(fd protoreflect.FieldDescriptor, val json.Token, fp *jpath) error {
	if _, ok := val.(json.Delim); ok {
		return fmt.Errorf("%s: want a scalar, got %s", fp, tokenKind(val))
	}
	x, err := jsonScalar(fd, val, fp)
	if err != nil {
		return err
	}
	w.b = protowire.AppendTag(w.b, fd.Number(), wireType(fd.Kind()))
	w.b = appendScalar(w.b, fd.Kind(), x)
	return nil
}

// appendScalar appends v, a value of kind k, in k's wire encoding, without
// its tag (a string or bytes with its length).
func appendScalar(b []byte, k protoreflect.Kind, v protoreflect.Value) []byte {
	switch k {
	case protoreflect.BoolKind:
		return protowire.AppendVarint(b, protowire.EncodeBool(v.Bool()))
	case protoreflect.EnumKind:
		return protowire.AppendVarint(b, uint64(int64(v.Enum())))
	case protoreflect.Int32Kind, protoreflect.Int64Kind:
		return protowire.AppendVarint(b, uint64(v.Int()))
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return protowire.AppendVarint(b, protowire.EncodeZigZag(v.Int()))
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind:
		return protowire.AppendVarint(b, v.Uint())
	case protoreflect.Sfixed32Kind:
		return protowire.AppendFixed32(b, uint32(v.Int()))
	case protoreflect.Fixed32Kind:
		return protowire.AppendFixed32(b, uint32(v.Uint()))
	case protoreflect.Sfixed64Kind:
		return protowire.AppendFixed64(b, uint64(v.Int()))
	case protoreflect.Fixed64Kind:
		return protowire.AppendFixed64(b, v.Uint())
	case protoreflect.FloatKind:
		return protowire.AppendFixed32(b, math.Float32bits(float32(v.Float())))
	case protoreflect.DoubleKind:
		return protowire.AppendFixed64(b, math.Float64bits(v.Float()))
	case protoreflect.StringKind:
		return protowire.AppendString(b, v.String())
	}
	return protowire.AppendBytes(b, v.Bytes())
}
