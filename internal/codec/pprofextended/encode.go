package pprofextended

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/model"
)

// The writer appends protobuf straight from the model with protowire; no
// generated structs are built. Field numbers are those of
// proto/opentelemetry/proto/profiles/v1experimental/*.proto.

// Field numbers of the messages written.
const (
	fProfilesDataResourceProfiles = 1

	fResourceProfilesResource  = 1
	fResourceProfilesScope     = 2
	fResourceProfilesSchemaURL = 3

	fScopeProfilesScope    = 1
	fScopeProfilesProfiles = 2

	fContainerProfileID              = 1
	fContainerStartTime              = 2
	fContainerEndTime                = 3
	fContainerAttributes             = 4
	fContainerDroppedAttributesCount = 5
	fContainerOriginalPayloadFormat  = 6
	fContainerOriginalPayload        = 7
	fContainerProfile                = 8

	fProfileSampleType        = 1
	fProfileSample            = 2
	fProfileMapping           = 3
	fProfileLocation          = 4
	fProfileFunction          = 5
	fProfileStringTable       = 6
	fProfileDropFrames        = 7
	fProfileKeepFrames        = 8
	fProfileTimeNanos         = 9
	fProfileDurationNanos     = 10
	fProfilePeriodType        = 11
	fProfilePeriod            = 12
	fProfileComment           = 13
	fProfileDefaultSampleType = 14
	fProfileLocationIndices   = 15
	fProfileAttributeTable    = 16
	fProfileAttributeUnits    = 17
	fProfileLinkTable         = 18
)

// encoder holds the scratch state of one Encode call.
type encoder struct {
	opts   EncodeOptions
	warned map[string]bool
	out    []byte // the output buffer, kept for the next Encode

	// Per profile.
	p          *model.Profile
	strs       []string // the string table written
	smap       []int32  // model string index -> index in strs
	lorder     []int32  // model location indices in the order written
	lmap       []int32  // model location index -> written index
	forder     []int32  // model function indices in the order written
	fmap       []int32  // model function index -> written index
	li         []int64  // location_indices
	stStart    []int32  // per model stack: start in li, -1 if unused
	sused      []int32  // scratch of layoutStacks
	skeys      []int32
	soffs      []int32
	sortStacks []seq
	lkeys      []locKey
	lkeys2     []locKey
	kvIndex    map[kvKey]int32 // scratch of layoutAttributes
	keyUnit    map[int32]int32
	attrs      []uint64 // attribute indices of label sets, back to back
	lsStart    []int32  // per label set: start in attrs; -1 unknown, -2 written as labels
	lsEnd      []int32
	kv         []kvKey // attribute table
	units      [][2]int32
}

type kvKey struct {
	key     int32
	str     int32
	num     int64
	numeric bool
}

func newEncoder(opts EncodeOptions) *encoder {
	return &encoder{opts: opts, warned: map[string]bool{}}
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

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v-1 < 0x7f && num < 16 { // 1..127, inlined: most fields are this
		return append(b, byte(num)<<3, byte(v))
	}
	return appendVarintFieldSlow(b, num, v)
}

func appendVarintFieldSlow(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBoolField(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return append(appendTag(b, num, protowire.VarintType), 1)
}

func (e *encoder) appendStringField(b []byte, num protowire.Number, v string) []byte {
	if v == "" {
		return b
	}
	return protowire.AppendString(appendTag(b, num, protowire.BytesType), e.validUTF8(v))
}

func (e *encoder) validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	e.warn("otlp: strings that are not valid UTF-8 (which protobuf strings must be) had their bad bytes replaced by U+FFFD")
	return strings.ToValidUTF8(s, "\uFFFD")
}

// profilesData returns the ProfilesData message holding ps.
func (e *encoder) profilesData(ps []*model.Profile) []byte {
	b := slices.Grow(e.out[:0], sizeHint(ps))
	b, rp := begin(b, fProfilesDataResourceProfiles)

	res := ps[0].Resource
	attrs := mergeAttributes(res.Attributes, e.opts.Resource)
	for _, p := range ps[1:] {
		if !sameAttributes(p.Resource.Attributes, ps[0].Resource.Attributes) {
			e.warn("otlp: the profiles have different resources; all are written under the first one's")
			break
		}
	}
	if len(attrs) > 0 || res.DroppedAttributesCount != 0 {
		var r int
		b, r = begin(b, fResourceProfilesResource)
		for _, a := range attrs {
			b = e.appendKeyValue(b, 1, a)
		}
		b = appendVarintField(b, 2, uint64(res.DroppedAttributesCount))
		b = end(b, r)
	}

	for _, p := range ps {
		if sc := p.Scope; (sc.Name != "" && sc.Name != ScopeName) || len(sc.Attributes) > 0 || sc.SchemaURL != "" {
			e.warn(fmt.Sprintf("otlp: the instrumentation scope %q of the input is replaced by %q", sc.Name, ScopeName))
			break
		}
	}
	b, sp := begin(b, fResourceProfilesScope)
	b, sc := begin(b, fScopeProfilesScope)
	b = e.appendStringField(b, 1, ScopeName)
	b = e.appendStringField(b, 2, e.opts.ScopeVersion)
	b = end(b, sc)
	for _, p := range ps {
		b = e.container(b, p)
	}
	b = end(b, sp)
	b = e.appendStringField(b, fResourceProfilesSchemaURL, res.SchemaURL)
	return end(b, rp)
}

// container appends the ProfileContainer of p. A profile id derived from
// the content (see deriveID) is patched in once the Profile message is
// written.
func (e *encoder) container(b []byte, p *model.Profile) []byte {
	b, c := begin(b, fScopeProfilesProfiles)
	id := e.opts.ProfileID
	if len(id) == 0 {
		id = p.ProfileID
	}
	derive := len(id) == 0
	if derive {
		id = make([]byte, 16)
	}
	b = appendBytesField(b, fContainerProfileID, id)
	idAt := len(b) - 16
	start, endTime := p.StartTimeUnixNano, p.EndTimeUnixNano
	if start == 0 && p.TimeNanos > 0 {
		start = uint64(p.TimeNanos)
	}
	if endTime == 0 && p.TimeNanos > 0 && p.DurationNanos >= 0 {
		endTime = uint64(p.TimeNanos) + uint64(p.DurationNanos)
	}
	b = appendFixed64Field(b, fContainerStartTime, start)
	b = appendFixed64Field(b, fContainerEndTime, endTime)
	for _, a := range p.Attributes {
		if a.Key == DocURLAttribute && p.DocURL != 0 {
			continue // written from DocURL below
		}
		b = e.appendKeyValue(b, fContainerAttributes, a)
	}
	if p.DocURL != 0 {
		b = e.appendKeyValue(b, fContainerAttributes, model.Attribute{Key: DocURLAttribute,
			Value: model.Value{Kind: model.KindString, Str: p.String(p.DocURL)}})
	}
	b = appendVarintField(b, fContainerDroppedAttributesCount, uint64(p.DroppedAttributesCount))
	if e.opts.KeepOriginal && len(p.OriginalPayload) > 0 {
		b = e.appendStringField(b, fContainerOriginalPayloadFormat, p.OriginalPayloadFormat)
		b = appendBytesField(b, fContainerOriginalPayload, p.OriginalPayload)
	}
	b, pr := begin(b, fContainerProfile)
	b = e.profile(b, p)
	if derive {
		did := deriveID(b[pr:])
		copy(b[idAt:], did[:])
	}
	b = end(b, pr)
	return end(b, c)
}

// derivedIDTag is hashed with the content part of a derived profile id to
// make its mark.
const derivedIDTag = "pprofx derived profile id\x00"

// deriveID returns the profile id derived from a Profile message body: the
// first 12 bytes of its SHA-256, then a 4-byte mark, the first 4 bytes of
// the SHA-256 of derivedIDTag and those 12 bytes. The mark lets a reader
// recognise a derived id from the id alone (IsDerivedID), whatever layout
// the writer that derived it had: re-encoding the profile and comparing
// would call every id foreign once the layout changes. A foreign id passes
// for derived with probability 2^-32. (All zero, which OTLP forbids, would
// need both hashes to start with zero bytes: 2^-128.)
func deriveID(body []byte) [16]byte {
	sum := sha256.Sum256(body)
	var id [16]byte
	copy(id[:12], sum[:12])
	copy(id[12:], derivedIDMark(id[:12]))
	return id
}

func derivedIDMark(content []byte) []byte {
	h := sha256.New()
	h.Write([]byte(derivedIDTag))
	h.Write(content)
	return h.Sum(nil)[:4]
}

// IsDerivedID reports whether id is a profile id pprofx derived from a
// profile's content (see deriveID), not one given to it.
func IsDerivedID(id []byte) bool {
	return len(id) == 16 && bytes.Equal(id[12:], derivedIDMark(id[:12]))
}

// sizeHint guesses the encoded size of ps, to allocate the output once.
func sizeHint(ps []*model.Profile) int {
	n := 1 << 10
	for _, p := range ps {
		for _, s := range p.Strings {
			n += len(s) + 2
		}
		n += 6*len(p.Samples)*(len(p.SampleTypes)+2) + 2*len(p.Stacks.Frames) + 12*len(p.Locations) + 10*len(p.Functions)
		for i := range p.LabelSets {
			n += 12 * len(p.LabelSets[i].Labels)
		}
	}
	return n
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
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
		a.Double != b.Double || string(a.Bytes) != string(b.Bytes) || len(a.Array) != len(b.Array) {
		return false
	}
	for i := range a.Array {
		if !sameValue(a.Array[i], b.Array[i]) {
			return false
		}
	}
	return sameAttributes(a.Map, b.Map)
}

// profile appends the Profile message body of p to b.
func (e *encoder) profile(b []byte, p *model.Profile) []byte {
	e.p = p
	// Locations first: stacks are ordered by written location indices, so
	// that encoding a decoded pprofx profile again gives the same bytes
	// (and the same derived profile id).
	// (Laying the string table out on another goroutine, beside the
	// locations and stacks, was tried: waking a second thread cost more
	// than the sort it took over, 76 -> 110 µs on a Go CPU profile.)
	e.layoutAttributes()
	e.layoutLocations()
	e.layoutStacks()
	e.layoutFunctions()
	e.layoutStrings()

	for _, t := range p.SampleTypes {
		b = e.appendValueType(b, fProfileSampleType, t)
	}

	// Links: index shift when some sample has none and some has one.
	linkShift, anyLink, anyNoLink := 0, false, false
	for i := range p.Samples {
		if p.Samples[i].Link == model.NoLink {
			anyNoLink = true
		} else {
			anyLink = true
		}
	}
	// A placeholder goes first when some reference is none, or when the
	// first real entry is all zero (the reader would take it for the
	// placeholder); see placeholders in otlp.go.
	if anyLink && (anyNoLink || isNoLink(p.Links[0].TraceID, p.Links[0].SpanID)) {
		linkShift = 1
	}
	mapShift, funcShift := 0, 0
	for i := range p.Locations {
		l := &p.Locations[i]
		if l.Mapping == model.NoMapping {
			mapShift = 1
		}
		for _, ln := range l.Lines {
			if ln.Function == model.NoFunction {
				funcShift = 1
			}
		}
	}
	if len(p.Mappings) > 0 && e.zeroMapping(&p.Mappings[0]) {
		mapShift = 1
	}
	if len(e.forder) > 0 && e.zeroFunction(&p.Functions[e.forder[0]]) {
		funcShift = 1
	}

	var lab []byte
	for i := range p.Samples {
		s := &p.Samples[i]
		var sb int
		b, sb = begin(b, fProfileSample)
		if len(s.Values) > 0 {
			var vs int
			b, vs = begin(b, 2)
			for _, v := range s.Values {
				b = appendVarint(b, uint64(v))
			}
			b = end(b, vs)
		}
		st := e.lsStart[s.LabelSet]
		if st == -2 {
			for _, l := range p.LabelSets[s.LabelSet].Labels {
				lab = lab[:0]
				lab = appendVarintField(lab, 1, e.sx(l.Key))
				lab = appendVarintField(lab, 2, e.sx(l.Str))
				lab = appendVarintField(lab, 3, uint64(l.Num))
				lab = appendVarintField(lab, 4, e.sx(l.NumUnit))
				b = appendTag(b, 3, protowire.BytesType)
				b = protowire.AppendBytes(b, lab)
			}
		}
		// attribute_indices right after the values, before the stack's
		// start and length (in a heap profile the attribute, the "bytes"
		// label, goes with the values). Against start, length,
		// attributes (gzipped size): heap -0.8%, deep-stacks -0.3%, cpu
		// -0.1%; goroutine +0.4% (3 bytes); the others within 0.05%.
		if st >= 0 && e.lsEnd[s.LabelSet] > st {
			var as int
			b, as = begin(b, 10)
			for _, a := range e.attrs[st:e.lsEnd[s.LabelSet]] {
				b = appendVarint(b, a)
			}
			b = end(b, as)
		}
		n := len(p.Stacks.Get(int(s.Stack)))
		b = appendVarintField(b, 7, uint64(e.stStart[s.Stack]))
		b = appendVarintField(b, 8, uint64(n))
		if s.Link != model.NoLink {
			b = appendVarintField(b, 12, uint64(int(s.Link)+linkShift))
		}
		if len(s.Timestamps) > 0 {
			var ts int
			b, ts = begin(b, 13)
			for _, t := range s.Timestamps {
				b = appendVarint(b, t)
			}
			b = end(b, ts)
		}
		b = end(b, sb)
	}

	if mapShift == 1 {
		b = append(appendTag(b, fProfileMapping, protowire.BytesType), 0)
	}
	for i := range p.Mappings {
		m := &p.Mappings[i]
		var mb int
		b, mb = begin(b, fProfileMapping)
		b = appendVarintField(b, 2, m.Start)
		b = appendVarintField(b, 3, m.Limit)
		b = appendVarintField(b, 4, m.Offset)
		b = appendVarintField(b, 5, e.sx(m.File))
		b = appendVarintField(b, 6, e.sx(m.BuildID))
		b = appendBoolField(b, 7, m.HasFunctions)
		b = appendBoolField(b, 8, m.HasFilenames)
		b = appendBoolField(b, 9, m.HasLineNumbers)
		b = appendBoolField(b, 10, m.HasInlineFrames)
		b = appendVarintField(b, 11, uint64(m.BuildIDKind))
		b = end(b, mb)
	}
	for _, i := range e.lorder {
		l := &p.Locations[i]
		var lb int
		b, lb = begin(b, fProfileLocation)
		// Lines first, then mapping and address: in address order the
		// lines of neighbours repeat (same function, near line numbers)
		// while addresses always differ, and gzip finds the longer matches
		// this way. On the Go fixtures it saves 1 to 2% of the gzipped size
		// (it takes heap-lines under 0.89); the generated profiles, whose
		// locations are one line each at random, grow by 0.3 to 0.7%.
		for _, ln := range l.Lines {
			var nb int
			b, nb = begin(b, 4)
			if ln.Function != model.NoFunction {
				b = appendVarintField(b, 1, uint64(int(e.fmap[ln.Function])+funcShift))
			}
			b = appendVarintField(b, 2, uint64(ln.Line))
			b = appendVarintField(b, 3, uint64(ln.Column))
			b = end(b, nb)
		}
		if l.Mapping != model.NoMapping {
			b = appendVarintField(b, 2, uint64(int(l.Mapping)+mapShift))
		}
		b = appendVarintField(b, 3, l.Address)
		b = appendBoolField(b, 5, l.IsFolded)
		b = end(b, lb)
	}
	if funcShift == 1 {
		b = append(appendTag(b, fProfileFunction, protowire.BytesType), 0)
	}
	for _, i := range e.forder {
		f := &p.Functions[i]
		var fb int
		b, fb = begin(b, fProfileFunction)
		// Filename first. Neighbours (in address order) mostly come from
		// the same file, so their records then start with the same 4
		// bytes, which is what compress/flate needs to emit a match;
		// name first, the shared runs are 3 bytes. Against name first
		// (gzipped size): mutex -2.6%, block -1.8%, goroutine -1.1%,
		// heap -0.8%, cpu -0.5%; rich, synthetic-20k and deep-* within
		// +-0.1%.
		b = appendVarintField(b, 4, e.sx(f.Filename))
		b = appendVarintField(b, 2, e.sx(f.Name))
		b = appendVarintField(b, 3, e.sx(f.SystemName))
		b = appendVarintField(b, 5, uint64(f.StartLine))
		b = end(b, fb)
	}
	for _, s := range e.strs {
		b = appendTag(b, fProfileStringTable, protowire.BytesType)
		b = protowire.AppendString(b, e.validUTF8(s))
	}
	b = appendVarintField(b, fProfileDropFrames, e.sx(p.DropFrames))
	b = appendVarintField(b, fProfileKeepFrames, e.sx(p.KeepFrames))
	b = appendVarintField(b, fProfileTimeNanos, uint64(p.TimeNanos))
	b = appendVarintField(b, fProfileDurationNanos, uint64(p.DurationNanos))
	if p.PeriodType != (model.ValueType{}) {
		b = e.appendValueType(b, fProfilePeriodType, p.PeriodType)
	}
	b = appendVarintField(b, fProfilePeriod, uint64(p.Period))
	if len(p.Comments) > 0 {
		var cb int
		b, cb = begin(b, fProfileComment)
		for _, c := range p.Comments {
			b = appendVarint(b, e.sx(c))
		}
		b = end(b, cb)
	}
	b = appendVarintField(b, fProfileDefaultSampleType, e.sx(p.DefaultSampleType))
	if len(e.li) > 0 {
		var lb int
		b, lb = begin(b, fProfileLocationIndices)
		for _, x := range e.li {
			b = appendVarint(b, uint64(e.lmap[x]))
		}
		b = end(b, lb)
	}
	for _, k := range e.kv {
		var kb int
		b, kb = begin(b, fProfileAttributeTable)
		b = e.appendStringField(b, 1, p.String(k.key))
		var vb int
		b, vb = begin(b, 2)
		if k.numeric {
			b = appendTag(b, 3, protowire.VarintType)
			b = appendVarint(b, uint64(k.num))
		} else {
			b = appendTag(b, 1, protowire.BytesType)
			b = protowire.AppendString(b, e.validUTF8(p.String(k.str)))
		}
		b = end(b, vb)
		b = end(b, kb)
	}
	for _, u := range e.units {
		var ub int
		b, ub = begin(b, fProfileAttributeUnits)
		b = appendVarintField(b, 1, e.sx(u[0]))
		b = appendVarintField(b, 2, e.sx(u[1]))
		b = end(b, ub)
	}
	if anyLink {
		if linkShift == 1 {
			b = append(appendTag(b, fProfileLinkTable, protowire.BytesType), 0)
		}
		for _, l := range p.Links {
			var lb int
			b, lb = begin(b, fProfileLinkTable)
			b = appendBytesField(b, 1, l.TraceID)
			b = appendBytesField(b, 2, l.SpanID)
			b = end(b, lb)
		}
	}
	return b
}

// zeroMapping reports whether m is written as an all-zero Mapping.
func (e *encoder) zeroMapping(m *model.Mapping) bool {
	return m.Start == 0 && m.Limit == 0 && m.Offset == 0 && e.sx(m.File) == 0 && e.sx(m.BuildID) == 0 &&
		m.BuildIDKind == 0 && !m.HasFunctions && !m.HasFilenames && !m.HasLineNumbers && !m.HasInlineFrames
}

// zeroFunction reports whether f is written as an all-zero Function.
func (e *encoder) zeroFunction(f *model.Function) bool {
	return e.sx(f.Name) == 0 && e.sx(f.SystemName) == 0 && e.sx(f.Filename) == 0 && f.StartLine == 0
}

// isNoLink reports whether a link with these ids is all zero: at index 0
// of link_table, the placeholder for "no link".
func isNoLink(trace, span []byte) bool { return allZero(trace) && allZero(span) }

func (e *encoder) appendValueType(b []byte, num protowire.Number, t model.ValueType) []byte {
	b, s := begin(b, num)
	b = appendVarintField(b, 1, e.sx(t.Type))
	b = appendVarintField(b, 2, e.sx(t.Unit))
	b = appendVarintField(b, 3, uint64(t.AggregationTemporality))
	return end(b, s)
}

// layoutStacks fills e.li and e.stStart: every stack used by a sample gets
// a slice of location_indices. Identical stacks share one slice, and a
// stack that is the caller part (the root end) of a longer one reuses that
// one's tail.
//
// The distinct stacks are sorted root first, lexicographically: a stack that
// is the caller part of others then sorts just before them, so it is the
// caller part of its successor if of any. Going through the sorted stacks
// backwards, a stack either reuses its successor's tail or is written out.
// Neighbours in location_indices then share callers, which gzip likes.
//
// Tried and dropped: stacks in order of first use by the samples (so that
// start indices rise), sharing a slice whenever the whole stack is the
// caller part of one written before (a trie of suffixes, O(frames)): block
// -0.2%, but cpu +0.5%, synthetic-20k +1.8%, deep-stacks +9% and
// deep-unique +18% (a stack written before its callers' shorter stacks
// cannot share with them). Cost of the sorted layout: one sort of the
// distinct stacks, comparisons walking common callers.
func (e *encoder) layoutStacks() {
	p := e.p
	ns := p.Stacks.Len()
	e.stStart = slices.Grow(e.stStart[:0], ns)[:ns]
	for i := range e.stStart {
		e.stStart[i] = -1
	}
	e.li = e.li[:0]

	// Distinct used stacks (by table index).
	used := e.sused[:0]
	for i := range p.Samples {
		s := p.Samples[i].Stack
		if e.stStart[s] == -1 {
			e.stStart[s] = -2
			used = append(used, s)
		}
	}
	get := func(s int32) []int32 { return p.Stacks.Get(int(s)) }
	// Each used stack's written location indices, root first, back to
	// back: comparisons are then plain slice compares.
	frames := 0
	for _, s := range used {
		frames += len(get(s))
	}
	keys, offs := slices.Grow(e.skeys[:0], frames), slices.Grow(e.soffs[:0], len(used)+1)
	for _, s := range used {
		offs = append(offs, int32(len(keys)))
		st := get(s)
		for i := len(st) - 1; i >= 0; i-- {
			keys = append(keys, e.lmap[st[i]])
		}
	}
	offs = append(offs, int32(len(keys)))
	ss := e.sortStacks[:0]
	for k, s := range used {
		ss = append(ss, seq{keys[offs[k]:offs[k+1]], s})
	}
	sortSeqs(ss)
	for k := range ss {
		used[k] = ss[k].i
	}
	e.sused, e.sortStacks, e.skeys, e.soffs = used, ss, keys, offs
	if cap(e.li) < frames {
		e.li = make([]int64, 0, frames)
	}
	for k := len(used) - 1; k >= 0; k-- {
		s := used[k]
		st := get(s)
		if len(st) == 0 {
			e.stStart[s] = 0
			continue
		}
		if k+1 < len(used) {
			next := get(used[k+1])
			if d := len(next) - len(st); d >= 0 && slices.Equal(next[d:], st) {
				e.stStart[s] = e.stStart[used[k+1]] + int32(d)
				continue
			}
		}
		e.stStart[s] = int32(len(e.li))
		for _, f := range st {
			e.li = append(e.li, int64(f))
		}
	}
}

// layoutAttributes fills the attribute table and units and, per label set
// used by a sample, its attribute indices (or -2 in lsStart when it must be
// written with the deprecated Sample.label because one of its numeric
// labels has a unit other than its key's in attribute_units).
func (e *encoder) layoutAttributes() {
	p := e.p
	nl := len(p.LabelSets)
	e.lsStart = slices.Grow(e.lsStart[:0], nl)[:nl]
	e.lsEnd = slices.Grow(e.lsEnd[:0], nl)[:nl]
	for i := range e.lsStart {
		e.lsStart[i], e.lsEnd[i] = -1, -1
	}
	e.attrs, e.kv, e.units = e.attrs[:0], e.kv[:0], e.units[:0]
	if e.kvIndex == nil {
		e.kvIndex, e.keyUnit = map[kvKey]int32{}, map[int32]int32{}
	}
	clear(e.kvIndex)
	clear(e.keyUnit)
	index := e.kvIndex
	keyUnit := e.keyUnit // numeric key -> its unit (0: none)
	conflict := false
	for i := range p.Samples {
		ls := p.Samples[i].LabelSet
		if e.lsStart[ls] != -1 {
			continue
		}
		labels := p.LabelSets[ls].Labels
		ok := true
		for j, l := range labels {
			if !l.IsNumeric() {
				continue
			}
			if u, seen := keyUnit[l.Key]; seen && u != l.NumUnit {
				ok = false
				break
			}
			for _, m := range labels[:j] { // same key, other unit, in this set
				if m.IsNumeric() && m.Key == l.Key && m.NumUnit != l.NumUnit {
					ok = false
				}
			}
		}
		if !ok {
			e.lsStart[ls] = -2
			conflict = true
			continue
		}
		e.lsStart[ls] = int32(len(e.attrs))
		for _, l := range labels {
			k := kvKey{key: l.Key}
			if l.IsNumeric() {
				k.numeric, k.num = true, l.Num
				if _, seen := keyUnit[l.Key]; !seen {
					keyUnit[l.Key] = l.NumUnit
					if l.NumUnit != 0 {
						e.units = append(e.units, [2]int32{l.Key, l.NumUnit})
					}
				}
			} else {
				k.str = l.Str
			}
			x, seen := index[k]
			if !seen {
				x = int32(len(e.kv))
				index[k] = x
				e.kv = append(e.kv, k)
			}
			e.attrs = append(e.attrs, uint64(x))
		}
		e.lsEnd[ls] = int32(len(e.attrs))
	}
	e.sortAttributes()
	if conflict {
		e.warn("otlp: some numeric labels have a unit other than their key's first unit; those samples carry their labels in the deprecated Sample.label field")
	}
}

// sortAttributes sorts the attribute table by key, then kind (strings
// first), then value, and renumbers e.attrs. In a Go heap profile the
// table is mostly the numeric "bytes" label, one entry per allocation size;
// in increasing order its values compress better than in order of first
// use (0.2% of the heap fixture's gzipped size, no change elsewhere). Cost:
// one sort of the table, O(k log k).
func (e *encoder) sortAttributes() {
	if len(e.kv) < 2 {
		return
	}
	p := e.p
	perm := make([]int32, len(e.kv))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(a, b int32) int {
		x, y := &e.kv[a], &e.kv[b]
		if c := strings.Compare(p.String(x.key), p.String(y.key)); c != 0 {
			return c
		}
		if x.numeric != y.numeric {
			if x.numeric {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(x.num, y.num); c != 0 {
			return c
		}
		if c := strings.Compare(p.String(x.str), p.String(y.str)); c != 0 {
			return c
		}
		return int(a) - int(b) // a total order: the result is deterministic
	})
	if slices.IsSorted(perm) {
		return
	}
	inv := make([]uint64, len(perm))
	kv := make([]kvKey, len(perm))
	for k, i := range perm {
		inv[i] = uint64(k)
		kv[k] = e.kv[i]
	}
	copy(e.kv, kv)
	for i, a := range e.attrs {
		e.attrs[i] = inv[a]
	}
}

// layoutFunctions orders the function table by first use when going through
// the locations in written (address) order, each location's lines from the
// outermost caller in: functions then follow their code's order in the
// binary, and a location's function index is mostly its predecessor's or
// one more, which gzip likes. Against input order this saves 1.1% of the
// gzipped size of the cpu fixtures, 0.5% of rich, 0.2% of heap, mutex and
// block; a sort by name was worse than input order for block and goroutine
// (+0.7%). Functions no location uses follow, in input order. Cost:
// O(locations + lines).
func (e *encoder) layoutFunctions() {
	p := e.p
	n := len(p.Functions)
	e.forder = slices.Grow(e.forder[:0], n)
	e.fmap = slices.Grow(e.fmap[:0], n)[:n]
	for i := range e.fmap {
		e.fmap[i] = -1
	}
	for _, li := range e.lorder {
		lines := p.Locations[li].Lines
		for k := len(lines) - 1; k >= 0; k-- {
			if f := lines[k].Function; f != model.NoFunction && e.fmap[f] == -1 {
				e.fmap[f] = int32(len(e.forder))
				e.forder = append(e.forder, f)
			}
		}
	}
	for i := range e.fmap {
		if e.fmap[i] == -1 {
			e.fmap[i] = int32(len(e.forder))
			e.forder = append(e.forder, int32(i))
		}
	}
}

// sx returns the written string index of model string index i.
func (e *encoder) sx(i int32) uint64 { return uint64(e.smap[i]) }

// layoutStrings chooses the string table written: the strings referenced
// by index (label keys and values in attribute_table are written inline, so
// strings only they use are left out), each once, sorted, with "" first.
// Sorted strings put names with common prefixes side by side, which gzip
// compresses better (about 1.5% of a Go profile's gzipped size; order of
// first use through the functions was 0.6% to 1% worse than sorted).
// Cost: one sort of the strings used.
func (e *encoder) layoutStrings() {
	p := e.p
	n := len(p.Strings)
	e.smap = slices.Grow(e.smap[:0], n)[:n]
	for i := range e.smap {
		e.smap[i] = -1
	}
	var idx []int32
	mark := func(i int32) {
		if i > 0 && e.smap[i] == -1 {
			e.smap[i] = 0
			idx = append(idx, i)
		}
	}
	for i := range p.Mappings {
		mark(p.Mappings[i].File)
		mark(p.Mappings[i].BuildID)
	}
	for i := range p.Functions {
		f := &p.Functions[i]
		mark(f.Name)
		mark(f.SystemName)
		mark(f.Filename)
	}
	for _, t := range p.SampleTypes {
		mark(t.Type)
		mark(t.Unit)
	}
	mark(p.PeriodType.Type)
	mark(p.PeriodType.Unit)
	for _, c := range p.Comments {
		mark(c)
	}
	mark(p.DropFrames)
	mark(p.KeepFrames)
	mark(p.DefaultSampleType)
	for _, u := range e.units {
		mark(u[0])
		mark(u[1])
	}
	for ls, st := range e.lsStart {
		if st == -2 {
			for _, l := range p.LabelSets[ls].Labels {
				mark(l.Key)
				mark(l.Str)
				mark(l.NumUnit)
			}
		}
	}
	// (A multikey quicksort, as for stacks, walks the long shared
	// prefixes of package paths byte by byte and was slower here than
	// comparisons, which compare many bytes at a time.)
	slices.SortFunc(idx, func(a, b int32) int { return strings.Compare(p.Strings[a], p.Strings[b]) })
	e.strs = append(e.strs[:0], "")
	e.smap[0] = 0
	for _, i := range idx {
		s := p.Strings[i]
		if s != e.strs[len(e.strs)-1] {
			e.strs = append(e.strs, s)
		}
		e.smap[i] = int32(len(e.strs) - 1)
	}
	if len(e.strs) <= 128 {
		return // every index is a one-byte varint already
	}
	// Function names are the most referenced strings (name and
	// system_name of each function): put them first, still sorted, so
	// that more of them get one-byte indices. Equal strings were merged
	// above, so a string is a name by its content, whatever its model
	// index. Gain: 1.4% of the heap fixture's gzipped size, 0.3% for cpu;
	// profiles with 128 strings or fewer are left as they are (there the
	// split made block and goroutine 0.5% bigger). Cost: O(strings).
	isName := make([]bool, len(e.strs))
	for i := range p.Functions {
		f := &p.Functions[i]
		isName[e.smap[f.Name]] = true
		isName[e.smap[f.SystemName]] = true
	}
	isName[0] = false // "" stays first
	remap := make([]int32, len(e.strs))
	strs := make([]string, 1, len(e.strs))
	for pass := 0; pass < 2; pass++ {
		for k := 1; k < len(e.strs); k++ {
			if isName[k] == (pass == 0) {
				remap[k] = int32(len(strs))
				strs = append(strs, e.strs[k])
			}
		}
	}
	copy(e.strs, strs)
	for i, x := range e.smap {
		if x > 0 {
			e.smap[i] = remap[x]
		}
	}
}

// layoutLocations orders the location table by mapping and address (input
// order among equals). Neighbouring addresses then share their high bytes,
// which gzip compresses better (about 1.5% of a Go profile's gzipped size).
// Cost: one sort, skipped when the input is in order already (a decoded
// pprofx OTLP file).
//
// Tried and dropped: order of first appearance when walking the samples'
// stacks, as Go's runtime numbers pprof locations (leaf first: cpu +1.5%,
// heap +1.7%, mutex +1.5%; root first: cpu +1.5%, heap +1.5%, mutex
// +1.1%); the 127 locations most used by stacks first (one-byte indices in
// location_indices), each part in address order: cpu +1.2%, heap +0.3%.
func (e *encoder) layoutLocations() {
	locs := e.p.Locations
	n := len(locs)
	e.lmap = slices.Grow(e.lmap[:0], n)[:n]
	// The keys sort beside the indices: no indirection per compare.
	keys := e.lkeys[:0]
	for i := range locs {
		keys = append(keys, locKey{locs[i].Address, locs[i].Mapping, int32(i)})
	}
	less := func(x, y locKey) int {
		if x.mapping != y.mapping {
			return int(x.mapping) - int(y.mapping)
		}
		if c := cmp.Compare(x.address, y.address); c != 0 {
			return c
		}
		return int(x.i) - int(y.i) // a total order: the result is deterministic
	}
	if !slices.IsSortedFunc(keys, less) && !radixSortLocKeys(keys, &e.lkeys2) {
		slices.SortFunc(keys, less)
	}
	e.lorder = slices.Grow(e.lorder[:0], n)[:n]
	for k, x := range keys {
		e.lorder[k] = x.i
		e.lmap[x.i] = int32(k)
	}
	e.lkeys = keys
}

type locKey struct {
	address uint64
	mapping int32
	i       int32
}

// radixSortLocKeys sorts keys (in index order) by mapping then address,
// stably, with a least-significant-byte-first radix sort over the bytes in
// which the keys differ, when both fit one 64-bit key (addresses below
// 2^48, fewer than 2^15 mappings). It reports false, sorting nothing, when
// they do not. tmp is scratch. Locations have a few varying address bytes,
// so this is a few linear passes, against n·log n comparisons.
func radixSortLocKeys(keys []locKey, tmp *[]locKey) bool {
	or, and := uint64(0), ^uint64(0)
	for _, x := range keys {
		if x.address >= 1<<48 || x.mapping >= 1<<15-1 {
			return false
		}
		k := packLocKey(x)
		or, and = or|k, and&k
	}
	buf := slices.Grow((*tmp)[:0], len(keys))[:len(keys)]
	*tmp = buf
	src, dst := keys, buf
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		if (or^and)>>shift&0xff == 0 {
			continue // every key has the same byte here
		}
		count = [256]int{}
		for _, x := range src {
			count[packLocKey(x)>>shift&0xff]++
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, x := range src {
			b := packLocKey(x) >> shift & 0xff
			dst[count[b]] = x
			count[b]++
		}
		src, dst = dst, src
	}
	if len(keys) > 0 && &src[0] != &keys[0] {
		copy(keys, src)
	}
	return true
}

// packLocKey is mapping+1 (none is -1) over the address.
func packLocKey(x locKey) uint64 { return uint64(x.mapping+1)<<48 | x.address }
