package otlp

import (
	"google.golang.org/protobuf/encoding/protowire"

	pa "github.com/pprofx/pprofx/internal/codec/protoappend"
	"github.com/pprofx/pprofx/internal/model"
)

// Protobuf writing helpers: the writer appends the wire format straight from
// the model; no generated structs are built.

// appendVarintField appends a varint field unless v is 0.
func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v-1 < 0x7f && num < 16 {
		return append(b, byte(num)<<3, byte(v))
	}
	if v == 0 {
		return b
	}
	b = appendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// appendPacked appends a packed repeated varint field of int32 indices.
func appendPacked(b []byte, num protowire.Number, vs []int32) []byte {
	if len(vs) == 0 {
		return b
	}
	b, s := begin(b, num)
	for _, v := range vs {
		b = appendVarint(b, uint64(int64(v)))
	}
	return end(b, s)
}

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
