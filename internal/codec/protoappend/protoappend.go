// Package protoappend appends protobuf wire format straight to a byte slice,
// for the hand-written writers (OTLP in both dialects): length-delimited
// fields with their length patched in afterwards, varints with the one-byte
// case inlined, fields left out when zero, and OTLP's common.proto
// AnyValue and KeyValue from the model's attribute values.
package protoappend

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/model"
)

// Begin starts a length-delimited field and returns where its body starts;
// End writes the length. One byte is reserved for the length; longer
// bodies are moved up to make room.
func Begin(b []byte, num protowire.Number) ([]byte, int) {
	b = Tag(b, num, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

// End closes the field Begin started at start.
func End(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	extra := protowire.SizeVarint(uint64(n)) - 1
	for i := 0; i < extra; i++ {
		b = append(b, 0)
	}
	copy(b[start+extra:], b[start:start+n])
	Varint(b[:start-1], uint64(n))
	return b
}

// Varint is protowire.AppendVarint with the one-byte case inlined: most
// varints of a profile are small, and the call was a fifth of a writer's
// instructions.
func Varint(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

// Tag appends a field's tag.
func Tag(b []byte, num protowire.Number, typ protowire.Type) []byte {
	if num < 16 {
		return append(b, byte(num)<<3|byte(typ))
	}
	return protowire.AppendVarint(b, uint64(num)<<3|uint64(typ))
}

// BytesField appends a bytes field unless v is empty.
func BytesField(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	return protowire.AppendBytes(Tag(b, num, protowire.BytesType), v)
}

// Fixed64Field appends a fixed64 field unless v is 0.
func Fixed64Field(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	return protowire.AppendFixed64(Tag(b, num, protowire.Fixed64Type), v)
}

// AnyValue appends the body of a common.proto AnyValue. Its oneof field is
// written even when zero, so that the kind survives. valid makes a string
// valid UTF-8 (protobuf strings must be), telling whoever needs to know.
func AnyValue(b []byte, v model.Value, valid func(string) string) []byte {
	switch v.Kind {
	case model.KindString:
		b = Tag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, valid(v.Str))
	case model.KindBool:
		b = Tag(b, 2, protowire.VarintType)
		b = Varint(b, protowire.EncodeBool(v.Bool))
	case model.KindInt:
		b = Tag(b, 3, protowire.VarintType)
		b = Varint(b, uint64(v.Int))
	case model.KindDouble:
		b = Tag(b, 4, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, math.Float64bits(v.Double))
	case model.KindArray:
		var s int
		b, s = Begin(b, 5)
		for _, x := range v.Array {
			var xs int
			b, xs = Begin(b, 1)
			b = AnyValue(b, x, valid)
			b = End(b, xs)
		}
		b = End(b, s)
	case model.KindMap:
		var s int
		b, s = Begin(b, 6)
		for _, a := range v.Map {
			b = KeyValue(b, 1, a, valid)
		}
		b = End(b, s)
	case model.KindBytes:
		b = Tag(b, 7, protowire.BytesType)
		b = protowire.AppendBytes(b, v.Bytes)
	}
	return b
}

// KeyValue appends a common.proto KeyValue as field num: its key (left
// out when empty) and its value.
func KeyValue(b []byte, num protowire.Number, a model.Attribute, valid func(string) string) []byte {
	b, kv := Begin(b, num)
	if a.Key != "" {
		b = protowire.AppendString(Tag(b, 1, protowire.BytesType), valid(a.Key))
	}
	b, v := Begin(b, 2)
	b = AnyValue(b, a.Value, valid)
	b = End(b, v)
	return End(b, kv)
}
