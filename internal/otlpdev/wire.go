package otlpdev

import "google.golang.org/protobuf/encoding/protowire"

// Protobuf writing helpers: the writer appends the wire format straight from
// the model; no generated structs are built.

// begin starts a length-delimited field and returns where its body starts;
// end writes the length. One byte is reserved for the length; longer bodies
// are moved up to make room.
func begin(b []byte, num protowire.Number) ([]byte, int) {
	b = appendTag(b, num, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

func end(b []byte, start int) []byte {
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
	appendVarint(b[:start-1], uint64(n))
	return b
}

// appendVarint is protowire.AppendVarint with the one-byte case inlined.
func appendVarint(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

func appendTag(b []byte, num protowire.Number, typ protowire.Type) []byte {
	if num < 16 {
		return append(b, byte(num)<<3|byte(typ))
	}
	return protowire.AppendVarint(b, uint64(num)<<3|uint64(typ))
}

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

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	return protowire.AppendBytes(appendTag(b, num, protowire.BytesType), v)
}

func appendFixed64Field(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	return protowire.AppendFixed64(appendTag(b, num, protowire.Fixed64Type), v)
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
