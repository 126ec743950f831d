package jfr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
	"unsafe"

	"github.com/grafana/jfr-parser/parser/types/def"
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

// reader reads JFR's compressed integers and strings from b[pos:end].
// The end is a field of its own, not b's length, so that moving a reader
// from one event to the next writes no pointer.
type reader struct {
	b   []byte
	pos int
	end int
}

// newReader returns a reader of b from pos.
func newReader(b []byte, pos int) *reader { return &reader{b: b, pos: pos, end: len(b)} }

func (r *reader) left() int { return r.end - r.pos }

func (r *reader) u8() (byte, error) {
	if r.pos >= r.end {
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
		if r.pos >= r.end {
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

// strView reads a string as str does; a UTF-8 or ASCII one aliases the
// chunk's bytes, for what lives no longer than the chunk's reading.
func (r *reader) strView() (string, error) {
	start := r.pos
	if r.pos < r.end && (r.b[r.pos] == 3 || r.b[r.pos] == 5) {
		enc := r.b[r.pos]
		r.pos++
		n, err := r.count("string byte", 1)
		if err != nil {
			return "", err
		}
		b := r.b[r.pos : r.pos+n]
		if enc == 3 || ascii(b) {
			r.pos += n
			if n == 0 {
				return "", nil
			}
			return unsafe.String(&b[0], n), nil
		}
		r.pos = start // Latin-1 beyond ASCII: converted by str
	}
	if r.pos < r.end && r.b[r.pos] == 4 {
		// UTF-16 code units, each a compressed integer: when every one is
		// ASCII, each takes one byte, the string's own.
		r.pos++
		n, err := r.count("string char", 1)
		if err != nil {
			return "", err
		}
		if b := r.b[r.pos : r.pos+n]; ascii(b) {
			r.pos += n
			if n == 0 {
				return "", nil
			}
			return unsafe.String(&b[0], n), nil
		}
		r.pos = start
	}
	s, _, err := r.str()
	return s, err
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// skipStr skips a string in any of JFR's encodings, checking its length.
func (r *reader) skipStr() error {
	enc, err := r.u8()
	if err != nil {
		return err
	}
	switch enc {
	case 0, 1:
		return nil
	case 2:
		_, err = r.varlong()
		return err
	case 3, 5:
		n, err := r.count("string byte", 1)
		r.pos += n
		return err
	case 4:
		n, err := r.count("string char", 1)
		for i := 0; i < n && err == nil; i++ {
			_, err = r.varlong()
		}
		return err
	default:
		return fmt.Errorf("unknown string encoding %d at byte %d", enc, r.pos-1)
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

// Roles of an event type: what pprofx does with its events.
const (
	roleNone    = iota
	roleLibrary // read by jfr-parser, checked by pprofx first
	roleOwn     // read by pprofx
)

type field struct {
	name  string
	typ   uint64
	cls   *class // nil when the metadata has no class typ
	cp    bool
	array bool
}

type class struct {
	id     uint64
	name   string
	kind   int
	role   int
	lib    libKind // the binding jfr-parser reads its events with
	fields []field
	def    *def.Class // as jfr-parser defines it, once needed
	events int        // read in this chunk
	// ops, for a struct whose fields are all single integers, booleans or
	// references: per field, opVarlong or opByte. Nil for any other.
	ops []uint8
}

// How a field of a struct in class.ops is read.
const (
	opVarlong = iota
	opByte
)

// simpleOps returns c.ops for c, or nil.
func simpleOps(c *class) []uint8 {
	if c.kind != kStruct || len(c.fields) == 0 {
		return nil
	}
	ops := make([]uint8, len(c.fields))
	for i, f := range c.fields {
		switch {
		case f.array:
			return nil
		case f.cp || f.cls != nil && f.cls.kind >= kChar && f.cls.kind <= kLong:
			ops[i] = opVarlong
		case f.cls != nil && (f.cls.kind == kBool || f.cls.kind == kByte):
			ops[i] = opByte
		default:
			return nil
		}
	}
	return ops
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

// denseClasses is how many class ids meta looks up in a slice.
const denseClasses = 4096

type meta struct {
	classes map[uint64]*class
	dense   []*class // classes by id, for ids below denseClasses
	// The event types whose period settings pprofx looks for.
	wallClock, nativeMethod *class
	// jfr-parser's type map: the ids of the types it knows (the last
	// class of a name, as jfr-parser's own metadata reading keeps) and
	// the classes its bindings need.
	tm  def.TypeMap
	lib [numLib]*class // the event types jfr-parser binds
}

// class returns the class of id, or nil.
func (m *meta) class(id uint64) *class {
	if id < uint64(len(m.dense)) {
		return m.dense[id]
	}
	return m.classes[id]
}

// skipField skips a value of field f, checking every count and length.
func skipField(r *reader, f *field, depth int) error {
	if !f.array && (f.cp || f.cls != nil && f.cls.kind >= kChar && f.cls.kind <= kLong) {
		_, err := r.varlong()
		return err
	}
	if f.array {
		n, err := r.count("array element", 1)
		if err != nil {
			return err
		}
		if !f.cp && f.cls != nil && f.cls.ops != nil && depth+1 <= maxDepth {
			// Flat structs (a stack trace's frames): their fields in a row.
			ops := f.cls.ops
			for i := 0; i < n; i++ {
				for _, op := range ops {
					if op == opByte {
						if r.pos >= r.end {
							return errShort
						}
						r.pos++
					} else if _, err := r.varlong(); err != nil {
						return err
					}
				}
			}
			return nil
		}
		for i := 0; i < n; i++ {
			if err := skipOne(r, f, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return skipOne(r, f, depth)
}

func skipOne(r *reader, f *field, depth int) error {
	if f.cp {
		_, err := r.varlong()
		return err
	}
	if f.cls == nil {
		return fmt.Errorf("a field of unknown type %d at byte %d", f.typ, r.pos)
	}
	return skipClass(r, f.cls, depth)
}

// skipClass skips a value of class c, checking every count and length.
func skipClass(r *reader, c *class, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("values nest deeper than %d at byte %d", maxDepth, r.pos)
	}
	if c.ops != nil {
		for _, op := range c.ops {
			if op == opByte {
				if r.pos >= r.end {
					return errShort
				}
				r.pos++
			} else if _, err := r.varlong(); err != nil {
				return err
			}
		}
		return nil
	}
	switch c.kind {
	case kBool, kByte:
		_, err := r.u8()
		return err
	case kChar, kShort, kInt, kLong:
		_, err := r.varlong()
		return err
	case kFloat:
		return r.fixed(4)
	case kDouble:
		return r.fixed(8)
	case kString:
		return r.skipStr()
	}
	for i := range c.fields {
		if err := skipField(r, &c.fields[i], depth+1); err != nil {
			return err
		}
	}
	return nil
}

// fixed skips n bytes.
func (r *reader) fixed(n int) error {
	if r.left() < n {
		return errShort
	}
	r.pos += n
	return nil
}

// num reads a value of field f as a number: an integer, a boolean, a
// constant-pool reference, a float's bits. A value of any other shape
// (array, string, struct) is skipped and reads as 0.
func num(r *reader, f *field, depth int) (uint64, error) {
	if f.array || !f.cp && (f.cls == nil || f.cls.kind == kStruct || f.cls.kind == kString) {
		return 0, skipField(r, f, depth)
	}
	if f.cp {
		return r.varlong()
	}
	switch f.cls.kind {
	case kBool, kByte:
		b, err := r.u8()
		return uint64(b), err
	case kFloat:
		if r.left() < 4 {
			return 0, errShort
		}
		v := binary.BigEndian.Uint32(r.b[r.pos:])
		r.pos += 4
		return uint64(v), nil
	case kDouble:
		if r.left() < 8 {
			return 0, errShort
		}
		v := binary.BigEndian.Uint64(r.b[r.pos:])
		r.pos += 8
		return v, nil
	}
	return r.varlong()
}

// readMetadata reads the metadata event at off: its string table and its
// tree of elements, keeping the classes and their fields.
func readMetadata(chunk []byte, off int) (*meta, error) {
	r := newReader(chunk, off)
	size, err := r.varlong()
	if err != nil {
		return nil, err
	}
	if size < 2 || size > uint64(len(chunk)-off) {
		return nil, fmt.Errorf("metadata event size %d at byte %d does not fit the chunk", size, off)
	}
	r.end = off + int(size)
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
	ms := &metaStrings{s: make([]string, n), code: make([]uint8, n)}
	for i := range ms.s {
		if ms.s[i], err = r.strView(); err != nil {
			return nil, err
		}
		ms.code[i] = stringCode(ms.s[i])
	}
	m := &meta{classes: map[uint64]*class{}, tm: newTypeMap()}
	if err := m.element(r, ms, 0, nil); err != nil {
		return nil, err
	}
	m.resolve()
	return m, nil
}

// resolve points every field at its class and gives each class its role.
func (m *meta) resolve() {
	var top uint64
	for id := range m.classes {
		if id < denseClasses && id >= top {
			top = id + 1
		}
	}
	m.dense = make([]*class, top)
	for id, c := range m.classes {
		if id < top {
			m.dense[id] = c
		}
		for i := range c.fields {
			c.fields[i].cls = m.classes[c.fields[i].typ]
		}
		if id > 1 && len(c.name) > 4 && (c.name[:4] == "jdk." || c.name[:4] == "prof") {
			if ownEvents[c.name] != 0 {
				c.role = roleOwn
			}
			switch c.name {
			case "profiler.WallClockSample":
				m.wallClock = c
			case "jdk.NativeMethodSample":
				m.nativeMethod = c
			}
		}
	}
	for _, c := range m.classes {
		c.ops = simpleOps(c)
	}
	for k, c := range m.lib {
		if c != nil && m.classes[c.id] == c {
			c.lib, c.role = libKind(k), roleLibrary
		}
	}
}

// Codes of the metadata strings pprofx looks for.
const (
	sOther = iota
	sClass
	sField
	sID
	sName
	sConstantPool
	sDimension
	sSuperType
	sEvent
)

// metaStrings is the metadata's string table, each string with its code.
type metaStrings struct {
	s    []string
	code []uint8
}

// at reads a string index and returns its string and code.
func (ms *metaStrings) at(r *reader) (string, uint8, error) {
	i, err := r.varlong()
	if err != nil {
		return "", 0, err
	}
	if i >= uint64(len(ms.s)) {
		return "", 0, fmt.Errorf("metadata string index %d out of range at byte %d", i, r.pos)
	}
	return ms.s[i], ms.code[i], nil
}

// element reads one element of the metadata tree and its children. parent
// is the class a "field" element belongs to.
func (m *meta) element(r *reader, ms *metaStrings, depth int, parent *class) error {
	if depth > 16 {
		return fmt.Errorf("metadata elements nest deeper than 16 at byte %d", r.pos)
	}
	_, name, err := ms.at(r)
	if err != nil {
		return err
	}
	na, err := r.count("metadata attribute", 2)
	if err != nil {
		return err
	}
	// The attributes pprofx uses; a later one of the same key wins.
	var aID, aName, aClass, aCP, aDim string
	event := false // a class whose superType is jdk.jfr.Event
	for i := 0; i < na; i++ {
		_, k, err := ms.at(r)
		if err != nil {
			return err
		}
		v, vc, err := ms.at(r)
		if err != nil {
			return err
		}
		switch k {
		case sSuperType:
			event = vc == sEvent
		case sID:
			aID = v
		case sName:
			aName = v
		case sClass: // a field's class
			aClass = v
		case sConstantPool:
			aCP = v
		case sDimension:
			aDim = v
		}
	}
	var c *class
	var children *[]field
	switch name {
	case sClass:
		id, ok := parseUint(aID)
		if !ok {
			return fmt.Errorf("metadata class %q has no id", aName)
		}
		c = &class{id: id, name: aName, kind: primitiveKind(aName)}
		m.classes[id] = c
		// An event type no one reads keeps no fields: its events are
		// skipped by their size.
		if !event || libraryEvents[aName] != lNone || ownEvents[aName] != 0 {
			children = &c.fields
		}
		if t := typeSlot(&m.tm, aName); t != nil {
			*t = def.TypeID(id)
			if k := libraryEvents[aName]; k != lNone {
				m.lib[k] = c
			}
		}
	case sField:
		if parent != nil {
			t, ok := parseUint(aClass)
			if !ok {
				return fmt.Errorf("metadata field %q of %s has no class", aName, parent.name)
			}
			parent.fields = append(parent.fields, field{name: aName, typ: t, cp: aCP == "true", array: aDim == "1"})
		}
	}
	nc, err := r.count("metadata element", 3)
	if err != nil {
		return err
	}
	if children != nil {
		*children = make([]field, 0, nc)
	} else {
		c = nil
	}
	for i := 0; i < nc; i++ {
		if err := m.element(r, ms, depth+1, c); err != nil {
			return err
		}
	}
	return nil
}

// primitiveKind returns the kind of a class by its name: kStruct for all
// but the primitive types and java.lang.String.
func primitiveKind(name string) int {
	if len(name) > 16 {
		return kStruct
	}
	switch name {
	case "boolean":
		return kBool
	case "byte":
		return kByte
	case "char":
		return kChar
	case "short":
		return kShort
	case "int":
		return kInt
	case "long":
		return kLong
	case "float":
		return kFloat
	case "double":
		return kDouble
	case "java.lang.String":
		return kString
	}
	return kStruct
}

// stringCode returns the code of a metadata string.
func stringCode(s string) uint8 {
	switch s {
	case "class": // an element's name, and a field's attribute
		return sClass
	case "field":
		return sField
	case "id":
		return sID
	case "name":
		return sName
	case "constantPool":
		return sConstantPool
	case "dimension":
		return sDimension
	case "superType":
		return sSuperType
	case "jdk.jfr.Event":
		return sEvent
	}
	return sOther
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
