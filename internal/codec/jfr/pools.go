package jfr

import "fmt"

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
	hidden     bool
}

// pools is what pprofx keeps of a chunk's constant pools beyond what
// jfr-parser keeps.
type pools struct {
	stacks     map[uint64][]frame
	truncated  map[uint64]bool
	methods    map[uint64]method
	frameTypes map[uint64]string
	symbols    map[uint64]string
}

// readPools walks the chain of checkpoint events from the chunk header's
// constant-pool offset, reading every pool (which checks its counts and
// strings) and keeping stack traces, methods, frame types and symbols.
func readPools(m *meta, chunk []byte, off int) (*pools, error) {
	ps := &pools{stacks: map[uint64][]frame{}, truncated: map[uint64]bool{}, methods: map[uint64]method{}, frameTypes: map[uint64]string{}, symbols: map[uint64]string{}}
	seen := map[int]bool{}
	for {
		if off < chunkHeaderSize || off >= len(chunk) || seen[off] {
			return nil, fmt.Errorf("constant pool at byte %d: outside the chunk or visited twice", off)
		}
		seen[off] = true
		r := &reader{b: chunk, pos: off}
		size, err := r.varlong()
		if err != nil {
			return nil, err
		}
		if size < 2 || size > uint64(len(chunk)-off) {
			return nil, fmt.Errorf("constant pool event size %d at byte %d does not fit the chunk", size, off)
		}
		r.b = chunk[:off+int(size)]
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
			if err := ps.readPool(m, r); err != nil {
				return nil, err
			}
		}
		if delta == 0 {
			return ps, nil
		}
		off += int(int64(delta))
	}
}

func (ps *pools) readPool(m *meta, r *reader) error {
	typ, err := r.varlong()
	if err != nil {
		return err
	}
	c := m.classes[typ]
	if c == nil {
		return fmt.Errorf("constant pool of unknown type %d at byte %d", typ, r.pos)
	}
	n, err := r.count(c.name+" constant", 2)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		id, err := r.varlong()
		if err != nil {
			return err
		}
		v, err := m.read(r, typ, false, false, 0)
		if err != nil {
			return fmt.Errorf("%s %d: %w", c.name, id, err)
		}
		switch c.name {
		case "jdk.types.StackTrace":
			ps.stackTrace(m, c, id, v)
		case "jdk.types.Method":
			ps.method(c, id, v)
		case "jdk.types.FrameType":
			if j := c.fieldIndex("description"); j >= 0 {
				ps.frameTypes[id] = v.sub[j].s
			}
		case "jdk.types.Symbol":
			if j := c.fieldIndex("string"); j >= 0 {
				ps.symbols[id] = v.sub[j].s
			}
		}
	}
	return nil
}

func (ps *pools) stackTrace(m *meta, c *class, id uint64, v value) {
	if j := c.fieldIndex("truncated"); j >= 0 {
		ps.truncated[id] = v.sub[j].n != 0
	}
	j := c.fieldIndex("frames")
	if j < 0 {
		ps.stacks[id] = nil
		return
	}
	fc := m.classes[c.fields[j].typ]
	if fc == nil || c.fields[j].cp {
		ps.stacks[id] = nil
		return
	}
	im, il, ib, it := fc.fieldIndex("method"), fc.fieldIndex("lineNumber"), fc.fieldIndex("bytecodeIndex"), fc.fieldIndex("type")
	frames := make([]frame, len(v.sub[j].sub))
	for k, fv := range v.sub[j].sub {
		f := &frames[k]
		if im >= 0 {
			f.method = fv.sub[im].n
		}
		if il >= 0 {
			f.line = int64(int32(fv.sub[il].n))
		}
		if ib >= 0 {
			f.bci = int64(int32(fv.sub[ib].n))
		}
		if it >= 0 {
			f.typ = fv.sub[it].n
		}
	}
	ps.stacks[id] = frames
}

func (ps *pools) method(c *class, id uint64, v value) {
	var md method
	if j := c.fieldIndex("type"); j >= 0 {
		md.class = v.sub[j].n
	}
	if j := c.fieldIndex("name"); j >= 0 {
		md.name = v.sub[j].n
	}
	if j := c.fieldIndex("descriptor"); j >= 0 {
		md.descriptor = v.sub[j].n
	}
	if j := c.fieldIndex("hidden"); j >= 0 {
		md.hidden = v.sub[j].n != 0
	}
	ps.methods[id] = md
}
