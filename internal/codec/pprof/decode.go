// Package pprof reads and writes pprof's profile.proto (gzipped or raw)
// straight to and from the normalized model, with no intermediate
// object graph.
//
// Field numbers follow github.com/google/pprof/proto/profile.proto.
package pprof

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/model"
)

// DefaultMaxSize bounds the decompressed size of a gzipped input given to
// Decode.
const DefaultMaxSize = 2 << 30

// IsGzip reports whether data starts with the gzip magic bytes.
func IsGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

// Decode reads a pprof profile, gzipped or raw protobuf, into the model.
// A gzipped input may decompress to at most DefaultMaxSize bytes.
func Decode(data []byte) (*model.Profile, error) {
	if !IsGzip(data) {
		return DecodeRaw(data)
	}
	// DecodeRaw keeps nothing of its input (strings are copied), so the
	// decompressed bytes go to a reused buffer.
	bp, _ := rawBufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	// Deflate expands at most about 1032:1, so a larger size in the
	// trailer is a lie that must not size an allocation.
	hint := min(isize(data), 1032*int64(len(data)))
	raw, err := gunzipInto((*bp)[:0], bytes.NewReader(data), DefaultMaxSize, hint)
	if err != nil {
		return nil, err
	}
	p, err := DecodeRaw(raw)
	if cap(raw) <= maxPooledRaw {
		*bp = raw
		rawBufs.Put(bp)
	}
	return p, err
}

// rawBufs keeps decompression buffers of Decode for reuse; buffers larger
// than maxPooledRaw are left to the garbage collector.
var rawBufs sync.Pool

const maxPooledRaw = 8 << 20

// gunzipInto appends the decompression of r to buf, failing once the
// output would exceed max bytes. hint, gzip's size modulo 2^32, only
// presizes buf.
func gunzipInto(buf []byte, r io.Reader, limit, hint int64) ([]byte, error) {
	zr, err := NewGzipReader(r)
	if err != nil {
		return nil, fmt.Errorf("gzip: %v", err)
	}
	defer PutGzipReader(zr)
	if hint > 0 && hint <= limit && hint < 1<<30 {
		buf = slices.Grow(buf, int(hint)+1)
	}
	for {
		if len(buf) == cap(buf) {
			// Grow with what was read, never past one byte over the limit
			// (which tells "too big" from "exactly the limit").
			if int64(len(buf)) > limit {
				return nil, fmt.Errorf("gzip: decompressed size exceeds the limit of %d bytes", limit)
			}
			buf = slices.Grow(buf, int(min(int64(max(512, len(buf))), limit+1-int64(len(buf)))))
		}
		n, err := zr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, fmt.Errorf("gzip: decompressed size exceeds the limit of %d bytes", limit)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("gzip: %v", err)
		}
	}
}

// isize is gzip's trailer: the decompressed size modulo 2^32, a hint.
func isize(data []byte) int64 {
	if len(data) < 18 {
		return 0
	}
	t := data[len(data)-4:]
	return int64(t[0]) | int64(t[1])<<8 | int64(t[2])<<16 | int64(t[3])<<24
}

// Gunzip decompresses r, failing once the output would exceed max bytes.
func Gunzip(r io.Reader, max int64) ([]byte, error) { return gunzipInto(nil, r, max, 0) }

// gzipReaders keeps decompressors (and their 32 KiB windows) for reuse.
var gzipReaders sync.Pool

// NewGzipReader returns a gzip reader over r from a pool; give it back
// with PutGzipReader.
func NewGzipReader(r io.Reader) (*gzip.Reader, error) {
	if zr, ok := gzipReaders.Get().(*gzip.Reader); ok {
		if err := zr.Reset(r); err != nil {
			gzipReaders.Put(zr)
			return nil, err
		}
		return zr, nil
	}
	return gzip.NewReader(r)
}

// PutGzipReader returns zr to the pool.
func PutGzipReader(zr *gzip.Reader) {
	zr.Close()
	gzipReaders.Put(zr)
}

// Profile message field numbers.
const (
	fSampleType        = 1
	fSample            = 2
	fMapping           = 3
	fLocation          = 4
	fFunction          = 5
	fStringTable       = 6
	fDropFrames        = 7
	fKeepFrames        = 8
	fTimeNanos         = 9
	fDurationNanos     = 10
	fPeriodType        = 11
	fPeriod            = 12
	fComment           = 13
	fDefaultSampleType = 14
	fDocURL            = 15
)

// decodeError is a decoding failure at a byte offset of the raw protobuf.
type decodeError struct {
	off  int
	what string
}

func (e *decodeError) Error() string {
	return fmt.Sprintf("pprof: byte offset %d: %s", e.off, e.what)
}

type decoder struct {
	data []byte
	p    *model.Profile
	err  error

	mapIdx, fnIdx, locIdx idIndex

	lines  chunks[model.Line]
	values chunks[int64]
	key    []byte
	owned  bool // strings may point into data
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

// push appends v to the run of elements that starts at first in the
// current chunk, moving the run to a new chunk when this one is full, and
// returns where the run now starts.
func (c *chunks[T]) push(first int, v T) int {
	if len(c.buf) == cap(c.buf) {
		run := c.buf[first:]
		size := c.next
		if size <= 0 {
			size = 4096
		}
		c.next = 4096
		if size < 2*len(run)+1 {
			size = 2*len(run) + 1
		}
		c.buf = append(make([]T, 0, size), run...)
		first = 0
	}
	c.buf = append(c.buf, v)
	return first
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
	return int32(f.v), nil
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

// DecodeRaw reads an uncompressed profile.proto message into the model.
// The profile keeps nothing of data: its strings are copied.
func DecodeRaw(data []byte) (*model.Profile, error) { return decodeRaw(data, false) }

// DecodeRawOwned is DecodeRaw for a caller that hands data over: the
// profile's strings point into it, so that a large input is not copied
// again (data must not change afterwards).
func DecodeRawOwned(data []byte) (*model.Profile, error) { return decodeRaw(data, true) }

func decodeRaw(data []byte, owned bool) (*model.Profile, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("pprof: empty profile")
	}
	d := &decoder{data: data, p: &model.Profile{}, owned: owned}
	if err := d.decode(); err != nil {
		return nil, err
	}
	if err := d.p.Validate(); err != nil {
		return nil, fmt.Errorf("pprof: %v", err)
	}
	return d.p, nil
}

// each top-level field of the message, in order, with fn; fn sees the
// field's number and its offset.
func (d *decoder) topLevel(fn func(g *field) error) error {
	var g field
	for pos := 0; pos < len(d.data); pos = g.next {
		if err := d.scan(d.data, pos, 0, &g); err != nil {
			return err
		}
		if err := fn(&g); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) decode() error {
	p := d.p
	// Pass 0: count the tables so that they are allocated once, and check
	// that what the counts would take in memory is something the input's
	// bytes can justify. Later passes go through the top-level fields
	// again rather than keep their offsets (a list that could itself be
	// several times the input).
	var counts [16]int
	sampleBytes, stringBytes := 0, 0
	err := d.topLevel(func(g *field) error {
		if g.num > 0 && g.num < 16 {
			counts[g.num]++
		}
		switch g.num {
		case fLocation, fSample, fStringTable:
			if err := d.wantBytes(g); err != nil {
				return err
			}
			if g.num == fSample {
				sampleBytes += len(g.b)
			} else if g.num == fStringTable {
				stringBytes += len(g.b)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := d.checkBudget(&counts, stringBytes); err != nil {
		return err
	}
	p.SampleTypes = make([]model.ValueType, 0, counts[fSampleType])
	p.Mappings = make([]model.Mapping, 0, counts[fMapping])
	p.Functions = make([]model.Function, 0, counts[fFunction])
	p.Locations = make([]model.Location, 0, counts[fLocation])
	p.Samples = make([]model.Sample, 0, counts[fSample])
	d.mapIdx.ids = make([]uint64, 0, counts[fMapping])
	d.fnIdx.ids = make([]uint64, 0, counts[fFunction])
	d.locIdx.ids = make([]uint64, 0, counts[fLocation])

	// Most locations have one line: the first chunk of lines fits that.
	d.lines.next = counts[fLocation] + 16

	// Pass 1: everything but strings, locations and samples.
	err = d.topLevel(func(g *field) error {
		switch g.num {
		case fLocation, fSample, fStringTable:
			return nil
		}
		return d.profileField(*g)
	})
	if err != nil {
		return err
	}
	if counts[fStringTable] == 0 {
		return fmt.Errorf("pprof: no string table")
	}
	d.buildStrings(counts[fStringTable], stringBytes)
	if p.Strings[0] != "" {
		return fmt.Errorf("pprof: string_table[0] is %q, want \"\"", p.Strings[0])
	}
	if err := d.mapIdx.build("mapping"); err != nil {
		return err
	}
	if err := d.fnIdx.build("function"); err != nil {
		return err
	}
	// Pass 2: locations, now that mappings and functions are known.
	k := 0
	err = d.topLevel(func(g *field) error {
		if g.num != fLocation {
			return nil
		}
		// A chunk that fills up (inlined frames) is followed by one sized
		// for a line per remaining location, not by a fixed 4096 lines.
		d.lines.next = counts[fLocation] - k + 16
		k++
		return d.location(g)
	})
	if err != nil {
		return err
	}
	if err := d.locIdx.build("location"); err != nil {
		return err
	}
	// Pass 3: samples.
	// Every value takes at least one byte on the wire: never reserve more
	// values than there are bytes, whatever the field counts multiply to.
	nValues := counts[fSample] * len(p.SampleTypes)
	if nValues > sampleBytes || nValues < 0 {
		nValues = sampleBytes
	}
	d.values.buf = make([]int64, 0, nValues)
	// Samples often share stacks: the map grows with the distinct ones.
	stacks := make(map[string]int32, min(counts[fSample], 1<<12))
	// Location ids take a byte or two each: half the samples' bytes is a
	// fair first guess of the frames, which saves regrowing a big table.
	p.Stacks.Grow(min(counts[fSample], 1<<12), sampleBytes/2)
	labelSets := make(map[string]int32)
	p.LabelSets = []model.LabelSet{{}}
	return d.topLevel(func(g *field) error {
		if g.num != fSample {
			return nil
		}
		return d.sample(g, stacks, labelSets)
	})
}

// Sizes in memory of what the model holds per table entry, for the budget.
const (
	sampleSize   = int(unsafe.Sizeof(model.Sample{}))
	locationSize = int(unsafe.Sizeof(model.Location{})) + 8 // + its id
	functionSize = int(unsafe.Sizeof(model.Function{})) + 8
	mappingSize  = int(unsafe.Sizeof(model.Mapping{})) + 8
	stringSize   = int(unsafe.Sizeof(""))
)

// fieldCost is what one top-level field of each number takes in the
// model, beyond its bytes.
var fieldCost = [16]int{fSample: sampleSize + 8, fLocation: locationSize, fFunction: functionSize,
	fMapping: mappingSize, fStringTable: stringSize}

// checkBudget refuses an input whose table counts would take more memory
// than model.MemoryPerInputByte times its size: a count the bytes cannot
// justify (millions of empty samples or strings) is refused before
// anything is allocated for it.
func (d *decoder) checkBudget(counts *[16]int, stringBytes int) error {
	var need int64
	for num, n := range counts {
		need += int64(n) * int64(fieldCost[num])
	}
	need += int64(stringBytes)
	if need <= model.MemoryPerInputByte*int64(len(d.data))+16<<20 {
		return nil
	}
	return budgetError(counts, need, int64(len(d.data)))
}

// budgetError names the counts that would take need bytes from n input
// bytes (all of them, or the first n of an input still being read).
func budgetError(counts *[16]int, need, n int64) error {
	return model.CheckMemory("pprof", need, n, fmt.Sprintf(
		"%d samples, %d locations, %d functions, %d mappings and %d strings",
		counts[fSample], counts[fLocation], counts[fFunction], counts[fMapping], counts[fStringTable]))
}

func (d *decoder) profileField(fv field) error {
	f := &fv
	p := d.p
	var err error
	switch f.num {
	case fSampleType, fPeriodType:
		if err := d.wantBytes(f); err != nil {
			return err
		}
		vt, err := d.valueType(f)
		if err != nil {
			return err
		}
		if f.num == fSampleType {
			p.SampleTypes = append(p.SampleTypes, vt)
		} else {
			p.PeriodType = vt
		}
	case fMapping:
		if err := d.wantBytes(f); err != nil {
			return err
		}
		return d.mapping(f)
	case fFunction:
		if err := d.wantBytes(f); err != nil {
			return err
		}
		return d.function(f)
	case fDropFrames:
		p.DropFrames, err = d.strIdx(f)
	case fKeepFrames:
		p.KeepFrames, err = d.strIdx(f)
	case fDocURL:
		p.DocURL, err = d.strIdx(f)
	case fDefaultSampleType:
		p.DefaultSampleType, err = d.strIdx(f)
	case fTimeNanos:
		err = d.wantVarint(f)
		p.TimeNanos = int64(f.v)
	case fDurationNanos:
		err = d.wantVarint(f)
		p.DurationNanos = int64(f.v)
	case fPeriod:
		err = d.wantVarint(f)
		p.Period = int64(f.v)
	case fComment:
		err = d.varints(f, func(v uint64) {
			if v > math.MaxInt32 {
				v = math.MaxInt32 // out of range either way; Validate names it
			}
			p.Comments = append(p.Comments, int32(v))
		})
	}
	return err
}

func (d *decoder) buildStrings(n, total int) {
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

func (d *decoder) location(f *field) error {
	loc := model.Location{Mapping: model.NoMapping}
	var id uint64
	buf, base := f.b, f.next-len(f.b)
	// Lines go straight into the shared chunk, contiguous per location.
	first := len(d.lines.buf)
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
			ln, err := d.line(&g)
			if err != nil {
				return err
			}
			first = d.lines.push(first, ln)
		case 5:
			err, loc.IsFolded = d.wantVarint(&g), g.v != 0
		}
		if err != nil {
			return err
		}
	}
	if n := len(d.lines.buf); n > first {
		loc.Lines = d.lines.buf[first:n:n]
	}
	d.p.Locations = append(d.p.Locations, loc)
	d.locIdx.ids = append(d.locIdx.ids, id)
	return nil
}

func (d *decoder) line(f *field) (model.Line, error) {
	ln := model.Line{Function: model.NoFunction}
	buf, base := f.b, f.next-len(f.b)
	var g field
	for pos := 0; pos < len(buf); pos = g.next - base {
		if err := d.scan(buf, pos, base, &g); err != nil {
			return ln, err
		}
		var err error
		switch g.num {
		case 1:
			if err = d.wantVarint(&g); err == nil && g.v != 0 {
				i, ok := d.fnIdx.lookup(g.v)
				if !ok {
					return ln, &decodeError{g.off, fmt.Sprintf("location[%d].line: function id %d not found", len(d.p.Locations), g.v)}
				}
				ln.Function = i
			}
		case 2:
			err, ln.Line = d.wantVarint(&g), int64(g.v)
		case 3:
			err, ln.Column = d.wantVarint(&g), int64(g.v)
		}
		if err != nil {
			return ln, err
		}
	}
	return ln, nil
}

func (d *decoder) sample(f *field, stacks, labelSets map[string]int32) error {
	p := d.p
	s := model.Sample{Link: model.NoLink}
	base := f.next - len(f.b)
	nTypes := len(p.SampleTypes)
	// The stack's key is the packed location ids as they are on the wire
	// when the writer packed them in one field (as every known writer does);
	// otherwise they are re-encoded into d.key.
	var stackKey []byte
	nLocFields, nLabels := 0, 0
	var labelsStart, labelsEnd int = -1, -1
	s.Values = d.values.take(nTypes)[:0]
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
				s.Values = append(s.Values, int64(g.v))
				continue
			}
			for b := g.b; len(b) > 0; {
				if b[0] < 0x80 {
					s.Values = append(s.Values, int64(b[0]))
					b = b[1:]
					continue
				}
				v, n := protowire.ConsumeVarint(b)
				if n < 0 {
					return &decodeError{d.offsetOf(b), "field 2: bad packed varint"}
				}
				s.Values = append(s.Values, int64(v))
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
	if len(s.Values) != nTypes {
		return &decodeError{f.off, fmt.Sprintf("sample[%d]: %d values for %d sample types", len(p.Samples), len(s.Values), nTypes)}
	}
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
		if len(p.Stacks.Frames)+n > math.MaxInt32 {
			return &decodeError{f.off, "too many stack frames"}
		}
		st := &p.Stacks
		if len(st.Offsets) == 0 {
			st.Offsets = append(st.Offsets, 0)
		}
		st.Frames = slices.Grow(st.Frames, n)
		for b := stackKey; len(b) > 0; {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				st.Frames = st.Frames[:st.Offsets[len(st.Offsets)-1]]
				return &decodeError{f.off, fmt.Sprintf("sample[%d]: bad location id", len(p.Samples))}
			}
			b = b[n:]
			li, ok := d.locIdx.lookup(v)
			if !ok {
				st.Frames = st.Frames[:st.Offsets[len(st.Offsets)-1]]
				return &decodeError{f.off, fmt.Sprintf("sample[%d]: location id %d not found", len(p.Samples), v)}
			}
			st.Frames = append(st.Frames, li)
		}
		st.Offsets = append(st.Offsets, int32(len(st.Frames)))
		idx = int32(len(st.Offsets) - 2)
		stacks[string(stackKey)] = idx
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
			labelSets[string(raw)] = li
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
	d.p.LabelSets = append(d.p.LabelSets, model.LabelSet{Labels: ls})
	return int32(len(d.p.LabelSets) - 1), nil
}
