package pprofextended

import (
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/hashindex"
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

	// A spilled body (spill.go): where its bytes go, and the first error
	// writing them; and, per profile, the Profile message's size and
	// derived id, which the containers are written with.
	sink    io.Writer
	sinkErr error
	bodies  []spilledBody

	// Per profile.
	p          *model.Profile
	strs       []int32 // the string table written, as model string indices
	smap       []int32 // model string index -> index in strs
	lorder     []int32 // model location indices in the order written
	lmap       []int32 // model location index -> written index
	forder     []int32 // model function indices in the order written
	fmap       []int32 // model function index -> written index
	written    []int32 // model stacks whose frames location_indices holds, in order
	nli        int     // the number of location_indices
	stStart    []int32 // per model stack: start in location_indices, -1 if unused
	sortStacks []seq   // scratch of layoutStacks
	lkeys      []locKey
	lkeys2     []locKey
	kvIndex    hashindex.Index // of kv, by its entries (scratch of layoutAttributes)
	kvSeed     maphash.Seed
	keyUnit    map[int32]int32
	attrs      []uint32 // attribute indices of label sets, back to back
	lsStart    []int32  // per label set: start in attrs; -1 unknown, -2 written as labels
	lsEnd      []int32
	kv         []kvKey // attribute table
	units      [][2]int32
	// Placeholders: 1 when a table's index 0 is an all-zero "none" entry.
	linkShift, mapShift, funcShift int
	anyLink                        bool // some sample has a link
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

// profilesData returns the ProfilesData message holding ps, made in
// e.out with room for room bytes.
func (e *encoder) profilesData(ps []*model.Profile, room int) []byte {
	b := slices.Grow(e.out[:0], room)
	b, rp := begin(b, fProfilesDataResourceProfiles)
	e.warnUnwritten(ps)

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
	for i, p := range ps {
		b = e.container(b, p, i)
	}
	b = end(b, sp)
	b = e.appendStringField(b, fResourceProfilesSchemaURL, res.SchemaURL)
	return end(b, rp)
}

// warnUnwritten names, once, what of the model this writer does not
// write: sample attributes pprof's labels cannot hold, the attributes of
// mappings and locations, and the units of profile attributes.
func (e *encoder) warnUnwritten(ps []*model.Profile) {
	var sample, mapping, location, unit bool
	for _, p := range ps {
		for i := range p.LabelSets {
			sample = sample || len(p.LabelSets[i].Attributes()) > 0
		}
		for i := range p.Mappings {
			mapping = mapping || len(p.Mappings[i].Attributes) > 0
		}
		for _, as := range p.LocationAttributes {
			location = location || len(as) > 0
		}
		for _, a := range p.Attributes {
			unit = unit || a.Unit != ""
		}
	}
	var lost []string
	for _, x := range []struct {
		on   bool
		what string
	}{{sample, "sample attributes that labels cannot hold"}, {mapping, "mapping attributes"},
		{location, "location attributes"}, {unit, "units of profile attributes"}} {
		if x.on {
			lost = append(lost, x.what)
		}
	}
	if len(lost) > 0 {
		e.warn("otlp: this writer (pprofextended) does not write " + strings.Join(lost, ", ") + "; dropped")
	}
}

// derivedIDTag is hashed with the content part of a derived profile id to
// make its mark.
const derivedIDTag = "pprofx derived profile id\x00"

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
		frames := protowire.SizeVarint(uint64(p.Stacks.NumFrames()))
		// location_indices: a frame is a location index.
		n += loc * p.Stacks.NumFrames()
		// A location: its address, mapping, tags and length; a line: its
		// function, line number, tags and length.
		n += 14 * len(p.Locations)
		for i := range p.Locations {
			n += len(p.LocationLines(i)) * (7 + fn)
		}
		// A function: three string indices, a start line, tags and length.
		n += (8 + 3*str) * len(p.Functions)
		// A sample: its stack's start and length, its values (6 bytes
		// each: up to 10), its attribute indices, tags and lengths.
		n += len(p.Samples) * (8 + 2*frames + 6*len(p.SampleTypes))
		for i := range p.Samples {
			n += 9 * len(p.Samples[i].Timestamps())
		}
		for i := range p.LabelSets {
			n += 24 * (len(p.LabelSets[i].Labels()) + len(p.LabelSets[i].Attributes()))
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

// profile appends the Profile message body of p to b.
func (e *encoder) profile(b []byte, p *model.Profile) []byte {
	e.layout(p)
	return e.appendBody(b, p, false)
}

// layout decides what the tables of p hold, and in which order.
func (e *encoder) layout(p *model.Profile) {
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
	e.placeholders(p)
}

// appendBody appends the Profile message body of p, laid out, to b, its
// fields in the order of their numbers, as protobuf's encoders write them;
// with declared, in the order the schema declares them, as its JSON lists
// them (location_indices after location, the attribute and link tables
// before the string table).
func (e *encoder) appendBody(b []byte, p *model.Profile, declared bool) []byte {
	for _, t := range p.SampleTypes {
		b = e.appendValueType(b, fProfileSampleType, t)
	}
	b = e.appendSamples(b, p)
	b = e.appendMappings(b, p)
	b = e.appendLocations(b, p)
	if declared {
		b = e.appendLocationIndices(b, p)
		b = e.appendFunctions(b, p)
		b = e.appendAttributeTable(b, p)
		b = e.appendLinks(b, p)
		b = e.appendStrings(b, p)
		return e.appendHeader(b, p)
	}
	b = e.appendFunctions(b, p)
	b = e.appendStrings(b, p)
	b = e.appendHeader(b, p)
	b = e.appendLocationIndices(b, p)
	b = e.appendAttributeTable(b, p)
	return e.appendLinks(b, p)
}

// placeholders decides which tables get an all-zero entry 0 for "none",
// shifting every index into them by one.
func (e *encoder) placeholders(p *model.Profile) {
	e.linkShift, e.mapShift, e.funcShift, e.anyLink = 0, 0, 0, false
	anyNoLink := false
	// Links: index shift when some sample has none and some has one.
	for i := range p.Samples {
		if p.Samples[i].Link == model.NoLink {
			anyNoLink = true
		} else {
			e.anyLink = true
		}
	}
	// A placeholder goes first when some reference is none, or when the
	// first real entry is all zero (the reader would take it for the
	// placeholder); see placeholders in otlp.go.
	if e.anyLink && (anyNoLink || isNoLink(p.Links[0].TraceID, p.Links[0].SpanID)) {
		e.linkShift = 1
	}
	for i := range p.Locations {
		l := &p.Locations[i]
		if l.Mapping == model.NoMapping {
			e.mapShift = 1
		}
		for _, ln := range p.LinesOf(l) {
			if ln.Function == model.NoFunction {
				e.funcShift = 1
			}
		}
	}
	if len(p.Mappings) > 0 && e.zeroMapping(&p.Mappings[0]) {
		e.mapShift = 1
	}
	if len(e.forder) > 0 && e.zeroFunction(&p.Functions[e.forder[0]]) {
		e.funcShift = 1
	}
}

// appendSamples appends the samples.
func (e *encoder) appendSamples(b []byte, p *model.Profile) []byte {
	var lab []byte
	for i := range p.Samples {
		b = e.spill(b)
		s := &p.Samples[i]
		var sb int
		b, sb = begin(b, fProfileSample)
		if len(s.Values()) > 0 {
			var vs int
			b, vs = begin(b, 2)
			for _, v := range s.Values() {
				b = appendVarint(b, uint64(v))
			}
			b = end(b, vs)
		}
		st := e.lsStart[s.LabelSet]
		if st == -2 {
			for _, l := range p.LabelSets[s.LabelSet].Labels() {
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
				b = appendVarint(b, uint64(a))
			}
			b = end(b, as)
		}
		n := p.Stacks.StackLen(int(s.Stack))
		b = appendVarintField(b, 7, uint64(e.stStart[s.Stack]))
		b = appendVarintField(b, 8, uint64(n))
		if s.Link != model.NoLink {
			b = appendVarintField(b, 12, uint64(int(s.Link)+e.linkShift))
		}
		if len(s.Timestamps()) > 0 {
			var ts int
			b, ts = begin(b, 13)
			for _, t := range s.Timestamps() {
				b = appendVarint(b, t)
			}
			b = end(b, ts)
		}
		b = end(b, sb)
	}

	return b
}

// appendMappings appends the mapping table.
func (e *encoder) appendMappings(b []byte, p *model.Profile) []byte {
	if e.mapShift == 1 {
		b = append(appendTag(b, fProfileMapping, protowire.BytesType), 0)
	}
	for i := range p.Mappings {
		b = e.spill(b)
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
	return b
}

// appendLocations appends the location table, in the layout's order.
func (e *encoder) appendLocations(b []byte, p *model.Profile) []byte {
	for _, i := range e.lorder {
		b = e.spill(b)
		l := &p.Locations[i]
		var lb int
		b, lb = begin(b, fProfileLocation)
		// Lines first, then mapping and address: in address order the
		// lines of neighbours repeat (same function, near line numbers)
		// while addresses always differ, and gzip finds the longer matches
		// this way. On the Go fixtures it saves 1 to 2% of the gzipped size
		// (it takes heap-lines under 0.89); the generated profiles, whose
		// locations are one line each at random, grow by 0.3 to 0.7%.
		for j, ln := range p.LinesOf(l) {
			var nb int
			b, nb = begin(b, 4)
			if ln.Function != model.NoFunction {
				b = appendVarintField(b, 1, uint64(int(e.fmap[ln.Function])+e.funcShift))
			}
			b = appendVarintField(b, 2, uint64(ln.Line))
			b = appendVarintField(b, 3, uint64(p.ColumnOf(l, j)))
			b = end(b, nb)
		}
		if l.Mapping != model.NoMapping {
			b = appendVarintField(b, 2, uint64(int(l.Mapping)+e.mapShift))
		}
		b = appendVarintField(b, 3, l.Address)
		b = appendBoolField(b, 5, l.IsFolded)
		b = end(b, lb)
	}
	return b
}

// appendFunctions appends the function table, in the layout's order.
func (e *encoder) appendFunctions(b []byte, p *model.Profile) []byte {
	if e.funcShift == 1 {
		b = append(appendTag(b, fProfileFunction, protowire.BytesType), 0)
	}
	for _, i := range e.forder {
		b = e.spill(b)
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
	return b
}

// appendStrings appends the string table.
func (e *encoder) appendStrings(b []byte, p *model.Profile) []byte {
	for _, s := range e.strs {
		b = e.spill(b)
		b = appendTag(b, fProfileStringTable, protowire.BytesType)
		b = protowire.AppendString(b, e.validUTF8(p.String(s)))
	}
	return b
}

// appendHeader appends the profile's own fields.
func (e *encoder) appendHeader(b []byte, p *model.Profile) []byte {
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
	return appendVarintField(b, fProfileDefaultSampleType, e.sx(p.DefaultSampleType))
}

// appendLocationIndices appends the stacks' location indices.
func (e *encoder) appendLocationIndices(b []byte, p *model.Profile) []byte {
	if e.nli > 0 && e.sink == nil {
		var lb int
		b, lb = begin(b, fProfileLocationIndices)
		for _, s := range e.written {
			for j := range p.Stacks.StackLen(int(s)) {
				b = appendVarint(b, uint64(e.lmap[p.Stacks.Frame(int(s), j)]))
			}
		}
		b = end(b, lb)
	} else if e.nli > 0 {
		// A spilled body writes the field as it goes: its length first.
		n := 0
		for _, s := range e.written {
			for j := range p.Stacks.StackLen(int(s)) {
				n += protowire.SizeVarint(uint64(e.lmap[p.Stacks.Frame(int(s), j)]))
			}
		}
		b = appendTag(b, fProfileLocationIndices, protowire.BytesType)
		b = appendVarint(b, uint64(n))
		for _, s := range e.written {
			for j := range p.Stacks.StackLen(int(s)) {
				if len(b) >= spillSize {
					b = e.spill(b)
				}
				b = appendVarint(b, uint64(e.lmap[p.Stacks.Frame(int(s), j)]))
			}
		}
	}
	return b
}

// appendAttributeTable appends the attribute table and its units.
func (e *encoder) appendAttributeTable(b []byte, p *model.Profile) []byte {
	for _, k := range e.kv {
		b = e.spill(b)
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
	return b
}

// appendLinks appends the link table.
func (e *encoder) appendLinks(b []byte, p *model.Profile) []byte {
	if e.anyLink {
		if e.linkShift == 1 {
			b = append(appendTag(b, fProfileLinkTable, protowire.BytesType), 0)
		}
		for _, l := range p.Links {
			b = e.spill(b)
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
