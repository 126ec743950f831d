// Package model is pprofx's one normalized profile: every repeated thing is
// stored once, in a table, and referenced by its index in that table.
//
// The model has no I/O and no knowledge of any file format. Codecs
// (internal/codec/pprof, internal/codec/gperftools, internal/codec/pprofextended, internal/codec/bundle)
// translate between bytes and this model; transformations work on the model.
//
// Index conventions:
//   - Strings[0] is always "" and string index 0 means "empty".
//   - LabelSets[0] is always the empty set; a sample with LabelSet 0 has no labels.
//   - Mapping and Link references use -1 (NoMapping, NoLink) for "none".
//   - Stacks are leaf first: frame 0 is where the sample was taken.
package model

import "unsafe"

// NoMapping is the Location.Mapping value of a location with no mapping.
const NoMapping = -1

// NoLink is the Sample.Link value of a sample with no link.
const NoLink = -1

// NoFunction is the Line.Function value of a line that names no function
// (pprof allows a line with a line number only).
const NoFunction = -1

// Profile is one profile: its tables, its samples and its profile-level fields.
type Profile struct {
	// Tables. Each is referenced by index from the tables below it.
	Strings   []string   // Strings[0] == ""
	Mappings  []Mapping  // binaries mapped into the address space
	Functions []Function // functions named by location lines
	Locations []Location // program counters with their symbolization
	Lines     []Line     // the locations' lines (see Profile.LinesOf)
	// Columns are the lines' columns: Columns[i] is the column of
	// Lines[i], and the lines past its end have column 0. It is nil in
	// a profile whose lines name no column, as most do, so that a line
	// takes 16 bytes, not 24 (see Column, SetColumn).
	Columns   []int64
	Stacks    Stacks     // distinct stacks of location indices, leaf first
	LabelSets []LabelSet // distinct label sets; LabelSets[0] is empty
	Links     []Link     // trace/span links referenced by samples

	// LocationAttributes are the locations' OpenTelemetry attributes that
	// no field of Location holds, in the order read: profile.frame.type
	// of the semantic conventions, and a producer's own. Entry i is
	// location i's; locations past its end have none, and it is nil in a
	// profile without any (see LocationAttrs, SetLocationAttrs).
	// Locations with equal attributes may share one slice: code that
	// changes them gives the location a new slice, never writes into the
	// one it has.
	LocationAttributes [][]Attribute

	// Samples in input order; duplicates are kept.
	Samples []Sample

	// Profile-level fields (pprof's Profile message).
	SampleTypes       []ValueType
	DefaultSampleType int32 // string index of the preferred sample type's type; 0 = unset (last)
	PeriodType        ValueType
	Period            int64
	TimeNanos         int64   // time of collection, ns since the Unix epoch
	DurationNanos     int64   // duration of the profile
	Comments          []int32 // string indices
	DropFrames        int32   // string index of a regexp
	KeepFrames        int32   // string index of a regexp
	DocURL            int32   // string index

	// OpenTelemetry fields (ProfileContainer and around it). Zero when unknown.
	ProfileID              []byte      // 16 bytes when set
	StartTimeUnixNano      uint64      // 0: derive from TimeNanos
	EndTimeUnixNano        uint64      // 0: derive from TimeNanos+DurationNanos
	Attributes             []Attribute // profile (container) attributes
	DroppedAttributesCount uint32
	Resource               Resource
	Scope                  Scope
	OriginalPayloadFormat  string
	OriginalPayload        []byte
}

// ValueType names a kind of value and its unit, e.g. cpu/nanoseconds.
type ValueType struct {
	Type int32 // string index
	Unit int32 // string index
	// AggregationTemporality as OTLP defines it: 0 unspecified, 1 delta,
	// 2 cumulative. pprof has no home for it.
	AggregationTemporality int32
}

// Mapping is a binary (or other object) mapped into the profiled address space.
type Mapping struct {
	Start, Limit, Offset uint64
	File                 int32 // string index
	BuildID              int32 // string index
	BuildIDKind          int32 // OTLP BuildIdKind: 0 linker, 1 binary hash
	HasFunctions         bool
	HasFilenames         bool
	HasLineNumbers       bool
	HasInlineFrames      bool
	// Attributes are the mapping's other OpenTelemetry attributes, those
	// no field above holds (a second build id, process.executable.*), in
	// the order read.
	Attributes []Attribute
}

// Function is a function named by source lines.
type Function struct {
	Name       int32 // string index
	SystemName int32 // string index
	Filename   int32 // string index
	StartLine  int64
}

// Location is one program counter and what it symbolizes to. It takes
// 24 bytes, for a profile may hold millions: its lines are a range of
// the profile's table of lines, not a slice of their own, and its
// OpenTelemetry attributes are in Profile.LocationAttributes, which most
// profiles do not need.
type Location struct {
	Address uint64
	Mapping int32 // index into Mappings, or NoMapping
	// The location's lines are Profile.Lines[FirstLine:FirstLine+NumLines],
	// in inline order: the first is the innermost inlined function, the
	// last the caller the others were inlined into (see Profile.LinesOf).
	// Locations may share lines: code that changes a location's lines
	// gives it new ones (Profile.SetLines), never writes into those it
	// has.
	FirstLine uint32
	NumLines  uint32
	IsFolded  bool
}

// Line is a source position in a function. Its column, which few
// profiles have, is in Profile.Columns.
type Line struct {
	Function int32 // index into Functions, or NoFunction
	Line     int64
}

// Label is one key/value pair of a sample. A label whose Str is 0 is numeric
// (Num, with an optional unit in NumUnit), as pprof defines it.
type Label struct {
	Key     int32 // string index
	Str     int32 // string index; 0 for a numeric label
	Num     int64
	NumUnit int32 // string index; 0 for none
}

// IsNumeric reports whether l is a numeric label.
func (l Label) IsNumeric() bool { return l.Str == 0 }

// LabelSet is the labels of a sample, in input order. A key may appear more
// than once (a multi-valued label).
//
// Attributes are the sample's OpenTelemetry attributes that pprof's labels
// cannot hold as they are, in the order read: values that are neither a
// non-empty string nor an integer (bool, double, bytes, map, empty, the
// empty string), arrays other than of two or more such strings and
// integers, and strings with a unit. Formats with pprof's labels only
// ignore them; a set's identity is its labels and its attributes.
//
// As a Sample's values, its labels and attributes are held as a pointer to
// the first and a length, so that a set takes 24 bytes, not 48: a profile
// whose samples each have their own time as a label (perf's timestamp_ns,
// a recording's timestamps folded for pprof) holds a set per sample.
// Labels and Attributes give them as slices, SetLabels and SetAttributes
// set them. Sets may share arrays: code that changes a set's labels gives
// it a new slice, never writes into the one it has.
type LabelSet struct {
	labels          *Label
	attrs           *Attribute
	nLabels, nAttrs uint32
}

// NewLabelSet returns a set of labels and attrs (themselves, not copies).
func NewLabelSet(labels []Label, attrs []Attribute) LabelSet {
	var ls LabelSet
	ls.SetLabels(labels)
	ls.SetAttributes(attrs)
	return ls
}

// Labels returns the set's labels. The slice's capacity is its length:
// appending to it makes a new array.
func (ls LabelSet) Labels() []Label { return unsafe.Slice(ls.labels, ls.nLabels) }

// Attributes returns the set's attributes. The slice's capacity is its
// length: appending to it makes a new array.
func (ls LabelSet) Attributes() []Attribute { return unsafe.Slice(ls.attrs, ls.nAttrs) }

// SetLabels makes l the set's labels (l itself, not a copy).
func (ls *LabelSet) SetLabels(l []Label) {
	ls.labels, ls.nLabels = nil, 0
	if len(l) > 0 {
		ls.labels, ls.nLabels = &l[0], uint32(len(l))
	}
}

// SetAttributes makes a the set's attributes (a itself, not a copy).
func (ls *LabelSet) SetAttributes(a []Attribute) {
	ls.attrs, ls.nAttrs = nil, 0
	if len(a) > 0 {
		ls.attrs, ls.nAttrs = &a[0], uint32(len(a))
	}
}

// Link connects samples to a trace span.
type Link struct {
	TraceID []byte // 16 bytes
	SpanID  []byte // 8 bytes
}

// Sample is one measurement at a stack.
//
// Its values and timestamps are held as a pointer to the first and a
// length, not as slices, so that a sample takes 40 bytes, not 64: a
// profile may hold millions, and a slice's capacity is never needed here.
// Values and Timestamps give them as slices, SetValues and SetTimestamps
// set them.
//
// Samples with equal values may share one values array (a decoder stores
// each distinct row once): code that changes a sample's values gives it a
// new slice, never writes into the one it has. The same holds for
// timestamps.
type Sample struct {
	Stack    int32 // index into Stacks
	LabelSet int32 // index into LabelSets; 0 = no labels
	Link     int32 // index into Links, or NoLink

	nValues, nTimestamps uint32
	values               *int64  // one per SampleTypes entry
	timestamps           *uint64 // ns since the Unix epoch
}

// NewSample returns a sample at stack with values (values itself, not a
// copy), no labels, no link and no timestamps.
func NewSample(stack int32, values []int64) Sample {
	s := Sample{Stack: stack, Link: NoLink}
	s.SetValues(values)
	return s
}

// Values returns the sample's values, one per SampleTypes entry. The
// slice's capacity is its length: appending to it makes a new array.
func (s *Sample) Values() []int64 { return unsafe.Slice(s.values, s.nValues) }

// SetValues makes v the sample's values (v itself, not a copy).
func (s *Sample) SetValues(v []int64) {
	s.values, s.nValues = nil, 0
	if len(v) > 0 {
		s.values, s.nValues = &v[0], uint32(len(v))
	}
}

// Timestamps returns the times the sample was taken at, if any. The
// slice's capacity is its length: appending to it makes a new array.
func (s *Sample) Timestamps() []uint64 { return unsafe.Slice(s.timestamps, s.nTimestamps) }

// SetTimestamps makes ts the sample's timestamps (ts itself, not a copy).
func (s *Sample) SetTimestamps(ts []uint64) {
	s.timestamps, s.nTimestamps = nil, 0
	if len(ts) > 0 {
		s.timestamps, s.nTimestamps = &ts[0], uint32(len(ts))
	}
}

// Resource is the OpenTelemetry resource that produced a profile.
type Resource struct {
	Attributes             []Attribute
	DroppedAttributesCount uint32
	SchemaURL              string
}

// Scope is the OpenTelemetry instrumentation scope of a profile.
type Scope struct {
	Name                   string
	Version                string
	Attributes             []Attribute
	DroppedAttributesCount uint32
	SchemaURL              string
}

// Attribute is a key and a value, as OpenTelemetry's KeyValue, and the
// unit OTLP's attribute table (KeyValueAndUnit) gives an attribute of a
// profile, mapping, location or sample. Resource and scope attributes, and
// the entries of a map value, have no unit ("").
type Attribute struct {
	Key   string
	Value Value
	Unit  string
}

// ValueKind says which field of a Value holds it.
type ValueKind uint8

// The kinds of Value, as OpenTelemetry's AnyValue.
const (
	KindEmpty ValueKind = iota
	KindString
	KindBool
	KindInt
	KindDouble
	KindBytes
	KindArray
	KindMap
)

// Value is OpenTelemetry's AnyValue.
type Value struct {
	Kind   ValueKind
	Str    string
	Bool   bool
	Int    int64
	Double float64
	Bytes  []byte
	Array  []Value
	Map    []Attribute
}

// String returns the string at index i of the string table, or "" when i is
// out of range. Use Validate to find out-of-range references.
func (p *Profile) String(i int32) string {
	if i < 0 || int(i) >= len(p.Strings) {
		return ""
	}
	return p.Strings[i]
}

// LinesOf returns the lines of l, a location of p, in place (nil when
// its range is out of the table's: use Validate to find those). The
// slice's capacity ends with it.
func (p *Profile) LinesOf(l *Location) []Line {
	end := uint64(l.FirstLine) + uint64(l.NumLines)
	if l.NumLines == 0 || end > uint64(len(p.Lines)) {
		return nil
	}
	return p.Lines[l.FirstLine:end:end]
}

// LocationLines returns the lines of location i (see LinesOf).
func (p *Profile) LocationLines(i int) []Line {
	return p.LinesOf(&p.Locations[i])
}

// Column returns the column of line i of p's table of lines (0 for
// none, or when i is out of range).
func (p *Profile) Column(i uint32) int64 {
	if uint64(i) >= uint64(len(p.Columns)) {
		return 0
	}
	return p.Columns[i]
}

// SetColumn sets the column of line i of p's table of lines, making
// room for columns only when c is not 0.
func (p *Profile) SetColumn(i uint32, c int64) {
	if uint64(i) >= uint64(len(p.Columns)) {
		if c == 0 {
			return
		}
		if uint64(i) >= uint64(cap(p.Columns)) {
			// Room for as many columns as the lines have room for: a
			// decoder makes its table of lines once, at its size.
			grown := make([]int64, len(p.Columns), max(int(i)+1, cap(p.Lines), 2*cap(p.Columns)))
			copy(grown, p.Columns)
			p.Columns = grown
		}
		n := len(p.Columns)
		p.Columns = p.Columns[:i+1]
		clear(p.Columns[n:])
	}
	p.Columns[i] = c
}

// ColumnOf returns the column of line j of l, a location of p.
func (p *Profile) ColumnOf(l *Location, j int) int64 {
	return p.Column(l.FirstLine + uint32(j))
}

// SetColumns sets the columns of l's lines, l a location of p: cols[j]
// is line j's.
func (p *Profile) SetColumns(l *Location, cols ...int64) {
	for j, c := range cols[:min(len(cols), int(l.NumLines))] {
		p.SetColumn(l.FirstLine+uint32(j), c)
	}
}

// SetLines gives l, a location of p, these lines: a copy of them at the
// end of p's table of lines, with no column (see SetColumn). No lines at
// all is the range 0:0.
func (p *Profile) SetLines(l *Location, lines ...Line) {
	if len(lines) == 0 {
		l.FirstLine, l.NumLines = 0, 0
		return
	}
	l.FirstLine, l.NumLines = uint32(len(p.Lines)), uint32(len(lines))
	p.Lines = append(p.Lines, lines...)
}

// AddLocation appends l with these lines (as SetLines gives them) to
// p's locations and returns its index.
func (p *Profile) AddLocation(l Location, lines ...Line) int32 {
	p.SetLines(&l, lines...)
	p.Locations = append(p.Locations, l)
	return int32(len(p.Locations) - 1)
}

// LocationAttrs returns the attributes of location i (nil for none).
func (p *Profile) LocationAttrs(i int) []Attribute {
	if i < 0 || i >= len(p.LocationAttributes) {
		return nil
	}
	return p.LocationAttributes[i]
}

// SetLocationAttrs sets the attributes of location i, making room for
// them only when there are some.
func (p *Profile) SetLocationAttrs(i int, as []Attribute) {
	if i >= len(p.LocationAttributes) {
		if len(as) == 0 {
			return
		}
		if i >= cap(p.LocationAttributes) {
			grown := make([][]Attribute, len(p.LocationAttributes), max(i+1, len(p.Locations), 2*cap(p.LocationAttributes)))
			copy(grown, p.LocationAttributes)
			p.LocationAttributes = grown
		}
		p.LocationAttributes = p.LocationAttributes[:i+1]
	}
	p.LocationAttributes[i] = as
}

// New returns an empty profile with its reserved entries in place.
func New() *Profile {
	return &Profile{
		Strings:   []string{""},
		LabelSets: []LabelSet{{}},
	}
}

// MemSize is about what p holds in memory: its tables, stacks, samples
// and label sets, each slice counted where it is referenced (slices that
// entries share are counted for each of them, so it errs high; the
// table of lines is counted as long as it is).
func (p *Profile) MemSize() int64 {
	const (
		str     = int64(unsafe.Sizeof(""))
		attr    = int64(unsafe.Sizeof(Attribute{}))
		mapping = int64(unsafe.Sizeof(Mapping{}))
		fn      = int64(unsafe.Sizeof(Function{}))
		loc     = int64(unsafe.Sizeof(Location{}))
		line    = int64(unsafe.Sizeof(Line{}))
		sample  = int64(unsafe.Sizeof(Sample{}))
		set     = int64(unsafe.Sizeof(LabelSet{}))
		label   = int64(unsafe.Sizeof(Label{}))
	)
	n := int64(len(p.Strings)) * str
	for _, s := range p.Strings {
		n += int64(len(s))
	}
	n += int64(len(p.Mappings))*mapping + int64(len(p.Functions))*fn + int64(len(p.Locations))*loc
	for i := range p.Mappings {
		n += int64(len(p.Mappings[i].Attributes)) * attr
	}
	n += int64(len(p.Lines))*line + 8*int64(len(p.Columns))
	n += int64(len(p.LocationAttributes)) * int64(unsafe.Sizeof([]Attribute{}))
	for _, as := range p.LocationAttributes {
		n += int64(len(as)) * attr
	}
	n += int64(p.Stacks.NumFrames())*int64(FrameBytes(len(p.Locations))) + int64(p.Stacks.Len()+1)*4
	n += int64(len(p.Samples)) * sample
	for i := range p.Samples {
		n += 8 * int64(len(p.Samples[i].Values())+len(p.Samples[i].Timestamps()))
	}
	n += int64(len(p.LabelSets)) * set
	for i := range p.LabelSets {
		n += int64(len(p.LabelSets[i].Labels()))*label + int64(len(p.LabelSets[i].Attributes()))*attr
	}
	return n
}
