package pprofextended

import (
	"fmt"
	"reflect"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"
	"github.com/pprofx/pprofx/internal/model"
)

// Samples are most of a profile, and the generated Sample struct takes a
// few hundred bytes for a sample that may take two on the wire. So the
// binary reader takes the samples out of the data before proto.Unmarshal
// sees it (stripSamples) and decodes them itself, straight into the model,
// from the original bytes (wireSamples). So it does with location_indices,
// the samples' stacks, which the generated code holds as 8 bytes an entry
// in a slice grown by doubling, and the reader as 4 (wireIndices). Everything else goes through the
// generated code, after its memory was estimated from the wire
// (wireMemory) and found to be what the input's size can justify.

// Field numbers on the path from ProfilesData to a Profile's samples.
const (
	fResourceProfiles = 1 // ProfilesData
	fScopeProfiles    = 2 // ResourceProfiles
	fProfiles         = 2 // ScopeProfiles
	fProfile          = 8 // ProfileContainer
	fSample           = 2 // Profile
)

// stripped is what stripSamples found.
type stripped struct {
	data []byte // the input without the samples of any Profile
	// bodies[c] lists the Profile message bodies of container c (a
	// container normally has one; protobuf merges several), as offsets into
	// the original data.
	bodies [][][2]int
	// samples[c] counts the samples of container c.
	samples []int
	// indices[c] lists the location_indices fields of container c's
	// Profile messages, in order, as offsets into the original data of
	// their values: a packed list, or one varint.
	indices [][]wireIndices
	// nindices counts the entries of every location_indices.
	nindices int
}

// wireIndices is one location_indices field as it is on the wire.
type wireIndices struct {
	start, end int
	packed     bool
}

// stripSamples rewrites a ProfilesData without the samples of its profiles.
// It fails on data that is not well-formed protobuf along that path.
func stripSamples(data []byte) (*stripped, error) {
	s := &stripped{}
	out, err := s.strip(data, 0, 0, nil)
	if err != nil {
		return nil, err
	}
	s.data = out
	return s, nil
}

// strip appends message b (at offset base of the data, at nesting level
// 0 ProfilesData .. 4 Profile) to out, without the samples.
func (s *stripped) strip(b []byte, base, level int, out []byte) ([]byte, error) {
	if level == 3 {
		s.bodies = append(s.bodies, nil)
		s.samples = append(s.samples, 0)
		s.indices = append(s.indices, nil)
	}
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return nil, fmt.Errorf("byte %d: bad field tag", base+off)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return nil, fmt.Errorf("byte %d: bad field %d: %v", base+off, num, protowire.ParseError(m))
		}
		field := b[off : off+n+m]
		var into bool
		if typ == protowire.BytesType {
			switch level {
			case 0:
				into = num == fResourceProfiles
			case 1:
				into = num == fScopeProfiles
			case 2:
				into = num == fProfiles
			case 3:
				into = num == fProfile
			case 4:
				if num == fSample {
					s.samples[len(s.samples)-1]++
					off += n + m
					continue
				}
			}
		}
		if level == 4 && num == fProfileLocationIndices && s.takeIndices(typ, b[off+n:off+n+m], base+off+n) {
			off += n + m
			continue
		}
		if !into {
			out = append(out, field...)
			off += n + m
			continue
		}
		body, hl := protowire.ConsumeBytes(b[off+n:])
		bodyOff := base + off + n + hl - len(body)
		if level == 3 {
			c := len(s.bodies) - 1
			s.bodies[c] = append(s.bodies[c], [2]int{bodyOff, bodyOff + len(body)})
		}
		// The child's stripped bytes go after a length prefix as long as the
		// original one, then move back if it shrank.
		out = protowire.AppendTag(out, num, typ)
		lenAt := len(out)
		out = append(out, make([]byte, hl-len(body))...)
		startLen := len(out)
		var err error
		if out, err = s.strip(body, bodyOff, level+1, out); err != nil {
			return nil, err
		}
		childLen := len(out) - startLen
		prefix := protowire.AppendVarint(nil, uint64(childLen))
		if len(prefix) != startLen-lenAt {
			copy(out[lenAt+len(prefix):], out[startLen:])
			out = out[:lenAt+len(prefix)+childLen]
		}
		copy(out[lenAt:], prefix)
		off += n + m
	}
	return out, nil
}

// takeIndices records location_indices field value v (at offset at of
// the data), when it is what proto.Unmarshal reads as a list: a packed
// list of well-formed varints, or one varint. Anything else is left in
// the data, for proto.Unmarshal to refuse or keep as unknown.
func (s *stripped) takeIndices(typ protowire.Type, v []byte, at int) bool {
	var w wireIndices
	switch typ {
	case protowire.VarintType:
		w = wireIndices{start: at, end: at + len(v)}
		s.nindices++
	case protowire.BytesType:
		body, n := protowire.ConsumeBytes(v)
		for b := body; len(b) > 0; {
			_, k := protowire.ConsumeVarint(b)
			if k < 0 {
				return false
			}
			b = b[k:]
		}
		w = wireIndices{start: at + n - len(body), end: at + n, packed: true}
		s.nindices += packedCount(body)
	default:
		return false
	}
	c := len(s.indices) - 1
	s.indices[c] = append(s.indices[c], w)
	return true
}

// eachIndex calls fn with each value of the location_indices fields ws of
// data, in order, until it returns false.
func eachIndex(data []byte, ws []wireIndices, fn func(x int64) bool) {
	for _, w := range ws {
		b := data[w.start:w.end]
		for len(b) > 0 {
			x, k := protowire.ConsumeVarint(b) // checked by takeIndices
			if !fn(int64(x)) {
				return
			}
			b = b[k:]
		}
	}
}

// sampleIn is one OTLP sample as read, from the wire or from a generated
// Sample; its slices are reused from sample to sample except values and
// timestamps, which the model keeps.
type sampleIn struct {
	locIndex      []uint64
	start, length uint64
	stackID       uint64
	values        []int64
	labels        []labelIn
	attrs         []uint64
	link          uint64
	timestamps    []uint64
}

type labelIn struct{ key, str, num, unit int64 }

func (s *sampleIn) fromGenerated(g *profilespb.Sample) {
	s.locIndex = g.LocationIndex
	s.start, s.length, s.stackID = g.LocationsStartIndex, g.LocationsLength, uint64(g.StacktraceIdIndex)
	s.values = g.Value
	s.labels = s.labels[:0]
	for _, l := range g.Label {
		s.labels = append(s.labels, labelIn{l.Key, l.Str, l.Num, l.NumUnit})
	}
	s.attrs = g.Attributes
	s.link = g.Link
	s.timestamps = g.TimestampsUnixNano
}

// wireSamples decodes the samples of the Profile bodies one by one into s,
// calling fn for each.
type wireSamples struct {
	data   []byte
	bodies [][2]int
	values []int64 // chunk the samples' values are cut from
}

func (w *wireSamples) each(s *sampleIn, fn func(i int) error) error {
	return w.bodiesOf(func(i int, body []byte) error {
		if err := w.sample(body, s); err != nil {
			return fmt.Errorf("sample[%d]: %v", i, err)
		}
		return fn(i)
	})
}

// bodiesOf calls fn with each Sample message's bytes, in order, until it
// returns an error.
func (w *wireSamples) bodiesOf(fn func(i int, body []byte) error) error {
	i := 0
	for _, span := range w.bodies {
		b := w.data[span[0]:span[1]]
		for off := 0; off < len(b); {
			num, typ, n := protowire.ConsumeTag(b[off:])
			m := protowire.ConsumeFieldValue(num, typ, b[off+n:]) // checked by stripSamples
			if num == fSample && typ == protowire.BytesType {
				body, _ := protowire.ConsumeBytes(b[off+n:])
				if err := fn(i, body); err != nil {
					return err
				}
				i++
			}
			off += n + m
		}
	}
	return nil
}

// slices calls fn with each sample's locations_start_index and
// locations_length (the last of each, as proto.Unmarshal keeps), reading
// nothing else; a sample that does not parse is left to each.
func (w *wireSamples) slices(fn func(start, length uint64)) {
	w.bodiesOf(func(_ int, body []byte) error {
		var start, length uint64
		for k := 0; k < len(body); {
			num, typ, n := protowire.ConsumeTag(body[k:])
			if n < 0 {
				break
			}
			m := protowire.ConsumeFieldValue(num, typ, body[k+n:])
			if m < 0 {
				break
			}
			if typ == protowire.VarintType && (num == 7 || num == 8) {
				x, _ := protowire.ConsumeVarint(body[k+n:])
				if num == 7 {
					start = x
				} else {
					length = x
				}
			}
			k += n + m
		}
		fn(start, length)
		return nil
	})
}

// sample reads one Sample message, as proto.Unmarshal would: a field of a
// known number with another wire type is skipped as unknown.
func (w *wireSamples) sample(b []byte, s *sampleIn) error {
	*s = sampleIn{locIndex: s.locIndex[:0], labels: s.labels[:0], attrs: s.attrs[:0]}
	nvals, nstamps := 0, 0
	// The values and timestamps are counted first, so that each sample's
	// take exactly their room in a shared chunk.
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return fmt.Errorf("bad field tag")
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return fmt.Errorf("field %d: %v", num, protowire.ParseError(m))
		}
		if num == 2 || num == 13 {
			c := 1
			if typ == protowire.BytesType {
				body, _ := protowire.ConsumeBytes(b[off+n:])
				c = packedCount(body)
			} else if typ != protowire.VarintType {
				c = 0
			}
			if num == 2 {
				nvals += c
			} else {
				nstamps += c
			}
		}
		off += n + m
	}
	if nvals > 0 {
		if len(w.values) < nvals {
			w.values = make([]int64, max(nvals, 4096))
		}
		s.values = w.values[:0:nvals]
		w.values = w.values[nvals:]
	}
	if nstamps > 0 {
		s.timestamps = make([]uint64, 0, nstamps)
	}
	var bad error
	varints := func(typ protowire.Type, v []byte, fn func(x uint64)) int {
		if typ == protowire.VarintType {
			x, n := protowire.ConsumeVarint(v)
			fn(x)
			return n
		}
		body, n := protowire.ConsumeBytes(v)
		for len(body) > 0 {
			x, k := protowire.ConsumeVarint(body)
			if k < 0 {
				bad = fmt.Errorf("bad packed varint")
				return n
			}
			fn(x)
			body = body[k:]
		}
		return n
	}
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		v := b[off+n:]
		m := protowire.ConsumeFieldValue(num, typ, v)
		packedOK := typ == protowire.VarintType || typ == protowire.BytesType
		switch {
		case num == 1 && packedOK:
			varints(typ, v, func(x uint64) { s.locIndex = append(s.locIndex, x) })
		case num == 2 && packedOK:
			varints(typ, v, func(x uint64) { s.values = append(s.values, int64(x)) })
		case num == 10 && packedOK:
			varints(typ, v, func(x uint64) { s.attrs = append(s.attrs, x) })
		case num == 13 && packedOK:
			varints(typ, v, func(x uint64) { s.timestamps = append(s.timestamps, x) })
		case typ == protowire.VarintType && (num == 7 || num == 8 || num == 9 || num == 12):
			x, _ := protowire.ConsumeVarint(v)
			switch num {
			case 7:
				s.start = x
			case 8:
				s.length = x
			case 9:
				s.stackID = uint64(uint32(x))
			case 12:
				s.link = x
			}
		case num == 3 && typ == protowire.BytesType:
			body, _ := protowire.ConsumeBytes(v)
			l, err := wireLabel(body)
			if err != nil {
				return fmt.Errorf("label[%d]: %v", len(s.labels), err)
			}
			s.labels = append(s.labels, l)
		}
		if bad != nil {
			return fmt.Errorf("field %d: %v", num, bad)
		}
		off += n + m
	}
	return nil
}

func wireLabel(b []byte) (labelIn, error) {
	var l labelIn
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return l, fmt.Errorf("bad field tag")
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return l, fmt.Errorf("field %d: %v", num, protowire.ParseError(m))
		}
		if typ == protowire.VarintType {
			x, _ := protowire.ConsumeVarint(b[off+n:])
			switch num {
			case 1:
				l.key = int64(x)
			case 2:
				l.str = int64(x)
			case 3:
				l.num = int64(x)
			case 4:
				l.unit = int64(x)
			}
		}
		off += n + m
	}
	return l, nil
}

// packedCount counts the varints of a packed field: the bytes that end one.
func packedCount(b []byte) int {
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// Memory of the generated messages, estimated from the wire.

var (
	structSizes   sync.Map // protoreflect.FullName -> int64
	sampleModel   = int64(reflect.TypeFor[model.Sample]().Size()) + 8
	pointerAndCap = int64(16) // a message's pointer in its parent's slice, with growth
)

func structSize(md protoreflect.MessageDescriptor) int64 {
	if v, ok := structSizes.Load(md.FullName()); ok {
		return v.(int64)
	}
	size := int64(64)
	if mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName()); err == nil {
		size = int64(reflect.TypeOf(mt.New().Interface()).Elem().Size())
	}
	structSizes.Store(md.FullName(), size)
	return size
}

// wireMemory estimates what proto.Unmarshal allocates for message b of
// type md: each message's struct, each string, bytes and repeated scalar.
// It assumes the data was checked to be well-formed.
func wireMemory(b []byte, md protoreflect.MessageDescriptor, depth int) (int64, error) {
	if depth > 100 {
		return 0, fmt.Errorf("messages nested too deep")
	}
	total := structSize(md) + pointerAndCap
	fields := md.Fields()
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return 0, fmt.Errorf("bad field tag")
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return 0, fmt.Errorf("field %d: %v", num, protowire.ParseError(m))
		}
		fd := fields.ByNumber(num)
		switch {
		case fd == nil:
			total += int64(n + m) // kept as unknown bytes
		case typ == protowire.BytesType && (fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind):
			body, _ := protowire.ConsumeBytes(b[off+n:])
			x, err := wireMemory(body, fd.Message(), depth+1)
			if err != nil {
				return 0, err
			}
			total += x + 32 // a oneof wrapper, a map entry
		case typ == protowire.BytesType && (fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.BytesKind):
			body, _ := protowire.ConsumeBytes(b[off+n:])
			total += 16 + int64(len(body)) + 8
		case typ == protowire.BytesType && fd.IsList():
			body, _ := protowire.ConsumeBytes(b[off+n:])
			total += 16 * int64(max(packedCount(body), len(body)/8)) // with slice growth
		default:
			total += 16
		}
		off += n + m
	}
	return total, nil
}
