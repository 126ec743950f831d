package jfr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// This file reads the parts of a chunk that jfr-parser v0.18.0 does not
// keep (a stack frame's type and bytecode index, a method's descriptor and
// hidden flag, event types it has no binding for) and checks every count
// and length in the chunk's metadata, constant pools and the events handed
// to jfr-parser against the bytes that remain: the library allocates from
// those counts unchecked (a []string of the metadata's string count, a
// []rune of a string's length), so a few bytes could ask it for gigabytes.

// errShort is a value that runs past the end of its event or chunk.
var errShort = errors.New("cut short")

// reader reads JFR's compressed integers and strings from a byte slice.
type reader struct {
	b   []byte
	pos int
}

func (r *reader) left() int { return len(r.b) - r.pos }

func (r *reader) u8() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errShort
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

// varlong reads JFR's LEB128 of at most 9 bytes (the ninth holds 8 bits).
func (r *reader) varlong() (uint64, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if r.pos >= len(r.b) {
			return 0, errShort
		}
		c := r.b[r.pos]
		r.pos++
		if shift == 56 {
			return v | uint64(c)<<56, nil
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
}

// count reads a count of things each at least min bytes long and checks
// that the bytes that remain can hold them.
func (r *reader) count(what string, min int) (int, error) {
	v, err := r.varlong()
	if err != nil {
		return 0, err
	}
	if min < 1 {
		min = 1
	}
	if v > uint64(r.left()/min) {
		return 0, fmt.Errorf("%s count %d at byte %d: more than the %d bytes that remain can hold", what, v, r.pos, r.left())
	}
	return int(v), nil
}

// str reads a string in any of JFR's encodings. A constant-pool reference
// (encoding 2) gives its id in ref.
func (r *reader) str() (s string, ref uint64, err error) {
	enc, err := r.u8()
	if err != nil {
		return "", 0, err
	}
	switch enc {
	case 0, 1: // null, empty
		return "", 0, nil
	case 2:
		ref, err = r.varlong()
		return "", ref, err
	case 3, 5: // UTF-8, Latin-1
		n, err := r.count("string byte", 1)
		if err != nil {
			return "", 0, err
		}
		b := r.b[r.pos : r.pos+n]
		r.pos += n
		if enc == 5 {
			rs := make([]rune, n)
			for i, c := range b {
				rs[i] = rune(c)
			}
			return string(rs), 0, nil
		}
		return string(b), 0, nil
	case 4: // UTF-16 code units, each a compressed integer
		n, err := r.count("string char", 1)
		if err != nil {
			return "", 0, err
		}
		rs := make([]rune, 0, n)
		for i := 0; i < n; i++ {
			c, err := r.varlong()
			if err != nil {
				return "", 0, err
			}
			if c > utf8.MaxRune {
				c = utf8.RuneError
			}
			rs = append(rs, rune(c))
		}
		return string(rs), 0, nil
	default:
		return "", 0, fmt.Errorf("unknown string encoding %d at byte %d", enc, r.pos-1)
	}
}

// Kinds of primitive types.
const (
	kStruct = iota
	kBool
	kByte
	kChar
	kShort
	kInt
	kLong
	kFloat
	kDouble
	kString
)

var primitives = map[string]int{
	"boolean": kBool, "byte": kByte, "char": kChar, "short": kShort, "int": kInt,
	"long": kLong, "float": kFloat, "double": kDouble, "java.lang.String": kString,
}

type field struct {
	name  string
	typ   uint64
	cp    bool
	array bool
}

type class struct {
	id     uint64
	name   string
	kind   int
	fields []field
}

// value is a decoded field value: a number (integers, constant-pool
// references, a float's bits), a string, or the fields or elements of a
// struct or array.
type value struct {
	n   uint64
	s   string
	sub []value
}

// fieldIndex returns the index of the field named name, or -1.
func (c *class) fieldIndex(name string) int {
	for i, f := range c.fields {
		if f.name == name {
			return i
		}
	}
	return -1
}

// maxDepth bounds how deeply structs nest in a value (the JDK's deepest,
// a stack trace's frames' fields, is 3).
const maxDepth = 32

type meta struct {
	classes map[uint64]*class
	byName  map[string]*class
}

func (m *meta) read(r *reader, typ uint64, cp, array bool, depth int) (value, error) {
	if depth > maxDepth {
		return value{}, fmt.Errorf("values nest deeper than %d at byte %d", maxDepth, r.pos)
	}
	if array {
		n, err := r.count("array element", 1)
		if err != nil {
			return value{}, err
		}
		v := value{sub: make([]value, 0, min(n, 1024))}
		for i := 0; i < n; i++ {
			e, err := m.read(r, typ, cp, false, depth+1)
			if err != nil {
				return value{}, err
			}
			v.sub = append(v.sub, e)
		}
		return v, nil
	}
	if cp {
		n, err := r.varlong()
		return value{n: n}, err
	}
	c := m.classes[typ]
	if c == nil {
		return value{}, fmt.Errorf("a field of unknown type %d at byte %d", typ, r.pos)
	}
	switch c.kind {
	case kBool, kByte:
		b, err := r.u8()
		return value{n: uint64(b)}, err
	case kChar, kShort, kInt, kLong:
		n, err := r.varlong()
		return value{n: n}, err
	case kFloat:
		if r.left() < 4 {
			return value{}, errShort
		}
		v := binary.BigEndian.Uint32(r.b[r.pos:])
		r.pos += 4
		return value{n: uint64(v)}, nil
	case kDouble:
		if r.left() < 8 {
			return value{}, errShort
		}
		v := binary.BigEndian.Uint64(r.b[r.pos:])
		r.pos += 8
		return value{n: v}, nil
	case kString:
		s, ref, err := r.str()
		return value{s: s, n: ref}, err
	}
	v := value{sub: make([]value, len(c.fields))}
	for i, f := range c.fields {
		fv, err := m.read(r, f.typ, f.cp, f.array, depth+1)
		if err != nil {
			return value{}, err
		}
		v.sub[i] = fv
	}
	return v, nil
}

// readMetadata reads the metadata event at off: its string table and its
// tree of elements, keeping the classes and their fields.
func readMetadata(chunk []byte, off int) (*meta, error) {
	r := &reader{b: chunk, pos: off}
	size, err := r.varlong()
	if err != nil {
		return nil, err
	}
	if size < 2 || size > uint64(len(chunk)-off) {
		return nil, fmt.Errorf("metadata event size %d at byte %d does not fit the chunk", size, off)
	}
	r.b = chunk[:off+int(size)]
	typ, err := r.varlong()
	if err != nil {
		return nil, err
	}
	if typ != 0 {
		return nil, fmt.Errorf("the metadata offset points at an event of type %d, not 0", typ)
	}
	for i := 0; i < 3; i++ { // start time, duration, metadata id
		if _, err := r.varlong(); err != nil {
			return nil, err
		}
	}
	n, err := r.count("metadata string", 1)
	if err != nil {
		return nil, err
	}
	strs := make([]string, n)
	for i := range strs {
		if strs[i], _, err = r.str(); err != nil {
			return nil, err
		}
	}
	m := &meta{classes: map[uint64]*class{}, byName: map[string]*class{}}
	if err := m.element(r, strs, 0, nil); err != nil {
		return nil, err
	}
	return m, nil
}

// element reads one element of the metadata tree and its children. parent
// is the class a "field" element belongs to.
func (m *meta) element(r *reader, strs []string, depth int, parent *class) error {
	if depth > 16 {
		return fmt.Errorf("metadata elements nest deeper than 16 at byte %d", r.pos)
	}
	str := func() (string, error) {
		i, err := r.varlong()
		if err != nil {
			return "", err
		}
		if i >= uint64(len(strs)) {
			return "", fmt.Errorf("metadata string index %d out of range at byte %d", i, r.pos)
		}
		return strs[i], nil
	}
	name, err := str()
	if err != nil {
		return err
	}
	na, err := r.count("metadata attribute", 2)
	if err != nil {
		return err
	}
	attrs := map[string]string{}
	for i := 0; i < na; i++ {
		k, err := str()
		if err != nil {
			return err
		}
		v, err := str()
		if err != nil {
			return err
		}
		attrs[k] = v
	}
	var c *class
	switch name {
	case "class":
		id, ok := parseUint(attrs["id"])
		if !ok {
			return fmt.Errorf("metadata class %q has no id", attrs["name"])
		}
		c = &class{id: id, name: attrs["name"], kind: primitives[attrs["name"]]}
		m.classes[id] = c
		m.byName[c.name] = c
	case "field":
		if parent != nil {
			t, ok := parseUint(attrs["class"])
			if !ok {
				return fmt.Errorf("metadata field %q of %s has no class", attrs["name"], parent.name)
			}
			parent.fields = append(parent.fields, field{name: attrs["name"], typ: t, cp: attrs["constantPool"] == "true", array: attrs["dimension"] == "1"})
		}
	}
	nc, err := r.count("metadata element", 3)
	if err != nil {
		return err
	}
	for i := 0; i < nc; i++ {
		if err := m.element(r, strs, depth+1, c); err != nil {
			return err
		}
	}
	return nil
}

func parseUint(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	var v uint64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' || v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}
