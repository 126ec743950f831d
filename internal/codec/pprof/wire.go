// The protobuf wire reading of the decoder: fields, varints and the
// compact id indexes the tables are looked up through.

package pprof

import (
	"fmt"
	"math"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
)

// decodeError is a decoding failure at a byte offset of the raw protobuf.
type decodeError struct {
	off  int
	what string
}

func (e *decodeError) Error() string {
	return fmt.Sprintf("pprof: byte offset %d: %s", e.off, e.what)
}

// idIndex maps the ids of one pprof table to model indices. ids that are
// exactly 1..n in order need no map.
type idIndex struct {
	ids   []uint64
	dense bool
	m     map[uint64]int32
}

func (x *idIndex) build(what string) error {
	x.dense = true
	for i, id := range x.ids {
		if id != uint64(i+1) {
			x.dense = false
			break
		}
	}
	if x.dense {
		return nil
	}
	x.m = make(map[uint64]int32, len(x.ids))
	for i, id := range x.ids {
		if id == 0 {
			return fmt.Errorf("pprof: %s[%d] has the reserved id 0", what, i)
		}
		if _, dup := x.m[id]; dup {
			return fmt.Errorf("pprof: %s[%d] repeats id %d", what, i, id)
		}
		x.m[id] = int32(i)
	}
	return nil
}

func (x *idIndex) lookup(id uint64) (int32, bool) {
	if x.dense {
		if id == 0 || id > uint64(len(x.ids)) {
			return 0, false
		}
		return int32(id - 1), true
	}
	i, ok := x.m[id]
	return i, ok
}

// chunks hands out sub-slices of large shared arrays, so that decoding
// allocates per thousand lines or values, not per location or sample.
type chunks[T any] struct {
	buf  []T
	next int // size of the next chunk; 0 means 4096
}

func (c *chunks[T]) take(n int) []T {
	if n > cap(c.buf)-len(c.buf) {
		size := c.next
		if size <= 0 {
			size = 4096
		}
		c.next = 4096
		if n > size {
			size = n
		}
		c.buf = make([]T, 0, size)
	}
	s := c.buf[len(c.buf) : len(c.buf)+n : len(c.buf)+n]
	c.buf = c.buf[:len(c.buf)+n]
	return s
}

// field is one protobuf field as read from the wire.
type field struct {
	num  protowire.Number
	typ  protowire.Type
	v    uint64 // varint/fixed value
	b    []byte // bytes of a length-delimited field
	off  int    // offset of the field's tag in d.data
	next int    // offset after the field
}

// next reads the field at buf[pos:], buf being a window of d.data starting
// at base.
func (d *decoder) field(buf []byte, pos, base int) (field, error) {
	num, typ, n := protowire.ConsumeTag(buf[pos:])
	if n < 0 {
		return field{}, &decodeError{base + pos, "bad field tag"}
	}
	f := field{num: num, typ: typ, off: base + pos}
	pos += n
	switch typ {
	case protowire.VarintType:
		v, m := protowire.ConsumeVarint(buf[pos:])
		if m < 0 {
			return f, &decodeError{base + pos, fmt.Sprintf("field %d: bad varint", num)}
		}
		f.v, pos = v, pos+m
	case protowire.Fixed64Type:
		v, m := protowire.ConsumeFixed64(buf[pos:])
		if m < 0 {
			return f, &decodeError{base + pos, fmt.Sprintf("field %d: truncated fixed64", num)}
		}
		f.v, pos = v, pos+m
	case protowire.Fixed32Type:
		v, m := protowire.ConsumeFixed32(buf[pos:])
		if m < 0 {
			return f, &decodeError{base + pos, fmt.Sprintf("field %d: truncated fixed32", num)}
		}
		f.v, pos = uint64(v), pos+m
	case protowire.BytesType:
		l, m := protowire.ConsumeVarint(buf[pos:])
		if m < 0 {
			return f, &decodeError{base + pos, fmt.Sprintf("field %d: bad length", num)}
		}
		pos += m
		if l > uint64(len(buf)-pos) {
			return f, &decodeError{base + pos, fmt.Sprintf("field %d: length %d beyond the %d bytes that remain", num, l, len(buf)-pos)}
		}
		f.b = buf[pos : pos+int(l)]
		pos += int(l)
	default:
		return f, &decodeError{base + pos, fmt.Sprintf("field %d: unsupported wire type %d", num, typ)}
	}
	f.next = base + pos
	return f, nil
}

// each calls fn for every field of the message at d.data[base:base+len(buf)].
func (d *decoder) each(buf []byte, base int, fn func(f field) error) error {
	var f field
	for pos := 0; pos < len(buf); pos = f.next - base {
		if err := d.scan(buf, pos, base, &f); err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// offsetOf returns the offset of sub-slice b within d.data.
func (d *decoder) offsetOf(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return int(uintptr(unsafe.Pointer(&b[0])) - uintptr(unsafe.Pointer(&d.data[0])))
}

func (d *decoder) wantVarint(f *field) error {
	if f.typ != protowire.VarintType {
		return &decodeError{f.off, fmt.Sprintf("field %d: wire type %d, want varint", f.num, f.typ)}
	}
	return nil
}

func (d *decoder) wantBytes(f *field) error {
	if f.typ != protowire.BytesType {
		return &decodeError{f.off, fmt.Sprintf("field %d: wire type %d, want length-delimited", f.num, f.typ)}
	}
	return nil
}

// strIdx converts a string index from the wire; range against the string
// table is checked by Validate.
func (d *decoder) strIdx(f *field) (int32, error) {
	if err := d.wantVarint(f); err != nil {
		return 0, err
	}
	if f.v > math.MaxInt32 {
		return 0, &decodeError{f.off, fmt.Sprintf("field %d: string index %d out of range", f.num, int64(f.v))}
	}
	return d.str(int32(f.v)), nil
}

// str is string index i of the input as an index of the profile's
// strings: the same, unless the table was interned. An index out of the
// table's range is kept as it is, for Validate to name.
func (d *decoder) str(i int32) int32 {
	if d.strRemap != nil && i >= 0 && int(i) < len(d.strRemap) {
		return d.strRemap[i]
	}
	return i
}

// varints calls fn for each value of a repeated varint field, packed or not.
func (d *decoder) varints(f *field, fn func(v uint64)) error {
	switch f.typ {
	case protowire.VarintType:
		fn(f.v)
		return nil
	case protowire.BytesType:
		b := f.b
		for len(b) > 0 {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return &decodeError{d.offsetOf(b), fmt.Sprintf("field %d: bad packed varint", f.num)}
			}
			fn(v)
			b = b[n:]
		}
		return nil
	}
	return &decodeError{f.off, fmt.Sprintf("field %d: wire type %d, want varint", f.num, f.typ)}
}

// scan reads the field at buf[pos:] into g: the common one-byte shapes
// directly, the rest through d.field.
func (d *decoder) scan(buf []byte, pos, base int, g *field) error {
	if t := buf[pos]; t < 0x80 && t >= 8 {
		switch t & 7 {
		case 0:
			if v, next := shortVarint(buf, pos+1); next > 0 {
				// Field by field: a composite literal stored through g
				// is built aside and copied, several times the cost.
				g.num, g.typ, g.v, g.b, g.off, g.next = protowire.Number(t>>3), protowire.VarintType, v, nil, base+pos, base+next
				return nil
			}
		case 2:
			if l, next := shortVarint(buf, pos+1); next > 0 && l <= uint64(len(buf)-next) {
				end := next + int(l)
				g.num, g.typ, g.v, g.b, g.off, g.next = protowire.Number(t>>3), protowire.BytesType, 0, buf[next:end], base+pos, base+end
				return nil
			}
		}
	}
	var err error
	*g, err = d.field(buf, pos, base)
	return err
}

// shortVarint reads a varint of at most 8 bytes (values below 2^56: ids,
// indices, lengths, line numbers, most addresses) at buf[i:], returning
// the position after it, or next <= 0 when it is longer, truncated or
// missing: then the general path reads it and names any error.
func shortVarint(buf []byte, i int) (v uint64, next int) {
	for shift := uint(0); shift < 56 && i < len(buf); shift += 7 {
		c := buf[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i
		}
	}
	return 0, 0
}
