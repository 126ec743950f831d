package pprofextended

import (
	"google.golang.org/protobuf/encoding/protowire"

	pa "github.com/pprofx/pprofx/internal/codec/protoappend"
	"github.com/pprofx/pprofx/internal/model"
)

// The shared protobuf writing helpers (internal/codec/protoappend), under the
// names this writer's code uses.

func begin(b []byte, num protowire.Number) ([]byte, int) { return pa.Begin(b, num) }
func end(b []byte, start int) []byte                     { return pa.End(b, start) }
func appendVarint(b []byte, v uint64) []byte             { return pa.Varint(b, v) }
func appendTag(b []byte, num protowire.Number, typ protowire.Type) []byte {
	return pa.Tag(b, num, typ)
}
func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	return pa.BytesField(b, num, v)
}
func appendFixed64Field(b []byte, num protowire.Number, v uint64) []byte {
	return pa.Fixed64Field(b, num, v)
}

// appendKeyValue appends a common.proto KeyValue as field num.
func (e *encoder) appendKeyValue(b []byte, num protowire.Number, a model.Attribute) []byte {
	return pa.KeyValue(b, num, a, e.validUTF8)
}

// appendAnyValue appends the body of a common.proto AnyValue.
func (e *encoder) appendAnyValue(b []byte, v model.Value) []byte {
	return pa.AnyValue(b, v, e.validUTF8)
}
