package otlp

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"iter"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/codec/otlpcommon"
	"github.com/pprofx/pprofx/internal/hashindex"
	"github.com/pprofx/pprofx/internal/model"
)

// Field numbers of proto/opentelemetry/proto/profiles/v1development/profiles.proto.
const (
	fDataResourceProfiles = 1
	fDataDictionary       = 2

	fDictMapping   = 1
	fDictLocation  = 2
	fDictFunction  = 3
	fDictLink      = 4
	fDictString    = 5
	fDictAttribute = 6
	fDictStack     = 7

	fProfileSampleType       = 1
	fProfileSamples          = 2
	fProfileTime             = 3
	fProfileDuration         = 4
	fProfilePeriodType       = 5
	fProfilePeriod           = 6
	fProfileID               = 7
	fProfileDroppedAttrs     = 8
	fProfilePayloadFormat    = 9
	fProfilePayload          = 10
	fProfileAttributeIndices = 11
)

// Sample field numbers of v1.10+ (the reader also knows v1.9's).
const (
	fSampleStack      = 1
	fSampleAttributes = 2
	fSampleLink       = 3
	fSampleValues     = 4
	fSampleTimestamps = 5
)

var encoders sync.Pool

const maxPooledOut = 16 << 20

// Encode writes ps as one OTLP ProfilesData (v1development), binary
// protobuf. The bytes are also a valid ExportProfilesServiceRequest (same
// field numbers), which is what a collector's OTLP receiver takes.
func Encode(w io.Writer, ps []*model.Profile, opts EncodeOptions) error {
	if sizeHint(ps) >= streamFrom {
		return encodeStreamed(w, ps, opts, false)
	}
	data, release, err := encode(ps, opts)
	if err != nil {
		return err
	}
	defer release()
	return write(w, data, opts.Gzip)
}

// EncodeJSON writes ps as one OTLP JSON ProfilesData (v1development), on
// one line ending with a newline (so the file is also one JSON line).
func EncodeJSON(w io.Writer, ps []*model.Profile, opts EncodeOptions) error {
	if sizeHint(ps) >= streamFrom {
		return encodeJSONStreamed(w, ps, opts)
	}
	data, release, err := encode(ps, opts)
	if err != nil {
		return err
	}
	defer release()
	return writeJSON(w, data, opts.Gzip)
}

// writeJSON writes the JSON of the binary ProfilesData data, and a newline,
// as it is made: a megabyte of the text is held at most, and, gzipped, the
// first smallOutput bytes until they tell the level (levelGzip).
func writeJSON(w io.Writer, data []byte, gz bool) error {
	if !gz {
		return otlpcommon.WriteJSON(w, data, jsonDescriptor, "otlp json")
	}
	// The text is about 4 times the binary.
	zw := &levelGzip{w: w, buf: make([]byte, 0, min(smallOutput, 4*len(data)+64))}
	if err := otlpcommon.WriteJSON(zw, data, jsonDescriptor, "otlp json"); err != nil {
		return err
	}
	return zw.Close()
}

// levelGzip gzips what is written to it at the level its whole size calls
// for (newGzip): it holds the first smallOutput bytes, and gzips them at
// the small outputs' level if no more come, or else at the default, then
// the rest as it comes. The bytes are those of the whole written at once.
type levelGzip struct {
	w   io.Writer
	buf []byte
	zw  *gzip.Writer
}

func (l *levelGzip) Write(p []byte) (int, error) {
	if l.zw == nil {
		if len(l.buf)+len(p) <= smallOutput {
			l.buf = append(l.buf, p...)
			return len(p), nil
		}
		l.zw = newGzip(l.w, math.MaxInt64)
		if _, err := l.zw.Write(l.buf); err != nil {
			return 0, err
		}
		l.buf = nil
	}
	return l.zw.Write(p)
}

func (l *levelGzip) Close() error {
	if l.zw == nil {
		return write(l.w, l.buf, true)
	}
	return l.zw.Close()
}

// AppendProto appends the binary ProfilesData of ps to b (never gzipped).
func AppendProto(b []byte, ps []*model.Profile, opts EncodeOptions) ([]byte, error) {
	data, release, err := encode(ps, opts)
	if err != nil {
		return b, err
	}
	defer release()
	return append(b, data...), nil
}

func write(w io.Writer, data []byte, gz bool) error {
	if !gz {
		_, err := w.Write(data)
		return err
	}
	zw := newGzip(w, int64(len(data)))
	if _, err := zw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}

// smallOutput is the largest output gzipped at level 7 rather than the
// default (5 in klauspost/compress): 1-2 % smaller on every output tried
// (the Go fixtures' 0.3-20 KB, generated profiles' 64 KB to 1.5 MB), for up
// to 1.5x the compression time, which does not show at these sizes. Levels
// 8 and 9 were slower and, on the generated profiles, larger than the
// default (level 9: 2 % larger and 20x the time at 1.5 MB). Either way the
// bytes depend on the data alone.
const smallOutput = 4 << 20

// newGzip returns the gzip writer for an output of n bytes (the streamed
// writer uses it too, so that both give the same bytes).
func newGzip(w io.Writer, n int64) *gzip.Writer {
	if n <= smallOutput {
		zw, _ := gzip.NewWriterLevel(w, 7)
		return zw
	}
	return gzip.NewWriter(w)
}

// encode returns the ProfilesData of ps in a pooled buffer, valid until
// release is called.
func encode(ps []*model.Profile, opts EncodeOptions) ([]byte, func(), error) {
	e, release, err := newEncoder(ps, opts)
	if err != nil {
		return nil, nil, err
	}
	data := e.profilesData(ps)
	e.out = data
	return data, release, nil
}

// newEncoder checks ps and opts and returns a (pooled) encoder for them,
// and the function that gives it back once its output is used.
func newEncoder(ps []*model.Profile, opts EncodeOptions) (*encoder, func(), error) {
	if len(ps) == 0 {
		return nil, nil, fmt.Errorf("otlp: no profile to write")
	}
	if len(opts.ProfileID) != 0 {
		if len(ps) > 1 {
			return nil, nil, fmt.Errorf("otlp: a profile id names one profile, but %d profiles are written", len(ps))
		}
		if len(opts.ProfileID) != 16 || allZero(opts.ProfileID) {
			return nil, nil, fmt.Errorf("otlp: profile id must be 16 bytes, not all zero")
		}
	}
	for i, p := range ps {
		if err := p.Validate(); err != nil {
			return nil, nil, fmt.Errorf("otlp: profile %d: %v", i, err)
		}
	}
	e, _ := encoders.Get().(*encoder)
	if e == nil {
		e = &encoder{warned: map[string]bool{}}
	}
	e.opts = opts
	clear(e.warned)
	return e, func() {
		e.ps = nil
		clear(e.akeys) // the profiles' strings
		e.opts = EncodeOptions{}
		e.spill = nil
		if cap(e.out) <= maxPooledOut {
			encoders.Put(e)
		}
	}, nil
}

// A string of the string table is a ref: string i of profile p, or,
// for p below 0, one of these.
const (
	strFixed = -1 // fixed key i
	strKey   = -2 // profile attribute key i (encoder.akeys)
	strEmpty = -3 // ""
)

// The attribute keys the writer may use, by number.
const (
	kComment = iota
	kDropFrames
	kKeepFrames
	kDocURL
	kMappings
	kBuildIDGNU
	kBuildIDHTL
	kHasFunctions
	kHasFilenames
	kHasLineNumbers
	kHasInlineFrames
	kIsFolded
	nFixedKeys
)

var fixedKeys = [nFixedKeys]string{AttrComment, AttrDropFrames, AttrKeepFrames, AttrDocURL, AttrMappings,
	AttrBuildIDGNU, AttrBuildIDHTL, AttrHasFunctions, AttrHasFilenames, AttrHasLineNumbers, AttrHasInlineFrames, AttrIsFolded}

// fixedKey returns the number of a fixed key, or -1.
func fixedKey(s string) int {
	for k, f := range fixedKeys {
		if f == s {
			return k
		}
	}
	return -1
}

// ref names an entry of one input profile's table: profile, index.
type ref struct{ p, i int32 }

// refTable is a dictionary table as references into the inputs. Its
// first ident entries are the first profile's entries 0 to ident-1, kept
// as their count: a profile's table written in its own order (a decoded
// pprofx file, the bundle's tables) takes no array. The others are rest.
type refTable struct {
	ident int
	rest  []ref
	room  int // the entries the table may have, for rest to be made once
}

func (t *refTable) reset(room int) { t.ident, t.rest, t.room = 0, t.rest[:0], room }
func (t *refTable) len() int       { return t.ident + len(t.rest) }

func (t *refTable) at(k int) ref {
	if k < t.ident {
		return ref{0, int32(k)}
	}
	return t.rest[k-t.ident]
}

func (t *refTable) add(r ref) {
	if len(t.rest) == 0 && r.p == 0 && int(r.i) == t.ident {
		t.ident++
		return
	}
	if len(t.rest) == 0 {
		// Sized once: grown by append, a table of millions would be
		// copied again and again, each copy 1.25 times the last.
		t.rest = slices.Grow(t.rest, t.room-t.ident)
	}
	t.rest = append(t.rest, r)
}

// locKey orders the location table (layoutLocations).
type locKey struct {
	mapping int32
	address uint64
	r       ref
}

// encoder holds the scratch state of one Encode call.
type encoder struct {
	opts   EncodeOptions
	warned map[string]bool
	out    []byte
	ps     []*model.Profile
	// spill, when set, is given the output after each entry of the
	// dictionary once it holds spillChunk bytes (next), and returns the
	// buffer to go on with.
	spill  func([]byte) []byte
	thread threadRename // label keys written under the semantic conventions' names

	// Per input profile: model index -> dictionary index (0 = none).
	smap  [][]int32 // strings
	mmap  [][]int32 // mappings
	lmap  [][]int32 // locations
	fmap  [][]int32 // functions
	stmap [][]int32 // stacks; -1 unused
	kmap  [][]int32 // links
	// Per input profile, per label set: its attribute indices (none for a
	// set no sample uses).
	lsAttrs []indexSets

	// The dictionary, as references into the inputs (after its zero entry).
	strs   []ref // the string table (strOf)
	maps   []ref
	locs   refTable
	funcs  refTable
	links  []ref
	stacks []ref
	attrs  []string // encoded KeyValueAndUnit bodies
	// attrs by body (provisional indices): entry numbers only, where a
	// map keyed by the bodies held each again and 100 bytes an entry
	// (a perf script's samples have an attribute each, their time).
	aindex hashindex.Index
	aseed  maphash.Seed
	aperm  []int32 // provisional -> written attribute index

	mapAttrs  [][]int32 // per dictionary mapping (from 1)
	locAttrs  indexSets // per dictionary location (from 1)
	profAttrs [][]int32 // per input profile

	keys      map[string]int32  // profile attribute keys (not fixed) -> string index
	fixed     [nFixedKeys]int32 // fixedKeys[k] -> string index, 0 when not written
	cands     []ref
	akeys     []string // profile attribute keys (not fixed), as keys has them
	emptyName int32    // index of the extra "" names of empty functions point at
	// markLayout: the message's first sample is to have its values
	// packed, which tells a reader its Sample layout (see samplesUseFields23).
	markLayout bool
	scratch    []byte
	keybuf     []byte

	// Scratch of the layout steps, kept for the next call.
	skeys      []sampleKeyRef
	omittable  []bool
	omitFor    int // 1 + the input profile omittable is marked for; 0: none
	stackCount []int32
	lkeys      []locKey
	stAll      []ref
	done       []bool
	perm       []int32
	sorted     []string
}

func (e *encoder) warn(msg string) {
	if e.warned[msg] {
		return
	}
	e.warned[msg] = true
	if e.opts.Warn != nil {
		e.opts.Warn(msg)
	}
}

func (e *encoder) validUTF8(s string) string {
	if isASCII(s) || utf8.ValidString(s) {
		return s
	}
	e.warn("otlp: strings that are not valid UTF-8 (which protobuf strings must be) had their bad bytes replaced by U+FFFD")
	return strings.ToValidUTF8(s, "\uFFFD")
}

// isASCII reports whether s is all ASCII, 8 bytes at a time: most strings
// of a profile are, and utf8.ValidString costs twice as much on the short
// strings a profile is made of. (The bytes are read in place, not copied.)
func isASCII(s string) bool {
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	var or uint64
	for len(b) >= 8 {
		or |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		or |= uint64(c)
	}
	return or&0x8080808080808080 == 0
}

func grow[T any](s [][]T, n int) [][]T {
	s = slices.Grow(s[:0], n)[:n]
	return s
}

func resize[T any](s []T, n int) []T {
	return slices.Grow(s[:0], n)[:n]
}

// maxKeptScratch is the most entries a scratch array of one step keeps
// for the next call (or the next step of this one) once the step is done:
// a larger one, made for a table of millions, is let go at once rather
// than held beside the arrays and the output the later steps make.
const maxKeptScratch = 1 << 16

// keep returns s emptied, to be reused, or nil when it is too large to
// keep (maxKeptScratch).
func keep[T any](s []T) []T {
	if cap(s) > maxKeptScratch {
		return nil
	}
	return s[:0]
}

// profilesData lays out the dictionary, then writes it and the profiles.
func (e *encoder) profilesData(ps []*model.Profile) []byte {
	e.layout(ps)
	b := slices.Grow(e.out[:0], sizeHint(ps))
	// The dictionary first: a reader streaming the message meets the
	// tables before the samples that use them.
	b, d := begin(b, fDataDictionary)
	b = e.dictionary(b)
	b = end(b, d)
	return e.resourceProfilesAll(b)
}

// layout lays out the dictionary of ps.
func (e *encoder) layout(ps []*model.Profile) {
	e.ps = ps
	n := len(ps)
	e.smap, e.mmap, e.lmap = grow(e.smap, n), grow(e.mmap, n), grow(e.lmap, n)
	e.fmap, e.stmap, e.kmap = grow(e.fmap, n), grow(e.stmap, n), grow(e.kmap, n)
	e.lsAttrs, e.profAttrs = slices.Grow(e.lsAttrs[:0], n)[:n], grow(e.profAttrs, n)
	if e.aseed == (maphash.Seed{}) {
		e.aseed = maphash.MakeSeed()
	}
	e.aindex = hashindex.Index{}
	e.attrs = e.attrs[:0]

	e.layoutStrings()
	e.layoutMappings()
	e.layoutLocations()
	e.layoutFunctions()
	e.layoutLinks()
	e.layoutStacks()
	e.layoutAttributes()
	e.markLayout = e.samplesUseFields23()
	e.omitFor = 0
}

// resourceProfilesAll appends the ResourceProfiles of e.ps: one per run
// of profiles with the same resource.
func (e *encoder) resourceProfilesAll(b []byte) []byte {
	spill := e.spill
	e.spill = nil // held whole
	for i, j := range e.resourceRuns() {
		b = e.resourceProfiles(b, i, j)
	}
	e.spill = spill
	return b
}

// resourceRuns yields the runs ps[i:j] of profiles with the same resource,
// each written as one ResourceProfiles.
func (e *encoder) resourceRuns() iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		ps, n := e.ps, len(e.ps)
		for i := 0; i < n; {
			j := i + 1
			for j < n && sameResource(ps[i], ps[j]) {
				j++
			}
			if !yield(i, j) {
				return
			}
			i = j
		}
	}
}

// sizeHint guesses the encoded size of ps, to allocate the output once:
// a guess short of it makes append copy the output into a buffer 1.25
// times larger, both held at once. It errs on the large side
// (TestSizeHintCoversOutput): reserved bytes never written count towards
// the garbage collector's goal, but take no memory.
func sizeHint(ps []*model.Profile) int {
	n := 1 << 10
	for _, p := range ps {
		for _, s := range p.Strings {
			n += len(s) + 1 + protowire.SizeVarint(uint64(len(s)))
		}
		// Indices are varints as long as their table's size.
		loc := protowire.SizeVarint(uint64(len(p.Locations)))
		fn := protowire.SizeVarint(uint64(len(p.Functions)))
		str := protowire.SizeVarint(uint64(len(p.Strings)))
		stack := protowire.SizeVarint(uint64(p.Stacks.Len()))
		// A stack: its frames, its tag and length.
		n += loc*p.Stacks.NumFrames() + 4*p.Stacks.Len()
		// A location: its address, mapping, tags and length; a line: its
		// function, line number, tags and length.
		n += 14 * len(p.Locations)
		for i := range p.Locations {
			n += len(p.LocationLines(i)) * (7 + fn)
		}
		// A function: three string indices, a start line, tags and length.
		n += (8 + 3*str) * len(p.Functions)
		// A sample: its stack, its values (6 bytes each: up to 10), its label
		// set's attribute indices, tags and lengths.
		n += len(p.Samples) * (8 + stack + 6*len(p.SampleTypes))
		for i := range p.Samples {
			n += 9 * len(p.Samples[i].Timestamps())
		}
		for i := range p.LabelSets {
			n += 24 * (len(p.LabelSets[i].Labels()) + len(p.LabelSets[i].Attributes()))
		}
	}
	return n
}

func sameResource(a, b *model.Profile) bool {
	return sameAttributes(a.Resource.Attributes, b.Resource.Attributes) &&
		a.Resource.DroppedAttributesCount == b.Resource.DroppedAttributesCount && a.Resource.SchemaURL == b.Resource.SchemaURL
}

func sameAttributes(a, b []model.Attribute) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !sameValue(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

func sameValue(a, b model.Value) bool {
	if a.Kind != b.Kind || a.Str != b.Str || a.Bool != b.Bool || a.Int != b.Int ||
		math.Float64bits(a.Double) != math.Float64bits(b.Double) || string(a.Bytes) != string(b.Bytes) || len(a.Array) != len(b.Array) {
		return false
	}
	for i := range a.Array {
		if !sameValue(a.Array[i], b.Array[i]) {
			return false
		}
	}
	return sameAttributes(a.Map, b.Map)
}

// mergeAttributes returns base with over applied: a key in over replaces
// the same key in base, other keys are added in order.
func mergeAttributes(base, over []model.Attribute) []model.Attribute {
	if len(over) == 0 {
		return base
	}
	out := slices.Clone(base)
	for _, a := range over {
		i := slices.IndexFunc(out, func(b model.Attribute) bool { return b.Key == a.Key })
		if i >= 0 {
			out[i] = a
		} else {
			out = append(out, a)
		}
	}
	return out
}

// dictionary appends the ProfilesDictionary body.
func (e *encoder) dictionary(b []byte) []byte {
	b = append(b, fDictMapping<<3|2, 0)
	for k, r := range e.maps {
		m := &e.ps[r.p].Mappings[r.i]
		var mb int
		b, mb = begin(b, fDictMapping)
		b = appendVarintField(b, 1, m.Start)
		b = appendVarintField(b, 2, m.Limit)
		b = appendVarintField(b, 3, m.Offset)
		b = appendVarintField(b, 4, uint64(e.smap[r.p][m.File]))
		b = appendPacked(b, 5, e.mapAttrs[k])
		b = e.next(end(b, mb))
	}
	b = append(b, fDictLocation<<3|2, 0)
	for k := range e.locs.len() {
		r := e.locs.at(k)
		l := &e.ps[r.p].Locations[r.i]
		fm := e.fmap[r.p]
		var lb int
		b, lb = begin(b, fDictLocation)
		// Lines first, then mapping and address: in address order the
		// lines of neighbours repeat while addresses always differ, and
		// gzip finds longer matches this way.
		for j, ln := range e.ps[r.p].LinesOf(l) {
			var nb int
			b, nb = begin(b, 3)
			if ln.Function != model.NoFunction {
				b = appendVarintField(b, 1, uint64(fm[ln.Function]))
			}
			b = appendVarintField(b, 2, uint64(ln.Line))
			b = appendVarintField(b, 3, uint64(e.ps[r.p].ColumnOf(l, j)))
			b = end(b, nb)
		}
		if l.Mapping != model.NoMapping {
			b = appendVarintField(b, 1, uint64(e.mmap[r.p][l.Mapping]))
		}
		b = appendVarintField(b, 2, l.Address)
		b = appendPacked(b, 4, e.locAttrs.at(k))
		b = e.next(end(b, lb))
	}
	b = append(b, fDictFunction<<3|2, 0)
	for k := range e.funcs.len() {
		r := e.funcs.at(k)
		f := &e.ps[r.p].Functions[r.i]
		sm := e.smap[r.p]
		var fb int
		b, fb = begin(b, fDictFunction)
		// Filename first: neighbours mostly come from the same file, so
		// their records start with the same bytes.
		b = appendVarintField(b, 3, uint64(sm[f.Filename]))
		name := sm[f.Name]
		if name == 0 && sm[f.SystemName] == 0 && sm[f.Filename] == 0 {
			name = e.emptyName
		}
		b = appendVarintField(b, 1, uint64(name))
		// The system name whenever it is not empty, also when it is the
		// name (as in every function of a Go profile).
		b = appendVarintField(b, 2, uint64(sm[f.SystemName]))
		b = appendVarintField(b, 4, uint64(f.StartLine))
		b = e.next(end(b, fb))
	}
	b = append(b, fDictLink<<3|2, 0)
	for _, r := range e.links {
		l := &e.ps[r.p].Links[r.i]
		var lb int
		b, lb = begin(b, fDictLink)
		b = appendBytesField(b, 1, l.TraceID)
		b = appendBytesField(b, 2, l.SpanID)
		b = e.next(end(b, lb))
	}
	for _, r := range e.strs {
		b = appendTag(b, fDictString, protowire.BytesType)
		b = e.next(protowire.AppendString(b, e.validUTF8(e.strOf(r))))
	}
	b = append(b, fDictAttribute<<3|2, 0)
	for _, a := range e.attrs {
		b = appendTag(b, fDictAttribute, protowire.BytesType)
		b = e.next(protowire.AppendString(b, a))
	}
	b = append(b, fDictStack<<3|2, 0)
	for _, r := range e.stacks {
		p := e.ps[r.p]
		lm := e.lmap[r.p]
		var sb, lb int
		b, sb = begin(b, fDictStack)
		b, lb = begin(b, 1)
		for j := range p.Stacks.StackLen(int(r.i)) {
			b = appendVarint(b, uint64(lm[p.Stacks.Frame(int(r.i), j)]))
		}
		b = end(b, lb)
		b = e.next(end(b, sb))
	}
	return b
}

// resourceProfiles appends one ResourceProfiles holding ps[i:j], which
// share their resource.
func (e *encoder) resourceProfiles(b []byte, i, j int) []byte {
	b, rp := begin(b, fDataResourceProfiles)
	b = e.resourceHead(b, i)
	for k := i; k < j; k++ {
		b = e.scopeProfiles(b, k)
	}
	b = e.resourceTail(b, i)
	return end(b, rp)
}

// resourceHead appends the fields of the ResourceProfiles of ps[i] before
// its ScopeProfiles: the resource.
func (e *encoder) resourceHead(b []byte, i int) []byte {
	res := e.ps[i].Resource
	attrs := mergeAttributes(res.Attributes, e.opts.Resource)
	if len(attrs) > 0 || res.DroppedAttributesCount != 0 {
		var r int
		b, r = begin(b, 1)
		for _, a := range attrs {
			b = e.appendKeyValue(b, 1, a)
		}
		b = appendVarintField(b, 2, uint64(res.DroppedAttributesCount))
		b = end(b, r)
	}
	return b
}

// resourceTail appends the fields of the ResourceProfiles of ps[i] after
// its ScopeProfiles: the schema URL.
func (e *encoder) resourceTail(b []byte, i int) []byte {
	if url := e.ps[i].Resource.SchemaURL; url != "" {
		b = protowire.AppendString(appendTag(b, 3, protowire.BytesType), e.validUTF8(url))
	}
	return b
}

// order returns the sample type indices of p in the order its Profiles are
// written: the default sample type first, the others in input order.
func order(p *model.Profile) []int {
	out := make([]int, 0, len(p.SampleTypes))
	def := -1
	if p.DefaultSampleType != 0 {
		for i, t := range p.SampleTypes {
			if t.Type == p.DefaultSampleType {
				def = i
				break
			}
		}
	}
	if def >= 0 {
		out = append(out, def)
	}
	for i := range p.SampleTypes {
		if i != def {
			out = append(out, i)
		}
	}
	return out
}

// scopeProfiles appends the ScopeProfiles of input profile pi: one Profile
// per sample type.
func (e *encoder) scopeProfiles(b []byte, pi int) []byte {
	b, sp := begin(b, 2)
	b, ord := e.scopeHead(b, pi)
	for k, t := range ord {
		b = e.profile(b, pi, t, k == 0)
	}
	b = e.scopeTail(b, pi)
	return end(b, sp)
}

// scopeHead appends the fields of the ScopeProfiles of input profile pi
// before its Profiles (the scope), readies the encoder for its Profiles
// and returns their sample types in the order they are written (-1: a
// profile without any).
func (e *encoder) scopeHead(b []byte, pi int) ([]byte, []int) {
	p := e.ps[pi]
	b, sc := begin(b, 1)
	name, version := p.Scope.Name, p.Scope.Version
	if name == "" && version == "" && e.opts.NameScope {
		name, version = ScopeName, e.opts.ScopeVersion
	}
	if name != "" {
		b = protowire.AppendString(appendTag(b, 1, protowire.BytesType), e.validUTF8(name))
	}
	if version != "" {
		b = protowire.AppendString(appendTag(b, 2, protowire.BytesType), e.validUTF8(version))
	}
	ord := order(p)
	for _, a := range p.Scope.Attributes {
		if a.Key == AttrDefaultSampleType || a.Key == AttrSampleTypeOrder {
			continue
		}
		b = e.appendKeyValue(b, 3, a)
	}
	if p.DefaultSampleType != 0 {
		b = e.appendKeyValue(b, 3, model.Attribute{Key: AttrDefaultSampleType,
			Value: model.Value{Kind: model.KindString, Str: p.String(p.DefaultSampleType)}})
	}
	// The order is written only when it is not the identity (0, 1, ...):
	// a reader takes the profiles in scope order when it is absent.
	identity := true
	for k, i := range ord {
		identity = identity && k == i
	}
	if !identity {
		v := model.Value{Kind: model.KindArray, Array: make([]model.Value, len(ord))}
		for k, i := range ord {
			v.Array[k] = model.Value{Kind: model.KindInt, Int: int64(i)}
		}
		b = e.appendKeyValue(b, 3, model.Attribute{Key: AttrSampleTypeOrder, Value: v})
	}
	b = appendVarintField(b, 4, uint64(p.Scope.DroppedAttributesCount))
	if len(b) == sc {
		// An empty scope (a pprof input names none) is left out: the
		// field is optional, and its 2 bytes (10 with pprofx's name) are
		// a good part of a small profile.
		b = b[:sc-2]
	} else {
		b = end(b, sc)
	}
	if len(p.SampleTypes) == 0 && len(p.Samples) > 0 {
		e.warn("otlp: a profile with samples but no sample type was written without its samples")
	}
	if len(ord) > 1 {
		e.markOmittable(pi)
	}
	if len(ord) == 0 {
		ord = append(ord, -1)
	}
	return b, ord
}

// scopeTail appends the fields of the ScopeProfiles of input profile pi
// after its Profiles: the schema URL.
func (e *encoder) scopeTail(b []byte, pi int) []byte {
	if url := e.ps[pi].Scope.SchemaURL; url != "" {
		b = protowire.AppendString(appendTag(b, 3, protowire.BytesType), e.validUTF8(url))
	}
	return b
}

// samplesUseFields23 reports whether some sample written has attribute
// indices or a link (Sample fields 2 and 3). Only then could a reader take
// the message for the v1.9 Sample layout as well (layout.go): its values
// (field 4) would be v1.9's link_index. One length-delimited field 4, the
// first sample's values written packed (1 byte more), rules that reading
// out; protobuf readers take a repeated field packed or not.
func (e *encoder) samplesUseFields23() bool {
	for pi, p := range e.ps {
		for i := range p.Samples {
			s := &p.Samples[i]
			if s.Link != model.NoLink || len(e.lsAttrs[pi].at(int(s.LabelSet))) > 0 {
				return true
			}
		}
	}
	return false
}

// profile appends the Profile of sample type t (-1: none) of input profile pi.
func (e *encoder) profile(b []byte, pi, t int, first bool) []byte {
	b, pb := begin(b, fScopeProfiles)
	b = e.profileBody(b, pi, t, first)
	return end(b, pb)
}

// profileBody appends the fields of the Profile of sample type t (-1:
// none) of input profile pi, giving the bytes to e.next after each sample.
func (e *encoder) profileBody(b []byte, pi, t int, first bool) []byte {
	p := e.ps[pi]
	sm := e.smap[pi]
	if t >= 0 {
		st := p.SampleTypes[t]
		if st.AggregationTemporality != 0 {
			e.warn("otlp: aggregation temporality has no field in v1development; it was dropped")
		}
		b = appendValueType(b, fProfileSampleType, sm[st.Type], sm[st.Unit])
		stmap, km, lsa := e.stmap[pi], e.kmap[pi], e.lsAttrs[pi]
		for i := range p.Samples {
			s := &p.Samples[i]
			if !first && s.Values()[t] == 0 && e.omittable[i] {
				continue // zero, and its key names it alone (see markOmittable)
			}
			var sb int
			b, sb = begin(b, fProfileSamples)
			// Values first, then attributes, link and stack (protobuf
			// takes fields in any order): a run of samples with the
			// same value repeats the bytes before the stack index, which
			// gzip turns into one long match (gzipped: gperftools -1.3%,
			// heap +0.1%).
			if len(s.Timestamps()) <= 1 && !e.markLayout {
				b = append(b, fSampleValues<<3)
				b = appendVarint(b, uint64(s.Values()[t]))
			} else if len(s.Timestamps()) <= 1 {
				var vs int
				b, vs = begin(b, fSampleValues)
				b = appendVarint(b, uint64(s.Values()[t]))
				b = end(b, vs)
				e.markLayout = false // once a message
			} else {
				// Values and timestamps must be as many: the value goes
				// with the first timestamp, zeros with the others.
				var vs int
				b, vs = begin(b, fSampleValues)
				b = appendVarint(b, uint64(s.Values()[t]))
				for range s.Timestamps()[1:] {
					b = append(b, 0)
				}
				b = end(b, vs)
			}
			// One attribute index or value is written unpacked (tag,
			// varint), which every protobuf parser takes for a repeated
			// field: one byte less than packed (tag, length, varint) in
			// every sample of every profile.
			if as := lsa.at(int(s.LabelSet)); len(as) == 1 {
				b = append(b, fSampleAttributes<<3)
				b = appendVarint(b, uint64(as[0]))
			} else {
				b = appendPacked(b, fSampleAttributes, as)
			}
			if s.Link != model.NoLink {
				b = appendVarintField(b, fSampleLink, uint64(km[s.Link]))
			}
			b = appendVarintField(b, fSampleStack, uint64(stmap[s.Stack]))
			if len(s.Timestamps()) > 0 {
				var ts int
				b, ts = begin(b, fSampleTimestamps)
				for _, x := range s.Timestamps() {
					b = binary.LittleEndian.AppendUint64(b, x)
				}
				b = end(b, ts)
			}
			b = end(b, sb)
			b = e.next(b)
		}
	}
	if p.TimeNanos != 0 {
		b = protowire.AppendFixed64(appendTag(b, fProfileTime, protowire.Fixed64Type), uint64(p.TimeNanos))
	} else if p.StartTimeUnixNano != 0 {
		b = appendFixed64Field(b, fProfileTime, p.StartTimeUnixNano)
	}
	b = appendVarintField(b, fProfileDuration, uint64(p.DurationNanos))
	if p.PeriodType != (model.ValueType{}) {
		b = appendValueType(b, fProfilePeriodType, sm[p.PeriodType.Type], sm[p.PeriodType.Unit])
	}
	b = appendVarintField(b, fProfilePeriod, uint64(p.Period))
	if first {
		id := e.opts.ProfileID
		if len(id) == 0 {
			id = p.ProfileID
		}
		b = appendBytesField(b, fProfileID, id)
		b = appendVarintField(b, fProfileDroppedAttrs, uint64(p.DroppedAttributesCount))
		if e.opts.KeepOriginal && len(p.OriginalPayload) > 0 {
			format := p.OriginalPayloadFormat
			if format == "" {
				format = "unknown"
			}
			b = protowire.AppendString(appendTag(b, fProfilePayloadFormat, protowire.BytesType), e.validUTF8(format))
			b = appendBytesField(b, fProfilePayload, p.OriginalPayload)
		}
	}
	return appendPacked(b, fProfileAttributeIndices, e.profAttrs[pi])
}

const fScopeProfiles = 2

// markOmittable sets e.omittable[i] for each sample i of input profile pi
// that a profile after the first may leave out when its value there is 0
// (pprofx's convention, docs/otlp.md): one without timestamps whose written key
// (stack, attributes, link) no other sample of the profile has. The reader
// matches each sample of a later profile to the sample of the first with
// its key, and gives the samples it finds no match for the value 0. Keys
// that repeat are never left out, so that the j-th sample with a key still
// matches the j-th. In a Go heap profile, about half the samples have
// nothing in use: their inuse_objects and inuse_space samples go.
func (e *encoder) markOmittable(pi int) {
	if e.omitFor == pi+1 {
		return // marked already, as the ResourceProfiles were counted
	}
	e.omitFor = pi + 1
	p := e.ps[pi]
	om := resize(e.omittable, len(p.Samples))
	clear(om)
	e.omittable = om
	// Only a sample without timestamps and with a zero value may be left
	// out of a Profile.
	zero := false
	for i := range p.Samples {
		s := &p.Samples[i]
		if len(s.Timestamps()) == 0 && slices.Contains(s.Values(), 0) {
			zero = true
			break
		}
	}
	if !zero {
		return // nothing to leave out (a CPU profile, a JFR recording): no sort
	}
	stmap, km, lsa := e.stmap[pi], e.kmap[pi], e.lsAttrs[pi]
	// A sample alone with its stack has a unique key; only those that
	// share a stack are sorted to compare the rest of their keys.
	cnt := resize(e.stackCount, len(e.stacks)+1)
	clear(cnt)
	e.stackCount = cnt
	for i := range p.Samples {
		cnt[stmap[p.Samples[i].Stack]]++
	}
	shared := 0
	for i := range p.Samples {
		if cnt[stmap[p.Samples[i].Stack]] > 1 {
			shared++
		}
	}
	keys := slices.Grow(e.skeys[:0], shared) // made at its size: grown by append, old and new were held at once
	for i := range p.Samples {
		s := &p.Samples[i]
		if cnt[stmap[s.Stack]] == 1 {
			om[i] = len(s.Timestamps()) == 0
			continue
		}
		link := int32(0)
		if s.Link != model.NoLink {
			link = km[s.Link]
		}
		keys = append(keys, sampleKeyRef{stmap[s.Stack], link, lsa.at(int(s.LabelSet)), int32(i), len(s.Timestamps()) == 0})
	}
	cmpKeys := func(a, b sampleKeyRef) int {
		if a.stack != b.stack {
			return int(a.stack) - int(b.stack)
		}
		if a.link != b.link {
			return int(a.link) - int(b.link)
		}
		return slices.Compare(a.attrs, b.attrs)
	}
	slices.SortFunc(keys, cmpKeys)
	for k, x := range keys {
		om[x.i] = x.noTS && (k == 0 || cmpKeys(keys[k-1], x) != 0) && (k == len(keys)-1 || cmpKeys(keys[k+1], x) != 0)
	}
	clear(keys)
	e.skeys = keep(keys)
}

// sampleKeyRef is a sample's written key (markOmittable).
type sampleKeyRef struct {
	stack, link int32
	attrs       []int32
	i           int32
	noTS        bool
}

func appendValueType(b []byte, num protowire.Number, typ, unit int32) []byte {
	b, s := begin(b, num)
	b = appendVarintField(b, 1, uint64(typ))
	b = appendVarintField(b, 2, uint64(unit))
	return end(b, s)
}

// isJSON reports whether data (uncompressed) starts like JSON.
func isJSON(data []byte) bool {
	h := bytes.TrimLeft(data[:min(len(data), 4096)], " \t\r\n")
	return len(h) > 0 && (h[0] == '{' || h[0] == '[')
}
