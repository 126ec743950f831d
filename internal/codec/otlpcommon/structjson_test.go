package otlpcommon

import "google.golang.org/protobuf/reflect/protoreflect"

// AppendJSON appends message m, read into the generated structs, in OTLP
// JSON. It is the writer the wire writer (jsonwire.go) replaced, kept as
// the tests' reference and the benchmark's other side: it gives the text
// from what protobuf-go's own reader makes of the bytes.
func AppendJSON(b []byte, m protoreflect.Message) []byte { return appendJSONMessage(b, m) }

func appendJSONMessage(b []byte, m protoreflect.Message) []byte {
	b = append(b, '{')
	fds := m.Descriptor().Fields()
	first := true
	for i := 0; i < fds.Len(); i++ {
		fd := fds.Get(i)
		if !m.Has(fd) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, fd.JSONName())
		b = append(b, ':')
		v := m.Get(fd)
		if fd.IsList() {
			l := v.List()
			b = append(b, '[')
			for j := 0; j < l.Len(); j++ {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendStructValue(b, fd, l.Get(j))
			}
			b = append(b, ']')
		} else {
			b = appendStructValue(b, fd, v)
		}
	}
	return append(b, '}')
}

func appendStructValue(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	if fd.Kind() == protoreflect.MessageKind {
		return appendJSONMessage(b, v.Message())
	}
	return appendJSONValue(b, fd, v)
}
