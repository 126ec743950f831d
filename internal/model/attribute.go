package model

import (
	"encoding/binary"
	"math"
)

// AppendAttributesKey appends an encoding of as that is equal for two lists
// exactly when they hold the same keys, values (kinds included) and units
// in the same order.
func AppendAttributesKey(b []byte, as []Attribute) []byte {
	b = binary.AppendUvarint(b, uint64(len(as)))
	for _, a := range as {
		b = appendKeyString(b, a.Key)
		b = appendKeyString(b, a.Unit)
		b = appendValueKey(b, a.Value)
	}
	return b
}

func appendKeyString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendValueKey(b []byte, v Value) []byte {
	b = append(b, byte(v.Kind))
	switch v.Kind {
	case KindString:
		b = appendKeyString(b, v.Str)
	case KindBool:
		if v.Bool {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	case KindInt:
		b = binary.AppendVarint(b, v.Int)
	case KindDouble:
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Double))
	case KindBytes:
		b = appendKeyString(b, string(v.Bytes))
	case KindArray:
		b = binary.AppendUvarint(b, uint64(len(v.Array)))
		for _, e := range v.Array {
			b = appendValueKey(b, e)
		}
	case KindMap:
		b = AppendAttributesKey(b, v.Map)
	}
	return b
}
