package otlpcommon

import (
	"encoding/json"
	"fmt"
	"io"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pprofx/pprofx/internal/model"
)

// The reader JSONToBinary replaced, kept as its reference: it reads OTLP
// JSON token by token straight into the generated structs.

// UnmarshalJSONStructs reads one OTLP JSON object into m.
func UnmarshalJSONStructs(data []byte, m protoreflect.Message) error { return jsonToMessage(data, m) }

// JSONToBinaryLibrary is JSONToBinary reading the text with
// encoding/json's Decoder (BenchmarkJSONToBinary).
func JSONToBinaryLibrary(data []byte, md protoreflect.MessageDescriptor) ([]byte, error) {
	return jsonToBinary(data, md, true)
}

// JSONTokens returns a reader of the tokens of data (FuzzJSONScanner).
func JSONTokens(data []byte, library bool) interface {
	Token() (json.Token, error)
	More() bool
	InputOffset() int64
} {
	return jsonTokens(data, library)
}

// jsonToMessage reads OTLP JSON into m. The text is read token by token
// straight into the message, never into a tree of maps first, after a
// count of its objects was found to be what the input's size can justify:
// a million "{}" would take a generated struct each.
func jsonToMessage(data []byte, m protoreflect.Message) error {
	objects := jsonObjects(data)
	if err := model.CheckMemory("otlp json", objects*jsonObjectSize, int64(len(data)),
		fmt.Sprintf("%d objects", objects)); err != nil {
		return err
	}
	dec := jsonTokens(data, false)
	r := &jsonReader{dec: dec}
	tok, err := r.token()
	if err == nil {
		err = r.message(m, tok, nil)
	}
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = fmt.Errorf("byte %d: data after the top-level object", dec.InputOffset())
		}
	}
	return err
}

// message reads the object that begins with tok into m.
func (r *jsonReader) message(m protoreflect.Message, tok json.Token, path *jpath) error {
	if tok != json.Delim('{') {
		return fmt.Errorf("%s: want an object, got %s", pathOrTop(path), tokenKind(tok))
	}
	if r.depth++; r.depth > 100 {
		return fmt.Errorf("byte %d: %s: objects nested deeper than 100", r.dec.InputOffset(), pathOrTop(path))
	}
	defer func() { r.depth-- }()
	fds := m.Descriptor().Fields()
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
		fd := jsonField(fds, k)
		if fd == nil || val == nil {
			// unknown fields are ignored; null is unset
			if err := r.skip(val); err != nil {
				return err
			}
			continue
		}
		fp := &jpath{parent: path, name: string(fd.Name()), index: -1}
		if fd.IsList() {
			if val != json.Delim('[') {
				return fmt.Errorf("%s: want an array, got %s", fp, tokenKind(val))
			}
			l := m.Mutable(fd).List()
			for j := 0; r.dec.More(); j++ {
				e, err := r.token()
				if err != nil {
					return err
				}
				ep := &jpath{parent: path, name: string(fd.Name()), index: j}
				if fd.Kind() == protoreflect.MessageKind {
					el := l.NewElement()
					if err := r.message(el.Message(), e, ep); err != nil {
						return err
					}
					l.Append(el)
					continue
				}
				if _, ok := e.(json.Delim); ok {
					return fmt.Errorf("%s: want a scalar, got %s", ep, tokenKind(e))
				}
				x, err := jsonScalar(fd, e, ep)
				if err != nil {
					return err
				}
				l.Append(x)
			}
			if _, err := r.token(); err != nil { // ']'
				return err
			}
			continue
		}
		if fd.Kind() == protoreflect.MessageKind {
			if err := r.message(m.Mutable(fd).Message(), val, fp); err != nil {
				return err
			}
			continue
		}
		if _, ok := val.(json.Delim); ok {
			return fmt.Errorf("%s: want a scalar, got %s", fp, tokenKind(val))
		}
		x, err := jsonScalar(fd, val, fp)
		if err != nil {
			return err
		}
		m.Set(fd, x)
	}
	_, err := r.token() // '}'
	return err
}
