package pprofextended

import "google.golang.org/protobuf/reflect/protoreflect"

// The OTLP JSON mapping below is schema-agnostic (it walks the generated
// descriptors), so the codec of the v1development dialect
// (internal/codec/otlp) uses it too.

// AppendJSON appends message m in OTLP JSON (lowerCamelCase keys, hex ids,
// enums as integers, 64-bit integers as decimal strings).
func AppendJSON(b []byte, m protoreflect.Message) []byte { return appendJSONMessage(b, m) }

// UnmarshalJSON reads one OTLP JSON object into m. It takes snake_case keys
// too, ignores unknown ones, and names a bad value by its field path.
func UnmarshalJSON(data []byte, m protoreflect.Message) error { return jsonToMessage(data, m) }

// LocateWireError finds where binary data fails to parse as md: the byte
// offset and field path of the first bad field; err when it finds none.
func LocateWireError(data []byte, md protoreflect.MessageDescriptor, err error) error {
	return locateWireError(data, md, err)
}
