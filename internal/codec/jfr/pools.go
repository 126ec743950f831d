package jfr

import (
	"fmt"
	"slices"
)

// frame is one jdk.types.StackFrame.
type frame struct {
	method uint64 // jdk.types.Method id
	line   int64
	bci    int64
	typ    uint64 // jdk.types.FrameType id
}

// method is one jdk.types.Method.
type method struct {
	class      uint64 // java.lang.Class id
	name       uint64 // jdk.types.Symbol id
	descriptor uint64 // jdk.types.Symbol id
}

// pools is what pprofx keeps of a chunk's constant pools beyond what
// jfr-parser keeps: where each stack trace is (its frames' types and
// bytecode indexes are read when a sample first refers to it), methods
// with their descriptors, and frame types. Every other constant is only
// checked.
type pools struct {
	chunk      []byte
	stackClass *class
	stacks     map[uint64]int // byte offset of the stack trace's value
	frameCount int            // frames of all stack traces
	maxStackID uint64         // the largest stack trace id
	frames     []frame        // the frames of the trace read last
	frameClass *class         // jdk.types.StackFrame
	frameRoles []uint8        // per field of frameClass
	methods    map[uint64]method
	frameTypes map[uint64]string
	inlined    []uint64 // the ids of the frame type "Inlined"
}

// isInlined says whether a frame of type id was inlined.
func (ps *pools) isInlined(id uint64) bool {
	for _, i := range ps.inlined {
		if i == id {
			return true
		}
	}
	return false
}

// readPools walks the chain of checkpoint events from the chunk header's
// constant-pool offset, checking every pool's counts and strings and
// keeping stack traces, methods and frame types; l reads the threads,
// classes and symbols once checked.
func readPools(m *meta, l *library, chunk []byte, off int) (*pools, error) {
	ps := &pools{chunk: chunk, stacks: map[uint64]int{}, methods: map[uint64]method{}, frameTypes: map[uint64]string{}}
	seen := map[int]bool{}
	for {
		if off < chunkHeaderSize || off >= len(chunk) || seen[off] {
			return nil, fmt.Errorf("constant pool at byte %d: outside the chunk or visited twice", off)
		}
		seen[off] = true
		r := newReader(chunk, off)
		size, err := r.varlong()
		if err != nil {
			return nil, err
		}
		if size < 2 || size > uint64(len(chunk)-off) {
			return nil, fmt.Errorf("constant pool event size %d at byte %d does not fit the chunk", size, off)
		}
		r.end = off + int(size)
		typ, err := r.varlong()
		if err != nil {
			return nil, err
		}
		if typ != 1 {
			return nil, fmt.Errorf("the constant pool offset %d points at an event of type %d, not 1", off, typ)
		}
		var delta uint64
		for i := 0; i < 3; i++ { // start time, duration, delta to the previous
			if delta, err = r.varlong(); err != nil {
				return nil, err
			}
		}
		if _, err := r.u8(); err != nil { // checkpoint kind
			return nil, err
		}
		n, err := r.count("constant pool", 2)
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			if err := ps.readPool(m, l, r); err != nil {
				return nil, err
			}
		}
		if delta == 0 {
			return ps, nil
		}
		off += int(int64(delta))
	}
}

func (ps *pools) readPool(m *meta, l *library, r *reader) error {
	typ, err := r.varlong()
	if err != nil {
		return err
	}
	c := m.class(typ)
	if c == nil {
		return fmt.Errorf("constant pool of unknown type %d at byte %d", typ, r.pos)
	}
	start := r.pos
	n, err := r.count(c.name+" constant", 2)
	if err != nil {
		return err
	}
	read := func(r *reader, c *class, id uint64) error { return skipClass(r, c, 0) }
	switch c.name {
	case "jdk.types.StackTrace":
		read = ps.stackTrace
		if len(ps.stacks) == 0 {
			ps.stacks = make(map[uint64]int, n)
		}
	case "jdk.types.Method":
		read = ps.method
		if len(ps.methods) == 0 {
			ps.methods = make(map[uint64]method, n)
		}
	case "jdk.types.FrameType":
		read = ps.frameType
	}
	for i := 0; i < n; i++ {
		id, err := r.varlong()
		if err != nil {
			return err
		}
		if err := read(r, c, id); err != nil {
			return fmt.Errorf("%s %d: %w", c.name, id, err)
		}
	}
	if _, err := l.pool(c, r.b[start:r.pos], n); err != nil {
		return fmt.Errorf("%s pool at byte %d: %w", c.name, start, err)
	}
	return nil
}

// stackTrace checks a stack trace and notes where it is, and how many
// frames it has.
func (ps *pools) stackTrace(r *reader, c *class, id uint64) error {
	ps.stackClass = c
	ps.stacks[id] = r.pos
	ps.maxStackID = max(ps.maxStackID, id)
	for i := range c.fields {
		f := &c.fields[i]
		if f.name == "frames" && f.array && !f.cp {
			at := r.pos
			n, err := r.count("array element", 1)
			if err != nil {
				return err
			}
			ps.frameCount += n
			r.pos = at
		}
		if err := skipField(r, f, 1); err != nil {
			return err
		}
	}
	return nil
}

// trace reads the stack trace of id into ps.frames (nil when the chunk
// has none of that id) and says whether it is truncated.
func (ps *pools) trace(id uint64) (frames []frame, truncated bool) {
	pos, ok := ps.stacks[id]
	if !ok {
		return nil, false
	}
	// Checked by readPools: this reads within the chunk.
	r := newReader(ps.chunk, pos)
	ps.frames = ps.frames[:0]
	for i := range ps.stackClass.fields {
		f := &ps.stackClass.fields[i]
		var err error
		switch {
		case f.name == "truncated":
			var v uint64
			v, err = num(r, f, 1)
			truncated = v != 0
		case f.name == "frames" && f.array && !f.cp && f.cls != nil && f.cls.kind == kStruct:
			err = ps.readFrames(r, f.cls)
		default:
			err = skipField(r, f, 1)
		}
		if err != nil {
			return nil, false
		}
	}
	return ps.frames, truncated
}

// What a field of jdk.types.StackFrame gives a frame.
const (
	fOther = iota
	fMethod
	fLine
	fBCI
	fType
)

// readFrames reads an array of jdk.types.StackFrame into ps.frames.
func (ps *pools) readFrames(r *reader, fc *class) error {
	n, err := r.count("array element", 1)
	if err != nil {
		return err
	}
	if ps.frameClass != fc {
		ps.frameClass = fc
		ps.frameRoles = make([]uint8, len(fc.fields))
		for i, f := range fc.fields {
			ps.frameRoles[i] = map[string]uint8{"method": fMethod, "lineNumber": fLine, "bytecodeIndex": fBCI, "type": fType}[f.name]
		}
	}
	first := len(ps.frames)
	ps.frames = slices.Grow(ps.frames, n)[:first+n]
	for k := first; k < first+n; k++ {
		fr := &ps.frames[k]
		*fr = frame{}
		for i, role := range ps.frameRoles {
			var v uint64
			switch {
			case fc.ops == nil:
				v, err = num(r, &fc.fields[i], 3)
			case fc.ops[i] == opByte:
				var b byte
				b, err = r.u8()
				v = uint64(b)
			default:
				v, err = r.varlong()
			}
			if err != nil {
				return err
			}
			switch role {
			case fMethod:
				fr.method = v
			case fLine:
				fr.line = int64(int32(v))
			case fBCI:
				fr.bci = int64(int32(v))
			case fType:
				fr.typ = v
			}
		}
	}
	return nil
}

func (ps *pools) method(r *reader, c *class, id uint64) error {
	var md method
	for i := range c.fields {
		f := &c.fields[i]
		v, err := num(r, f, 1)
		if err != nil {
			return err
		}
		switch f.name {
		case "type":
			md.class = v
		case "name":
			md.name = v
		case "descriptor":
			md.descriptor = v
		}
	}
	ps.methods[id] = md
	return nil
}

func (ps *pools) frameType(r *reader, c *class, id uint64) error {
	for i := range c.fields {
		f := &c.fields[i]
		if f.name == "description" && !f.array && !f.cp && f.cls != nil && f.cls.kind == kString {
			s, err := r.strView()
			if err != nil {
				return err
			}
			ps.frameTypes[id] = s
			if s == "Inlined" {
				ps.inlined = append(ps.inlined, id)
			}
			continue
		}
		if err := skipField(r, f, 1); err != nil {
			return err
		}
	}
	return nil
}
