// Package wirecheck checks an input's framing as its bytes arrive, before
// any of it is decoded, so that an input that goes wrong early (a valid
// start, then zeros; a length that claims more than --max-input-size
// allows) is refused at its first bad byte instead of after all of it was
// read into memory. Proto checks protobuf messages of a known schema
// (nested: it descends into every message field), JSON checks JSON syntax.
// Both are io.Readers that pass the bytes through unchanged and fail once
// the content is known bad; what they let through still goes to the
// format's decoder, which checks everything else.
//
// They refuse only what the decoders refuse too: a field of a known number
// with another wire type is an unknown field to protobuf, not an error,
// and is skipped as such.
package wirecheck

import (
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// maxDepth is protobuf-go's default recursion limit.
const maxDepth = 10000

// node is a message type, by what the checker needs: which of its fields
// hold a message to descend into.
type node struct {
	name string
	kids map[uint64]*node
	// cost is what one such message takes once the generated code has
	// parsed it: its struct and its pointer in the parent's slice.
	cost int64
	// lists are its fields whose LEN values become a Go slice or string
	// (strings, bytes, packed fixed-size numbers), by number: what one
	// byte of them takes (1).
	lists map[uint64]int64
	// varints are its packed varint fields, by number: what one number
	// takes (4 for 32-bit kinds, 8 for 64-bit ones, 1 for bool). Their
	// numbers are counted as the bytes go by: a number's last byte is
	// below 0x80.
	varints map[uint64]int64
}

// schemas holds the compiled schemas, by message name.
var schemas sync.Map // protoreflect.FullName -> *node

func compiled(md protoreflect.MessageDescriptor) *node {
	if n, ok := schemas.Load(md.FullName()); ok {
		return n.(*node)
	}
	n := compile(md, map[protoreflect.FullName]*node{})
	schemas.Store(md.FullName(), n)
	return n
}

// compile turns md into nodes, one per message type (the types are
// recursive: AnyValue holds arrays of AnyValue).
func compile(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]*node) *node {
	if n, ok := seen[md.FullName()]; ok {
		return n
	}
	n := &node{name: string(md.Name()), kids: map[uint64]*node{}, lists: map[uint64]int64{}, varints: map[uint64]int64{}, cost: 64 + 16}
	if mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName()); err == nil {
		n.cost = int64(reflect.TypeOf(mt.New().Interface()).Elem().Size()) + 16
	}
	seen[md.FullName()] = n
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		switch {
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			n.kids[uint64(fd.Number())] = compile(fd.Message(), seen)
		case fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.BytesKind:
			n.lists[uint64(fd.Number())] = 1
		case fd.IsList():
			switch fd.Kind() {
			case protoreflect.BoolKind:
				n.varints[uint64(fd.Number())] = 1
			case protoreflect.EnumKind, protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Uint32Kind:
				n.varints[uint64(fd.Number())] = 4
			case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Uint64Kind:
				n.varints[uint64(fd.Number())] = 8
			default: // fixed-size: its bytes are its numbers'
				n.lists[uint64(fd.Number())] = 1
			}
		}
	}
	return n
}

// frame is a message being read: it ends at byte end (-1: at the end of
// the stream or of its 4-byte frame), or at the end-group tag of group.
type frame struct {
	n     *node // nil inside an unknown group
	end   int64
	group uint64
}

const (
	stTag = iota
	stVarint
	stLen
	stSkip
	stFrameLen // the 4-byte length of a framed message
)

// schemaState follows the stream under one schema.
type schemaState struct {
	root  *node
	stack []frame
	state int
	// fieldAt is where the field being read started; num its number.
	fieldAt int64
	num     uint64
	v       uint64 // varint being read
	shift   uint
	skip    int64 // bytes left of a value being skipped
	// perVarint is what each number of the packed varint field being
	// skipped takes (0: the value is not one).
	perVarint int64
	err       error
	// need is what the messages so far take once parsed (see node.cost).
	need int64
}

// Proto passes a stream of protobuf messages through and checks their
// framing under one or more schemas: tags (field number 0, wire types 6
// and 7, unmatched groups), varints (longer than 10 bytes), and lengths
// (past the end of the message they are in, or past the limit). A stream
// that fits any of the schemas is let through; it fails when it fits none.
// With several schemas (an input that could be either of two dialects) the
// error is the one of the schema that read furthest.
type Proto struct {
	r           io.Reader
	limit       int64
	name        string
	framed      int // 0: not known yet (the first byte tells), 1: framed, -1: not
	allowFramed bool
	schemas     []*schemaState
	off         int64
	frameEnd    int64   // the end of the current 4-byte frame; -1 outside one
	fl          [4]byte // the frame length being read
	fln         int
	err         error
}

// NewProto checks r as one message of type md (or of any of others, see
// Proto) of at most limit bytes (0: no limit); errors start with name
// ("otlp"). With framed, a stream whose first byte is below 8 is read as
// the OpenTelemetry Collector's file exporter writes messages: each after
// its length, 4 bytes big-endian, the first under 128 MiB (a message
// never starts so: no tag has the field number 0).
func NewProto(r io.Reader, limit int64, name string, framed bool, md protoreflect.MessageDescriptor, others ...protoreflect.MessageDescriptor) *Proto {
	p := &Proto{r: r, limit: limit, name: name, allowFramed: framed, frameEnd: -1}
	for _, d := range append([]protoreflect.MessageDescriptor{md}, others...) {
		root := compiled(d)
		p.schemas = append(p.schemas, &schemaState{root: root, stack: []frame{{n: root, end: -1}}})
	}
	if !framed {
		p.framed = -1
	}
	return p
}

// Need estimates what the messages read so far take in memory once the
// generated code has parsed them (under the first schema): every
// message's struct, string, bytes and repeated number. The caller checks
// it against the input's size (model.CheckMemory) before parsing.
func (p *Proto) Need() int64 {
	s := p.schemas[0]
	if p.framed != 1 {
		return s.need + s.root.cost
	}
	return s.need
}

func (p *Proto) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.r.Read(b)
	if e := p.check(b[:n]); e != nil {
		p.err = e
		return 0, e
	}
	return n, err
}

func (p *Proto) errorf(at int64, format string, args ...any) error {
	return fmt.Errorf("%s: byte %d: %s", p.name, at, fmt.Sprintf(format, args...))
}

// room is how many bytes may still follow offset off: to the end of the
// frame, else to the limit; -1 when unbounded.
func (p *Proto) room(off int64) int64 {
	if p.frameEnd >= 0 {
		return p.frameEnd - off
	}
	if p.limit > 0 {
		return p.limit - off
	}
	return -1
}

func (p *Proto) check(b []byte) error {
	for len(b) > 0 {
		if p.framed == 0 {
			p.framed = -1
			if b[0] < 8 { // a length under 128 MiB: no tag starts so
				p.framed = 1
			}
		}
		if p.framed == 1 && p.frameEnd < 0 {
			// The 4-byte length of the next message.
			k := copy(p.fl[p.fln:], b)
			p.fln += k
			b = b[k:]
			p.off += int64(k)
			if p.fln < 4 {
				return nil
			}
			p.fln = 0
			n := int64(binary.BigEndian.Uint32(p.fl[:]))
			if p.limit > 0 && p.off+n > p.limit {
				return p.errorf(p.off-4, "a framed message of %d bytes, past the limit of %d bytes (--max-input-size)", n, p.limit)
			}
			p.frameEnd = p.off + n
			for _, s := range p.schemas {
				s.need += s.root.cost + 32 // and the frame's place in two slices
				s.stack = append(s.stack[:0], frame{n: s.root, end: p.frameEnd})
				s.state = stTag
			}
			continue
		}
		// Within one message (or the one frame): up to its end.
		k := len(b)
		if p.frameEnd >= 0 && int64(k) > p.frameEnd-p.off {
			k = int(p.frameEnd - p.off)
		}
		for _, s := range p.schemas {
			if s.err == nil {
				s.err = p.scan(s, b[:k])
			}
		}
		if err := p.dead(); err != nil {
			return err
		}
		b = b[k:]
		p.off += int64(k)
		if p.frameEnd >= 0 && p.off == p.frameEnd {
			for _, s := range p.schemas {
				if s.err != nil {
					continue
				}
				fail := func(format string, args ...any) error {
					return &posError{p.errorf(s.fieldAt, format, args...), s.fieldAt}
				}
				if s.err = settle(s, p.off, fail); s.err == nil && (s.state != stTag || s.shift != 0 || len(s.stack) != 1) {
					s.err = fail("a field runs past the end of its framed message")
				}
			}
			p.frameEnd = -1
			if err := p.dead(); err != nil {
				return err
			}
		}
	}
	return nil
}

// dead returns an error when no schema fits the stream: the one of the
// schema that read furthest.
func (p *Proto) dead() error {
	var first error
	var firstAt int64 = -1
	for _, s := range p.schemas {
		if s.err == nil {
			return nil
		}
		if at := errAt(s.err); at > firstAt {
			first, firstAt = s.err, at
		}
	}
	return first
}

// posError is an error at a byte offset: the schema whose error comes last
// read furthest.
type posError struct {
	err error
	at  int64
}

func (e *posError) Error() string { return e.err.Error() }

func errAt(err error) int64 {
	if pe, ok := err.(*posError); ok {
		return pe.at
	}
	return 0
}

// scan follows b, which starts at p.off, under schema s.
func (p *Proto) scan(s *schemaState, b []byte) error {
	off := p.off
	fail := func(format string, args ...any) error {
		return &posError{p.errorf(s.fieldAt, format, args...), s.fieldAt}
	}
	for i := 0; i < len(b); {
		top := &s.stack[len(s.stack)-1]
		if s.state == stSkip {
			k := min(s.skip, int64(len(b)-i))
			if s.perVarint > 0 {
				s.need += s.perVarint * int64(varintEnds(b[i:i+int(k)]))
			}
			s.skip -= k
			i += int(k)
			off += k
			if s.skip == 0 {
				s.state, s.perVarint = stTag, 0
			}
			continue
		}
		if s.state == stTag && s.shift == 0 {
			if err := settle(s, off, fail); err != nil {
				return err
			}
			top = &s.stack[len(s.stack)-1]
			s.fieldAt = off
		}
		x := b[i]
		i++
		off++
		if top.end >= 0 && off > top.end {
			return fail("a field runs past the end of its message")
		}
		if s.shift == 63 && x > 1 || s.shift > 63 {
			return fail("varint overflows 64 bits")
		}
		s.v |= uint64(x&0x7f) << s.shift
		s.shift += 7
		if x >= 0x80 {
			continue
		}
		v := s.v
		s.v, s.shift = 0, 0
		switch s.state {
		case stTag:
			num, typ := v>>3, v&7
			if num == 0 || num > 1<<29-1 {
				return fail("bad field tag (field number %d)", num)
			}
			s.num = num
			switch typ {
			case 0:
				s.state = stVarint
			case 1:
				s.state, s.skip = stSkip, 8
			case 2:
				s.state = stLen
			case 3: // start group: an unknown field to every schema here
				if len(s.stack) >= maxDepth {
					return fail("messages nested too deep")
				}
				s.stack = append(s.stack, frame{end: top.end, group: num})
			case 4:
				if top.group != num {
					return fail("end of group %d that was not started", num)
				}
				s.stack = s.stack[:len(s.stack)-1]
			case 5:
				s.state, s.skip = stSkip, 4
			default:
				return fail("field %d: bad wire type %d", num, typ)
			}
			if s.state == stSkip {
				if err := p.within(s, off, s.skip, fail); err != nil {
					return err
				}
			}
		case stVarint:
			s.state = stTag
		case stLen:
			if v > 1<<62 {
				return fail("field %d: a length of %d bytes", s.num, v)
			}
			if err := p.within(s, off, int64(v), fail); err != nil {
				return err
			}
			s.state, s.skip, s.perVarint = stSkip, int64(v), 0
			if top.n != nil {
				if per, ok := top.n.lists[s.num]; ok {
					s.need += 24 + per*int64(v)
				} else if per, ok := top.n.varints[s.num]; ok {
					s.need += 24
					s.perVarint = per
				} else if top.n.kids[s.num] == nil {
					s.need += int64(v) // an unknown field, kept as bytes
				}
			}
			if kid := top.n.kid(s.num); kid != nil && top.group == 0 {
				if len(s.stack) >= maxDepth {
					return fail("messages nested too deep")
				}
				s.stack = append(s.stack, frame{n: kid, end: off + int64(v)})
				s.state = stTag
				s.need += kid.cost
			} else if v == 0 {
				s.state = stTag
			}
		}
	}
	return nil
}

// settle ends the messages that end at off: one or more of them may.
func settle(s *schemaState, off int64, fail func(string, ...any) error) error {
	for len(s.stack) > 1 {
		top := s.stack[len(s.stack)-1]
		if top.end < 0 || off != top.end {
			return nil
		}
		if top.group != 0 {
			return fail("group %d not ended before the end of its message", top.group)
		}
		s.stack = s.stack[:len(s.stack)-1]
	}
	return nil
}

// within checks that n bytes from off fit the message being read and the
// limit.
func (p *Proto) within(s *schemaState, off, n int64, fail func(string, ...any) error) error {
	top := s.stack[len(s.stack)-1]
	room := p.room(off)
	if (top.end < 0 || n <= top.end-off) && (room < 0 || n <= room) {
		return nil
	}
	what := "field " + fmt.Sprint(s.num)
	if top.n != nil {
		what = top.n.name + " field " + fmt.Sprint(s.num)
	}
	switch {
	case top.end >= 0 && n > top.end-off:
		return fail("%s: %d bytes, past the end of its message (%d bytes left)", what, n, top.end-off)
	case p.frameEnd >= 0:
		return fail("%s: %d bytes, past the end of its framed message", what, n)
	}
	return fail("%s: %d bytes, past the limit of %d bytes (--max-input-size)", what, n, p.limit)
}

func (n *node) kid(num uint64) *node {
	if n == nil {
		return nil
	}
	return n.kids[num]
}

// varintEnds counts the bytes of b that end a varint (below 0x80).
func varintEnds(b []byte) int {
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}
