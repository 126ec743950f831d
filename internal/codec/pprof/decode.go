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
			// Made at its size: slices.Grow would take append's growth
			// to it, 2.4 times the length, not 2.
			n := int(min(int64(max(512, len(buf))), limit+1-int64(len(buf))))
			g := make([]byte, len(buf), len(buf)+n)
			copy(g, buf)
			buf = g
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

type decoder struct {
	data []byte
	p    *model.Profile
	err  error

	mapIdx, fnIdx, locIdx idIndex

	values chunks[int64]
	// locsLeft is the locations not decoded yet, the one being decoded
	// included: what the table of lines grows by depends on it.
	locsLeft int
	key      []byte
	owned    bool // strings may point into data
	// sampleBytesLeft is the bytes of the samples not decoded yet.
	sampleBytesLeft int
	// maxFrames is the location ids of all samples: the stacks' frames
	// are never more.
	maxFrames int
	// strRemap, when the string table was interned (buildStrings), maps
	// an index of the input's table to the profile's.
	strRemap []int32
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
	sampleBytes, stringBytes, frames, values := 0, 0, 0, 0
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
				ids, vals := countSampleFields(g.b)
				frames += ids
				values += vals
			} else if g.num == fStringTable {
				stringBytes += len(g.b)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := d.checkBudget(&counts, stringBytes, frames, values); err != nil {
		return err
	}
	// Strings point into an input handed over only when they are most of
	// it; otherwise they are copied, and the input (samples and tables,
	// mostly) is released after decoding rather than held for them.
	if d.owned && 2*stringBytes < len(d.data) {
		d.owned = false
	}
	// The strings first: every later pass reads indices into them.
	if counts[fStringTable] == 0 {
		return fmt.Errorf("pprof: no string table")
	}
	d.buildStrings(counts[fStringTable], stringBytes)
	if p.Strings[0] != "" {
		return fmt.Errorf("pprof: string_table[0] is %q, want \"\"", p.Strings[0])
	}
	p.SampleTypes = make([]model.ValueType, 0, counts[fSampleType])
	p.Mappings = make([]model.Mapping, 0, counts[fMapping])
	p.Functions = make([]model.Function, 0, counts[fFunction])
	p.Locations = make([]model.Location, 0, counts[fLocation])
	p.Samples = make([]model.Sample, 0, counts[fSample])
	d.mapIdx.ids = make([]uint64, 0, counts[fMapping])
	d.fnIdx.ids = make([]uint64, 0, counts[fFunction])
	d.locIdx.ids = make([]uint64, 0, counts[fLocation])

	// Most locations have one line: the table of lines starts with room
	// for that.
	p.Lines = make([]model.Line, 0, counts[fLocation]+16)

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
		d.locsLeft = counts[fLocation] - k
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
	// fair guess of the frames. The first room made is at most 1M frames;
	// when it fills, the stack being added and half the samples' bytes
	// still to come make the next (sample), so that one huge stack does
	// not find a large guess to throw away.
	p.Stacks.Fit(len(p.Locations))
	p.Stacks.Grow(min(counts[fSample], 1<<12), min(sampleBytes/2, 1<<20))
	d.sampleBytesLeft = sampleBytes
	d.maxFrames = frames
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
//
// The stacks' frames are counted at their most, every sample's location
// ids as if no two samples shared a stack (2 or 4 bytes each in the model,
// model.FrameBytes), and so are the samples' values beyond the one fieldCost
// counts (8 bytes each): under a memory limit they must fit too
// (model.CheckMemory).
func (d *decoder) checkBudget(counts *[16]int, stringBytes, frames, values int) error {
	var need int64
	for num, n := range counts {
		need += int64(n) * int64(fieldCost[num])
	}
	frameBytes := int64(model.FrameBytes(counts[fLocation]))
	need += int64(stringBytes) + frameBytes*int64(frames) + 8*int64(max(values-counts[fSample], 0))
	if n := counts[fStringTable]; n > internMin && stringBytes < internBelow*n {
		need += 4 * int64(n) // buildStrings' remap of an interned table
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
			p.Comments = append(p.Comments, d.str(int32(v)))
		})
	}
	return err
}

// countSampleFields returns how many location ids (field 1) and values
// (field 2) the encoded Sample b holds, packed or not: every varint ends
// in a byte below 0x80. What it cannot parse counts as an id and a value
// per byte, the most it could hold; the decoder reports what is wrong
// with it later.
func countSampleFields(b []byte) (ids, values int) {
	var n [3]int
	for len(b) > 0 {
		num, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			return n[1] + len(b), n[2] + len(b)
		}
		b = b[k:]
		if (num == 1 || num == 2) && typ == protowire.BytesType {
			v, k := protowire.ConsumeBytes(b)
			if k < 0 {
				return n[1] + len(b), n[2] + len(b)
			}
			for _, c := range v {
				if c < 0x80 {
					n[num]++
				}
			}
			b = b[k:]
			continue
		}
		if num == 1 || num == 2 {
			n[num]++
		}
		k = protowire.ConsumeFieldValue(num, typ, b)
		if k < 0 {
			return n[1] + len(b), n[2] + len(b)
		}
		b = b[k:]
	}
	return n[1], n[2]
}
