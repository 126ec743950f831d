package otlp

import (
	"errors"
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/commonpb"
	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/resourcepb"
	"github.com/pprofx/pprofx/internal/model"
)

// A hand-written parser for the profile messages, into the generated
// structs: the generated (reflection-table) unmarshal was two thirds of a
// v1development -> pprof conversion. It takes the common case only (every
// field with the wire type the schema gives it, strings valid UTF-8,
// singular messages once) and gives up on anything else, to be parsed by
// proto.Unmarshal, which then says what is wrong. Resource, scope and
// attribute values (common.proto) go to proto.Unmarshal piece by piece.
// The v1.9 Sample numbering is read here directly.

var errSlow = errors.New("otlp: not the fast path")

type parser struct {
	layout SampleLayout
	// compact: the dictionary's location_table and function_table are
	// read into ct, in the model's layout, not into the generated
	// structs (ReadForDecode).
	compact bool
	ct      *compactTables
	// The repeated scalar fields of many small messages (a stack's
	// locations, a sample's values and attributes) are slices of a few
	// shared blocks, not one allocation each: with the collector that
	// frees them, those allocations were what made a conversion to pprof
	// slower than google/pprof's ParseData in wall time while it ran
	// fewer instructions.
	i32 block[int32]
	i64 block[int64]
}

// block hands out slices of shared backing arrays, each with a capacity of
// exactly what was asked, so that appending to one never writes into
// another.
type block[T any] struct {
	free []T
	next int // size of the next backing array
}

func (b *block[T]) take(n int) []T {
	if n > len(b.free) {
		if n > 1024 {
			return make([]T, 0, n)
		}
		b.next = min(max(2*b.next, 256), 1<<14)
		b.free = make([]T, max(b.next, n))
	}
	s := b.free[:0:n]
	b.free = b.free[n:]
	return s
}

// varints is how many varints a packed field holds (its bytes without the
// continuation bit).
func varints(v []byte) int {
	n := 0
	for _, c := range v {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// fields calls fn for each field of message b; fn returns false to give up.
func fields(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool) error {
	for len(b) > 0 {
		var num protowire.Number
		var typ protowire.Type
		if b[0] < 0x80 {
			num, typ = protowire.Number(b[0]>>3), protowire.Type(b[0]&7)
			b = b[1:]
		} else {
			var n int
			num, typ, n = protowire.ConsumeTag(b)
			if n < 0 {
				return errSlow
			}
			b = b[n:]
		}
		var v []byte
		var x uint64
		switch typ {
		case protowire.VarintType:
			if len(b) > 0 && b[0] < 0x80 {
				x, b = uint64(b[0]), b[1:]
			} else {
				var n int
				x, n = protowire.ConsumeVarint(b)
				if n < 0 {
					return errSlow
				}
				b = b[n:]
			}
		case protowire.BytesType:
			var n int
			v, n = protowire.ConsumeBytes(b)
			if n < 0 {
				return errSlow
			}
			b = b[n:]
		case protowire.Fixed64Type:
			var n int
			x, n = protowire.ConsumeFixed64(b)
			if n < 0 {
				return errSlow
			}
			b = b[n:]
		case protowire.Fixed32Type:
			var n int
			var y uint32
			y, n = protowire.ConsumeFixed32(b)
			if n < 0 {
				return errSlow
			}
			x, b = uint64(y), b[n:]
		default:
			return errSlow
		}
		if !fn(num, typ, v, x) {
			return errSlow
		}
	}
	return nil
}

// varintsInto appends a repeated int32 or int64 field, packed or not; a
// first element goes into a slice of blk.
func varintsInto[T int32 | int64](dst []T, typ protowire.Type, v []byte, x uint64, blk *block[T]) ([]T, bool) {
	if dst == nil {
		if typ == protowire.VarintType {
			dst = blk.take(1)
		} else {
			dst = blk.take(varints(v))
		}
	}
	if typ == protowire.VarintType {
		return append(dst, T(x)), true
	}
	if typ != protowire.BytesType {
		return dst, false
	}
	for len(v) > 0 {
		if v[0] < 0x80 {
			dst, v = append(dst, T(v[0])), v[1:]
			continue
		}
		y, n := protowire.ConsumeVarint(v)
		if n < 0 {
			return dst, false
		}
		dst, v = append(dst, T(y)), v[n:]
	}
	return dst, true
}

func fixed64s(dst []uint64, typ protowire.Type, v []byte, x uint64) ([]uint64, bool) {
	if typ == protowire.Fixed64Type {
		return append(dst, x), true
	}
	if typ != protowire.BytesType || len(v)%8 != 0 {
		return dst, false
	}
	for ; len(v) > 0; v = v[8:] {
		y, _ := protowire.ConsumeFixed64(v)
		dst = append(dst, y)
	}
	return dst, true
}

func str(typ protowire.Type, v []byte) (string, bool) {
	if typ != protowire.BytesType || !utf8.Valid(v) {
		return "", false
	}
	return string(v), true
}

func bytesOf(typ protowire.Type, v []byte) ([]byte, bool) {
	if typ != protowire.BytesType {
		return nil, false
	}
	if len(v) == 0 {
		return []byte{}, true
	}
	return append([]byte(nil), v...), true
}

// data parses a ProfilesData, or returns errSlow.
func (ps *parser) data(b []byte) (*pb.ProfilesData, error) {
	pd := &pb.ProfilesData{}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		if typ != protowire.BytesType {
			return false
		}
		switch num {
		case 1:
			rp, err := ps.resourceProfiles(v)
			if err != nil {
				return false
			}
			pd.ResourceProfiles = append(pd.ResourceProfiles, rp)
		case 2:
			if pd.Dictionary != nil {
				return false
			}
			d, err := ps.dictionary(v)
			if err != nil {
				return false
			}
			pd.Dictionary = d
		default:
			return false
		}
		return true
	})
	return pd, err
}

func (ps *parser) resourceProfiles(b []byte) (*pb.ResourceProfiles, error) {
	rp := &pb.ResourceProfiles{}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		if typ != protowire.BytesType {
			return false
		}
		switch num {
		case 1:
			if rp.Resource != nil {
				return false
			}
			rp.Resource = &resourcepb.Resource{}
			return proto.Unmarshal(v, rp.Resource) == nil
		case 2:
			sp, err := ps.scopeProfiles(v)
			if err != nil {
				return false
			}
			rp.ScopeProfiles = append(rp.ScopeProfiles, sp)
		case 3:
			var ok bool
			rp.SchemaUrl, ok = str(typ, v)
			return ok
		default:
			return false
		}
		return true
	})
	return rp, err
}

func (ps *parser) scopeProfiles(b []byte) (*pb.ScopeProfiles, error) {
	sp := &pb.ScopeProfiles{}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		if typ != protowire.BytesType {
			return false
		}
		switch num {
		case 1:
			if sp.Scope != nil {
				return false
			}
			sp.Scope = &commonpb.InstrumentationScope{}
			return proto.Unmarshal(v, sp.Scope) == nil
		case 2:
			p, err := ps.profile(v)
			if err != nil {
				return false
			}
			sp.Profiles = append(sp.Profiles, p)
		case 3:
			var ok bool
			sp.SchemaUrl, ok = str(typ, v)
			return ok
		default:
			return false
		}
		return true
	})
	return sp, err
}

func valueType(typ protowire.Type, v []byte) (*pb.ValueType, bool) {
	if typ != protowire.BytesType {
		return nil, false
	}
	vt := &pb.ValueType{}
	err := fields(v, func(num protowire.Number, typ protowire.Type, _ []byte, x uint64) bool {
		if typ != protowire.VarintType {
			return false
		}
		switch num {
		case 1:
			vt.TypeStrindex = int32(x)
		case 2:
			vt.UnitStrindex = int32(x)
		default:
			return false
		}
		return true
	})
	return vt, err == nil
}

func (ps *parser) profile(b []byte) (*pb.Profile, error) {
	p := &pb.Profile{}
	// Samples are allocated in one block, counted first.
	n := 0
	fields(b, func(num protowire.Number, typ protowire.Type, _ []byte, _ uint64) bool {
		if num == 2 {
			n++
		}
		return true
	})
	block := make([]pb.Sample, n)
	p.Samples = make([]*pb.Sample, 0, n)
	var scratch []int64
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		var ok bool
		switch num {
		case 1:
			if p.SampleType != nil {
				return false
			}
			p.SampleType, ok = valueType(typ, v)
			return ok
		case 2:
			if typ != protowire.BytesType {
				return false
			}
			s := &block[len(p.Samples)]
			if !ps.sample(s, v, &scratch) {
				return false
			}
			p.Samples = append(p.Samples, s)
			return true
		case 3:
			p.TimeUnixNano = x
			return typ == protowire.Fixed64Type
		case 4:
			p.DurationNano = x
			return typ == protowire.VarintType
		case 5:
			if p.PeriodType != nil {
				return false
			}
			p.PeriodType, ok = valueType(typ, v)
			return ok
		case 6:
			p.Period = int64(x)
			return typ == protowire.VarintType
		case 7:
			p.ProfileId, ok = bytesOf(typ, v)
			return ok
		case 8:
			p.DroppedAttributesCount = uint32(x)
			return typ == protowire.VarintType
		case 9:
			p.OriginalPayloadFormat, ok = str(typ, v)
			return ok
		case 10:
			p.OriginalPayload, ok = bytesOf(typ, v)
			return ok
		case 11:
			p.AttributeIndices, ok = varintsInto(p.AttributeIndices, typ, v, x, &ps.i32)
			return ok
		}
		return false
	})
	return p, err
}

func (ps *parser) sample(s *pb.Sample, b []byte, scratch *[]int64) bool {
	fAttr, fLink, fValues := protowire.Number(2), protowire.Number(3), protowire.Number(4)
	if ps.layout == LayoutV19 {
		fValues, fAttr, fLink = 2, 3, 4
	}
	return fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		var ok bool
		switch num {
		case 1:
			s.StackIndex = int32(x)
			return typ == protowire.VarintType
		case fAttr:
			s.AttributeIndices, ok = varintsInto(s.AttributeIndices, typ, v, x, &ps.i32)
			return ok
		case fLink:
			s.LinkIndex = int32(x)
			return typ == protowire.VarintType
		case fValues:
			s.Values, ok = varintsInto(s.Values, typ, v, x, &ps.i64)
			return ok
		case 5:
			s.TimestampsUnixNano, ok = fixed64s(s.TimestampsUnixNano, typ, v, x)
			return ok
		}
		return false
	}) == nil
}

func (ps *parser) dictionary(b []byte) (*pb.ProfilesDictionary, error) {
	dp := &dictParser{ps: ps, d: &pb.ProfilesDictionary{}}
	if !dp.allocate(b) {
		return nil, errSlow
	}
	ps.ct = dp.ct
	d := dp.d
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		if typ != protowire.BytesType {
			return false
		}
		switch num {
		case 1:
			return dp.mapping(v)
		case 2:
			if dp.ct != nil {
				return dp.ct.location(v, &dp.ps.i32)
			}
			return dp.location(v)
		case 3:
			if dp.ct != nil {
				return dp.ct.function(v)
			}
			return dp.function(v)
		case 4:
			return dp.link(v)
		case 5:
			dp.strbuf = append(dp.strbuf, v...)
			dp.strEnds = append(dp.strEnds, len(dp.strbuf))
			return utf8.Valid(v)
		case 6:
			return dp.attribute(v)
		case 7:
			return dp.stack(v)
		}
		return false
	})
	all, start := string(dp.strbuf), 0
	for _, e := range dp.strEnds {
		d.StringTable = append(d.StringTable, all[start:e])
		start = e
	}
	return d, err
}

// dictParser reads a ProfilesDictionary into structs allocated a table at
// a time.
type dictParser struct {
	ps *parser
	d  *pb.ProfilesDictionary

	maps     []pb.Mapping
	locs     []pb.Location
	funcs    []pb.Function
	lines    []pb.Line
	lptrs    []*pb.Line // each location's Lines is a slice of these
	nextLine int
	ct       *compactTables // the locations and functions, when the parser is compact
	attrs    []pb.KeyValueAndUnit
	stacks   []pb.Stack
	strbuf   []byte // the strings, back to back
	strEnds  []int
}

// allocate counts the entries of b (and the locations' lines, and the
// strings' bytes) so that each table's structs are allocated in one block
// and the strings are slices of one string; false when b does not parse.
func (dp *dictParser) allocate(b []byte) bool {
	var count [8]int
	nlines, nstrbytes := 0, 0
	if fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) bool {
		if num < 8 {
			count[num]++
		}
		switch num {
		case 2:
			fields(v, func(num protowire.Number, _ protowire.Type, _ []byte, _ uint64) bool {
				if num == 3 {
					nlines++
				}
				return true
			})
		case 5:
			nstrbytes += len(v)
		}
		return true
	}) != nil {
		return false
	}
	d := dp.d
	dp.maps = make([]pb.Mapping, count[1])
	dp.attrs, dp.stacks = make([]pb.KeyValueAndUnit, count[6]), make([]pb.Stack, count[7])
	if dp.ps.compact {
		dp.ct = newCompactTables(count[2], nlines, count[3])
	} else {
		dp.locs, dp.lines, dp.funcs = make([]pb.Location, count[2]), make([]pb.Line, nlines), make([]pb.Function, count[3])
		dp.lptrs = make([]*pb.Line, nlines)
		for i := range dp.lines {
			dp.lptrs[i] = &dp.lines[i]
		}
		d.LocationTable, d.FunctionTable = make([]*pb.Location, 0, count[2]), make([]*pb.Function, 0, count[3])
	}
	d.MappingTable = make([]*pb.Mapping, 0, count[1])
	d.StringTable, d.AttributeTable, d.StackTable = make([]string, 0, count[5]), make([]*pb.KeyValueAndUnit, 0, count[6]), make([]*pb.Stack, 0, count[7])
	dp.strbuf, dp.strEnds = make([]byte, 0, nstrbytes), make([]int, 0, count[5])
	return true
}

func (dp *dictParser) mapping(v []byte) bool {
	m := &dp.maps[len(dp.d.MappingTable)]
	ok := fields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		var ok bool
		switch num {
		case 1:
			m.MemoryStart = x
		case 2:
			m.MemoryLimit = x
		case 3:
			m.FileOffset = x
		case 4:
			m.FilenameStrindex = int32(x)
		case 5:
			m.AttributeIndices, ok = varintsInto(m.AttributeIndices, typ, v, x, &dp.ps.i32)
			return ok
		default:
			return false
		}
		return typ == protowire.VarintType
	}) == nil
	dp.d.MappingTable = append(dp.d.MappingTable, m)
	return ok
}

func (dp *dictParser) location(v []byte) bool {
	l := &dp.locs[len(dp.d.LocationTable)]
	first := dp.nextLine
	ok := fields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		var ok bool
		switch num {
		case 1:
			l.MappingIndex = int32(x)
		case 2:
			l.Address = x
		case 3:
			if typ != protowire.BytesType || dp.nextLine == len(dp.lines) {
				return false
			}
			ln := &dp.lines[dp.nextLine]
			dp.nextLine++
			l.Lines = dp.lptrs[first:dp.nextLine:dp.nextLine]
			return line(ln, v)
		case 4:
			l.AttributeIndices, ok = varintsInto(l.AttributeIndices, typ, v, x, &dp.ps.i32)
			return ok
		default:
			return false
		}
		return typ == protowire.VarintType
	}) == nil
	dp.d.LocationTable = append(dp.d.LocationTable, l)
	return ok
}

// line reads a Line message into ln.
func line(ln *pb.Line, v []byte) bool {
	var ml model.Line
	ok := modelLine(&ml, &ln.Column, v)
	ln.FunctionIndex, ln.Line = ml.Function, ml.Line
	return ok
}

func (dp *dictParser) function(v []byte) bool {
	f := &dp.funcs[len(dp.d.FunctionTable)]
	var mf model.Function
	ok := modelFunction(&mf, v)
	f.NameStrindex, f.SystemNameStrindex, f.FilenameStrindex, f.StartLine = mf.Name, mf.SystemName, mf.Filename, mf.StartLine
	dp.d.FunctionTable = append(dp.d.FunctionTable, f)
	return ok
}

func (dp *dictParser) link(v []byte) bool {
	l := &pb.Link{}
	ok := fields(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) bool {
		var ok bool
		switch num {
		case 1:
			l.TraceId, ok = bytesOf(typ, v)
		case 2:
			l.SpanId, ok = bytesOf(typ, v)
		}
		return ok
	}) == nil
	dp.d.LinkTable = append(dp.d.LinkTable, l)
	return ok
}

func (dp *dictParser) attribute(v []byte) bool {
	a := &dp.attrs[len(dp.d.AttributeTable)]
	ok := fields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		switch num {
		case 1:
			a.KeyStrindex = int32(x)
			return typ == protowire.VarintType
		case 2:
			if typ != protowire.BytesType || a.Value != nil {
				return false
			}
			a.Value = anyValue(v)
			return a.Value != nil
		case 3:
			a.UnitStrindex = int32(x)
			return typ == protowire.VarintType
		}
		return false
	}) == nil
	dp.d.AttributeTable = append(dp.d.AttributeTable, a)
	return ok
}

func (dp *dictParser) stack(v []byte) bool {
	s := &dp.stacks[len(dp.d.StackTable)]
	ok := fields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		var ok bool
		if num == 1 {
			s.LocationIndices, ok = varintsInto(s.LocationIndices, typ, v, x, &dp.ps.i32)
		}
		return ok
	}) == nil
	dp.d.StackTable = append(dp.d.StackTable, s)
	return ok
}

// anyValue parses an AnyValue holding one scalar (a label's string or
// number, a flag), and anything else with proto.Unmarshal; nil when that
// fails.
func anyValue(b []byte) *commonpb.AnyValue {
	a := &commonpb.AnyValue{}
	seen := false
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		if seen {
			return false // several (the last wins): proto.Unmarshal's case
		}
		seen = true
		switch num {
		case 1:
			s, ok := str(typ, v)
			a.Value = &commonpb.AnyValue_StringValue{StringValue: s}
			return ok
		case 2:
			a.Value = &commonpb.AnyValue_BoolValue{BoolValue: x != 0}
			return typ == protowire.VarintType
		case 3:
			a.Value = &commonpb.AnyValue_IntValue{IntValue: int64(x)}
			return typ == protowire.VarintType
		case 4:
			a.Value = &commonpb.AnyValue_DoubleValue{DoubleValue: math.Float64frombits(x)}
			return typ == protowire.Fixed64Type
		case 8:
			a.Value = &commonpb.AnyValue_StringValueStrindex{StringValueStrindex: int32(x)}
			return typ == protowire.VarintType
		}
		return false
	})
	if err == nil {
		return a
	}
	a = &commonpb.AnyValue{}
	if proto.Unmarshal(b, a) != nil {
		return nil
	}
	return a
}
