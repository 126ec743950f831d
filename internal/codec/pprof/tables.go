// The decoder of profile.proto's messages: value types, mappings,
// functions, locations, lines, samples and label sets.

package pprof

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/model"
)

// A table of many short strings (more than internMin entries of less than
// internBelow bytes each on average) is interned: equal strings are kept
// once, and d.strRemap maps the input's indices to the profile's. A
// string header takes 16 bytes, so 10M empty strings (2 bytes each in the
// input) would otherwise take 8 times the input; interned, they take one
// string and 4 bytes of remap each, which is dropped after decoding.
// Tables of real profiles (tens of bytes a string, all distinct, as every
// known writer dedups) are kept as they are, index for index.
func (d *decoder) buildStrings(n, total int) {
	if n > internMin && total < internBelow*n && d.internStrings(n) {
		return
	}
	if d.owned {
		d.p.Strings = make([]string, 0, n)
		d.topLevel(func(g *field) error {
			if g.num == fStringTable {
				d.p.Strings = append(d.p.Strings, unsafe.String(unsafe.SliceData(g.b), len(g.b)))
			}
			return nil
		})
		return
	}
	// One allocation for every string: each is a slice of this one.
	all := make([]byte, 0, total)
	d.p.Strings = make([]string, 0, n)
	d.topLevel(func(g *field) error { // fields were checked by pass 0
		if g.num == fStringTable {
			all = append(all, g.b...)
		}
		return nil
	})
	s := unsafe.String(unsafe.SliceData(all), len(all))
	pos := 0
	d.topLevel(func(g *field) error {
		if g.num == fStringTable {
			d.p.Strings = append(d.p.Strings, s[pos:pos+len(g.b)])
			pos += len(g.b)
		}
		return nil
	})
}

const (
	internMin   = 1 << 16
	internBelow = 8
)

// errDistinct stops interning a table whose strings are mostly distinct.
var errDistinct = errors.New("mostly distinct")

// internStrings builds an interned string table (see buildStrings). It
// gives up, and reports false, once more than a quarter of the strings
// were distinct: interning would then cost more than it saves.
func (d *decoder) internStrings(n int) bool {
	d.strRemap = make([]int32, 0, n)
	seen := make(map[string]int32)
	err := d.topLevel(func(g *field) error {
		if g.num != fStringTable {
			return nil
		}
		if len(seen) > n/4 {
			return errDistinct
		}
		key := unsafe.String(unsafe.SliceData(g.b), len(g.b)) // a lookup only
		i, ok := seen[key]
		if !ok {
			s := string(g.b)
			if d.owned {
				s = key
			}
			i = int32(len(d.p.Strings))
			d.p.Strings = append(d.p.Strings, s)
			seen[s] = i
		}
		d.strRemap = append(d.strRemap, i)
		return nil
	})
	if err != nil {
		d.strRemap, d.p.Strings = nil, nil
		return false
	}
	return true
}

func (d *decoder) valueType(f *field) (model.ValueType, error) {
	var vt model.ValueType
	err := d.each(f.b, f.next-len(f.b), func(gv field) error {
		g := &gv
		var err error
		switch g.num {
		case 1:
			vt.Type, err = d.strIdx(g)
		case 2:
			vt.Unit, err = d.strIdx(g)
		}
		return err
	})
	return vt, err
}

func (d *decoder) mapping(f *field) error {
	var m model.Mapping
	var id uint64
	err := d.each(f.b, f.next-len(f.b), func(gv field) error {
		g := &gv
		var err error
		switch g.num {
		case 1:
			err, id = d.wantVarint(g), g.v
		case 2:
			err, m.Start = d.wantVarint(g), g.v
		case 3:
			err, m.Limit = d.wantVarint(g), g.v
		case 4:
			err, m.Offset = d.wantVarint(g), g.v
		case 5:
			m.File, err = d.strIdx(g)
		case 6:
			m.BuildID, err = d.strIdx(g)
		case 7:
			err, m.HasFunctions = d.wantVarint(g), g.v != 0
		case 8:
			err, m.HasFilenames = d.wantVarint(g), g.v != 0
		case 9:
			err, m.HasLineNumbers = d.wantVarint(g), g.v != 0
		case 10:
			err, m.HasInlineFrames = d.wantVarint(g), g.v != 0
		}
		return err
	})
	if err != nil {
		return err
	}
	d.p.Mappings = append(d.p.Mappings, m)
	d.mapIdx.ids = append(d.mapIdx.ids, id)
	return nil
}

func (d *decoder) function(f *field) error {
	var fn model.Function
	var id uint64
	err := d.each(f.b, f.next-len(f.b), func(gv field) error {
		g := &gv
		var err error
		switch g.num {
		case 1:
			err, id = d.wantVarint(g), g.v
		case 2:
			fn.Name, err = d.strIdx(g)
		case 3:
			fn.SystemName, err = d.strIdx(g)
		case 4:
			fn.Filename, err = d.strIdx(g)
		case 5:
			err, fn.StartLine = d.wantVarint(g), int64(g.v)
		}
		return err
	})
	if err != nil {
		return err
	}
	d.p.Functions = append(d.p.Functions, fn)
	d.fnIdx.ids = append(d.fnIdx.ids, id)
	return nil
}

func (d *decoder) location(f *field) error {
	loc := model.Location{Mapping: model.NoMapping}
	var id uint64
	buf, base := f.b, f.next-len(f.b)
	// Lines go straight into the profile's table, contiguous per location.
	first := len(d.p.Lines)
	var g field
	for pos := 0; pos < len(buf); pos = g.next - base {
		if err := d.scan(buf, pos, base, &g); err != nil {
			return err
		}
		var err error
		switch g.num {
		case 1:
			err, id = d.wantVarint(&g), g.v
		case 2:
			if err = d.wantVarint(&g); err == nil && g.v != 0 {
				i, ok := d.mapIdx.lookup(g.v)
				if !ok {
					return &decodeError{g.off, fmt.Sprintf("location[%d]: mapping id %d not found", len(d.p.Locations), g.v)}
				}
				loc.Mapping = i
			}
		case 3:
			err, loc.Address = d.wantVarint(&g), g.v
		case 4:
			if err = d.wantBytes(&g); err != nil {
				return err
			}
			ln, col, err := d.line(&g)
			if err != nil {
				return err
			}
			d.addLine(ln, col)
		case 5:
			err, loc.IsFolded = d.wantVarint(&g), g.v != 0
		}
		if err != nil {
			return err
		}
	}
	if n := len(d.p.Lines); n > first {
		loc.FirstLine, loc.NumLines = uint32(first), uint32(n-first)
	}
	d.p.Locations = append(d.p.Locations, loc)
	d.locIdx.ids = append(d.locIdx.ids, id)
	return nil
}

// addLine appends ln, at column col, to the profile's table of lines. A
// table that is full (inlined frames) grows by as many lines a location
// as it holds so far, and one more, for each location left.
func (d *decoder) addLine(ln model.Line, col int64) {
	p := d.p
	if len(p.Lines) == cap(p.Lines) {
		n := len(p.Lines)
		more := (n/max(len(p.Locations), 1) + 1) * max(d.locsLeft, 1)
		p.Lines = append(make([]model.Line, 0, n+more+16), p.Lines...)
	}
	p.Lines = append(p.Lines, ln)
	p.SetColumn(uint32(len(p.Lines)-1), col)
}

// line reads a Line message: the model's line and its column.
func (d *decoder) line(f *field) (ln model.Line, col int64, err error) {
	ln = model.Line{Function: model.NoFunction}
	buf, base := f.b, f.next-len(f.b)
	var g field
	for pos := 0; pos < len(buf); pos = g.next - base {
		if err := d.scan(buf, pos, base, &g); err != nil {
			return ln, 0, err
		}
		var err error
		switch g.num {
		case 1:
			if err = d.wantVarint(&g); err == nil && g.v != 0 {
				i, ok := d.fnIdx.lookup(g.v)
				if !ok {
					return ln, 0, &decodeError{g.off, fmt.Sprintf("location[%d].line: function id %d not found", len(d.p.Locations), g.v)}
				}
				ln.Function = i
			}
		case 2:
			err, ln.Line = d.wantVarint(&g), int64(g.v)
		case 3:
			err, col = d.wantVarint(&g), int64(g.v)
		}
		if err != nil {
			return ln, 0, err
		}
	}
	return ln, col, nil
}

func (d *decoder) sample(f *field, stacks, labelSets map[string]int32) error {
	p := d.p
	d.sampleBytesLeft -= len(f.b)
	s := model.Sample{Link: model.NoLink}
	base := f.next - len(f.b)
	nTypes := len(p.SampleTypes)
	// The stack's key is the packed location ids as they are on the wire
	// when the writer packed them in one field (as every known writer does);
	// otherwise they are re-encoded into d.key.
	var stackKey []byte
	nLocFields, nLabels := 0, 0
	var labelsStart, labelsEnd int = -1, -1
	vals := d.values.take(nTypes)[:0]
	var g field
	for pos := 0; pos < len(f.b); pos = g.next - base {
		if err := d.scan(f.b, pos, base, &g); err != nil {
			return err
		}
		switch g.num {
		case 1:
			nLocFields++
			if g.typ == protowire.BytesType && nLocFields == 1 {
				stackKey = g.b
				continue
			}
			if nLocFields == 2 && stackKey != nil {
				d.key = append(d.key[:0], stackKey...)
			} else if nLocFields == 1 {
				d.key = d.key[:0]
			}
			stackKey = nil
			if err := d.varints(&g, func(v uint64) { d.key = protowire.AppendVarint(d.key, v) }); err != nil {
				return err
			}
		case 2:
			if g.typ != protowire.BytesType {
				if err := d.wantVarint(&g); err != nil {
					return err
				}
				vals = append(vals, int64(g.v))
				continue
			}
			for b := g.b; len(b) > 0; {
				if b[0] < 0x80 {
					vals = append(vals, int64(b[0]))
					b = b[1:]
					continue
				}
				v, n := protowire.ConsumeVarint(b)
				if n < 0 {
					return &decodeError{d.offsetOf(b), "field 2: bad packed varint"}
				}
				vals = append(vals, int64(v))
				b = b[n:]
			}
		case 3:
			if err := d.wantBytes(&g); err != nil {
				return err
			}
			if labelsStart < 0 {
				labelsStart = g.off - base
			}
			labelsEnd = g.next - base
			nLabels++
		}
	}
	if len(vals) != nTypes {
		return &decodeError{f.off, fmt.Sprintf("sample[%d]: %d values for %d sample types", len(p.Samples), len(vals), nTypes)}
	}
	s.SetValues(vals)
	if stackKey == nil && nLocFields > 0 {
		stackKey = d.key
	}
	idx, ok := stacks[string(stackKey)]
	if !ok {
		// Every id ends in a byte below 0x80: room for exactly that many
		// frames is made before any is added.
		n := 0
		for _, c := range stackKey {
			if c < 0x80 {
				n++
			}
		}
		st := &p.Stacks
		nf := st.NumFrames()
		if nf+n > math.MaxInt32 {
			return &decodeError{f.off, "too many stack frames"}
		}
		if st.FrameRoom() < n {
			// Room for this stack and a guess of the rest (no doubling: a
			// huge stack takes what it needs, not twice that).
			// The samples' location ids (maxFrames) bound it.
			st.Grow(0, min(n+d.sampleBytesLeft/2, max(d.maxFrames-nf, n)))
		}
		for b := stackKey; len(b) > 0; {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				st.DropStack()
				return &decodeError{f.off, fmt.Sprintf("sample[%d]: bad location id", len(p.Samples))}
			}
			b = b[n:]
			li, ok := d.locIdx.lookup(v)
			if !ok {
				st.DropStack()
				return &decodeError{f.off, fmt.Sprintf("sample[%d]: location id %d not found", len(p.Samples), v)}
			}
			st.AddFrame(li)
		}
		idx = st.EndStack()
		stacks[d.mapKey(stackKey)] = idx
	}
	s.Stack = idx
	if nLabels > 0 {
		// Labels fields of the sample, in order: when they are contiguous
		// their raw bytes are the label set's key.
		raw := f.b[labelsStart:labelsEnd]
		li, ok := labelSets[string(raw)]
		if !ok {
			var err error
			li, err = d.labelSet(f, base, nLabels)
			if err != nil {
				return err
			}
			labelSets[d.mapKey(raw)] = li
		}
		s.LabelSet = li
	}
	p.Samples = append(p.Samples, s)
	return nil
}

// labelSet decodes the labels of a sample into a new label set. Fields of
// other numbers between labels are skipped, so the set holds exactly the
// sample's labels whatever the key was built from.
func (d *decoder) labelSet(f *field, base, n int) (int32, error) {
	ls := make([]model.Label, 0, n)
	err := d.each(f.b, base, func(gv field) error {
		g := &gv
		if g.num != 3 {
			return nil
		}
		var l model.Label
		err := d.each(g.b, g.next-len(g.b), func(hv field) error {
			h := &hv
			var err error
			switch h.num {
			case 1:
				l.Key, err = d.strIdx(h)
			case 2:
				l.Str, err = d.strIdx(h)
			case 3:
				err, l.Num = d.wantVarint(h), int64(h.v)
			case 4:
				l.NumUnit, err = d.strIdx(h)
			}
			return err
		})
		ls = append(ls, l)
		return err
	})
	if err != nil {
		return 0, err
	}
	d.p.LabelSets = append(d.p.LabelSets, model.NewLabelSet(ls, nil))
	return int32(len(d.p.LabelSets) - 1), nil
}

// mapKey is b as a key of the maps that live while one input is decoded:
// bytes of the input itself are not copied (a stack of 100M location ids
// would be), anything else (d.key, reused) is.
func (d *decoder) mapKey(b []byte) string {
	if len(b) > 0 && len(d.data) > 0 {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(d.data)))
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if p >= start && p+uintptr(len(b)) <= start+uintptr(len(d.data)) {
			return unsafe.String(unsafe.SliceData(b), len(b))
		}
	}
	return string(b)
}
