package otlp

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pprofx/pprofx/internal/codec/otlpcommon"

	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/inflate"
	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/commonpb"
	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/model"
)

// maxDecompressed bounds what a gzipped input given to Decode may expand to.
const maxDecompressed = 4 << 30

// Decode reads OTLP profiles v1development: one binary ProfilesData, OTLP
// JSON (one object, or JSON lines: one per line), or the collector
// fileexporter's framed file (each ProfilesData after its 4-byte big-endian
// length), plain or gzipped. It returns one model.Profile per pprof-like
// profile: the Profiles of a scope that line up are joined into one with
// several sample types. Every index is checked first; the error names the
// first bad one by its field path.
func Decode(data []byte, opts DecodeOptions) ([]*model.Profile, error) {
	p, err := ReadForDecode(data, opts)
	if err != nil {
		return nil, err
	}
	opts.Release = true
	return p.Decode(opts)
}

// DecodeMessages turns messages that Messages returned into model profiles
// (see Decode).
func DecodeMessages(msgs []*pb.ProfilesData, opts DecodeOptions) ([]*model.Profile, error) {
	return (&Parsed{Messages: msgs}).Decode(opts)
}

// Parsed is what ReadForDecode read, to be made into profiles once
// (Decode).
type Parsed struct {
	Messages []*pb.ProfilesData
	// Layouts is the Sample layout each binary message was read in
	// (LayoutAuto for a JSON one, whose field names say what they are).
	Layouts []SampleLayout
	// Framed: the messages were the collector's fileexporter framing
	// (each after its 4-byte big-endian length).
	Framed bool
	// cts[i] is message i's location and function tables when the parser
	// read them in the model's layout (its generated tables are then
	// empty), else nil.
	cts []*compactTables
}

// ReadForDecode is Messages for Parsed.Decode: the messages' location and
// function tables are read straight into the model's layout, not the
// generated structs, where the fast parser reads them (so Messages[i]'s
// dictionary may have no location_table and function_table), and Layouts
// is filled in.
func ReadForDecode(data []byte, opts DecodeOptions) (*Parsed, error) {
	opts.compact = true
	return readMessages(data, opts, true)
}

// Decode turns the messages into model profiles (see Decode). The
// profiles take the tables read compact as they are: p decodes once.
func (p *Parsed) Decode(opts DecodeOptions) ([]*model.Profile, error) {
	d := newDecoder(opts)
	var out []*model.Profile
	msgs := p.Messages
	for i, pd := range msgs {
		var ct *compactTables
		if i < len(p.cts) {
			ct, p.cts[i] = p.cts[i], nil
		}
		ps, err := d.profilesData(pd, ct)
		if err != nil {
			if len(msgs) > 1 {
				return nil, fmt.Errorf("otlp: message %d: %v", i, err)
			}
			return nil, fmt.Errorf("otlp: %v", err)
		}
		out = append(out, ps...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("otlp: no profile in the data (no resource_profiles[].scope_profiles[].profiles[])")
	}
	return out, nil
}

// Messages parses data (see Decode) into its ProfilesData messages and
// checks each against the MUST rules the reader depends on: the first
// failure is the error. With LayoutV110 (the default), data that fails and
// reads cleanly as proto v1.9's Sample layout is reported as such, and the
// other way round.
func Messages(data []byte, opts DecodeOptions) ([]*pb.ProfilesData, error) {
	return messages(data, opts, true)
}

// Parse is Messages without the checks (for the validator).
func Parse(data []byte, opts DecodeOptions) ([]*pb.ProfilesData, error) {
	return messages(data, opts, false)
}

func messages(data []byte, opts DecodeOptions, check bool) ([]*pb.ProfilesData, error) {
	p, err := readMessages(data, opts, check)
	if err != nil {
		return nil, err
	}
	return p.Messages, nil
}

// MessagesLayout is Messages that also returns the Sample layout each
// binary message was read in (LayoutAuto for a JSON one, whose field
// names say what they are).
func MessagesLayout(data []byte, opts DecodeOptions) ([]*pb.ProfilesData, []SampleLayout, error) {
	p, err := readMessages(data, opts, true)
	if err != nil {
		return nil, nil, err
	}
	return p.Messages, p.Layouts, nil
}

func readMessages(data []byte, opts DecodeOptions, check bool) (*Parsed, error) {
	data, err := inflate.Gzip(data, maxDecompressed, "otlp")
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("otlp: empty input")
	}
	if isJSON(data) {
		return jsonMessages(data, opts, check)
	}
	frames, framed := splitFramed(data)
	if !framed {
		if FramedStart(data) {
			return nil, framingError(data)
		}
		frames = [][]byte{data}
	}
	p := &Parsed{Messages: make([]*pb.ProfilesData, 0, len(frames)), Layouts: make([]SampleLayout, 0, len(frames)), Framed: framed}
	for i, f := range frames {
		pd, ct, l, err := binaryMessage(f, opts, check)
		if err != nil {
			if framed {
				return nil, fmt.Errorf("otlp: framed message %d: %v", i, err)
			}
			return nil, fmt.Errorf("otlp: %v", err)
		}
		p.Messages = append(p.Messages, pd)
		p.Layouts = append(p.Layouts, l)
		if ct != nil {
			if p.cts == nil {
				p.cts = make([]*compactTables, len(frames))
			}
			p.cts[i] = ct
		}
	}
	return p, nil
}

// binaryMessage parses one binary ProfilesData in the Sample layout told,
// or else the one its bytes say (layout.go), and returns the layout, and
// its location and function tables when the parser read them compact
// (opts.compact).
func binaryMessage(data []byte, opts DecodeOptions, check bool) (*pb.ProfilesData, *compactTables, SampleLayout, error) {
	var ct *compactTables // of the last parse
	parseWarn := func(l SampleLayout, warn func(string)) (*pb.ProfilesData, error) {
		ps := &parser{layout: l, compact: opts.compact}
		ct = nil
		if pd, err := ps.data(data); err == nil {
			ct = ps.ct
			return pd, nil
		}
		// Off the fast path: the generated code parses, and says what is
		// wrong.
		b := data
		if l == LayoutV19 {
			var err error
			if b, err = renumberV19(data); err != nil {
				return nil, err
			}
		}
		pd := &pb.ProfilesData{}
		if err := proto.Unmarshal(b, pd); err != nil {
			return nil, otlpcommon.LocateWireError(b, pd.ProtoReflect().Descriptor(), err)
		}
		// A known field with another wire type is skipped by the parser:
		// say so (Sample's fields 2-4 told the layout already).
		if err := skippedFields(pd, warn); err != nil {
			return nil, err
		}
		return pd, nil
	}
	// Trial readings (the other layout's) say nothing.
	parse := func(l SampleLayout) (*pb.ProfilesData, error) { return parseWarn(l, nil) }
	layout := opts.Layout
	if layout == LayoutAuto {
		var err error
		layout, err = chooseLayout(detectLayout(data), layout, func(l SampleLayout) bool {
			pd, err := parse(l)
			return err == nil && firstError(pd, ct) == nil
		})
		if err != nil {
			return nil, nil, 0, err
		}
	}
	other, name, flag := LayoutV19, "v1.9", "--otlp-proto 1.9"
	if layout == LayoutV19 {
		other, name, flag = LayoutV110, "v1.10 or later", "--otlp-proto 1.10"
	}
	// otherFits adds to an error of a sample that the message reads
	// cleanly in the other layout.
	otherFits := func(msg string) error {
		if alt, err := parse(other); err == nil && firstError(alt, ct) == nil && hasSamples(alt) {
			return fmt.Errorf("%s (this looks like OTLP profiles proto %s, whose Sample fields are numbered differently: read it with %s)",
				msg, name, flag)
		}
		return errors.New(msg)
	}
	pd, err := parseWarn(layout, opts.Warn)
	if err != nil {
		if strings.Contains(err.Error(), "samples[") && !opts.fromJSON {
			return nil, nil, 0, otherFits(err.Error())
		}
		return nil, nil, 0, err
	}
	pct := ct
	if !check {
		return pd, pct, layout, nil
	}
	f := firstError(pd, pct)
	if f == nil {
		return pd, pct, layout, nil
	}
	if f.Path != "dictionary" && strings.Contains(f.Path, ".samples[") && !opts.fromJSON {
		return nil, nil, 0, otherFits(f.Path + ": " + f.Msg)
	}
	return nil, nil, 0, fmt.Errorf("%s: %s", f.Path, f.Msg)
}

func hasSamples(pd *pb.ProfilesData) bool {
	for _, rp := range pd.ResourceProfiles {
		for _, sp := range rp.GetScopeProfiles() {
			for _, pr := range sp.GetProfiles() {
				if len(pr.GetSamples()) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// decoder turns checked messages into model profiles.
type decoder struct {
	warnFn  func(string)
	warned  map[string]bool
	release bool // DecodeOptions.Release
}

func newDecoder(opts DecodeOptions) *decoder {
	return &decoder{warnFn: opts.Warn, warned: map[string]bool{}, release: opts.Release}
}

func (d *decoder) warn(msg string) {
	if d.warned[msg] {
		return
	}
	d.warned[msg] = true
	if d.warnFn != nil {
		d.warnFn(msg)
	}
}

// dict is a message's dictionary converted once for all its profiles.
type dict struct {
	strs    []string
	tmpl    *model.Profile // every table, index i+1 of the dictionary at i
	attrs   []attr         // per attribute_table entry
	nGroups int
}

type attr struct {
	key       string
	sampleKey string // the key it takes as a sample's label (threadSampleKeys)
	value     model.Value
	unit      string
}

// str returns dictionary string i, "" when out of range (checked before).
func (t *dict) str(i int32) string {
	if i <= 0 || int(i) >= len(t.strs) {
		return ""
	}
	return t.strs[i]
}

// dictionary makes the message's tables into the model's; ct is its
// location and function tables when they were read compact (taken as
// they are), else nil.
func (d *decoder) dictionary(pd *pb.ProfilesData, ct *compactTables) *dict {
	dd := pd.GetDictionary()
	t := &dict{strs: dd.GetStringTable()}
	if len(t.strs) == 0 {
		t.strs = []string{""}
	}
	t.attrs = make([]attr, len(dd.GetAttributeTable()))
	for i, kv := range dd.GetAttributeTable() {
		if i == 0 {
			continue
		}
		t.attrs[i] = attr{key: t.str(kv.GetKeyStrindex()), value: t.value(kv.GetValue(), 0), unit: t.str(kv.GetUnitStrindex())}
	}
	d.threadSampleKeys(t, pd)
	p := model.New()
	p.Strings = t.strs[:len(t.strs):len(t.strs)]
	mt := dd.GetMappingTable()
	if len(mt) > 1 {
		p.Mappings = make([]model.Mapping, len(mt)-1)
	}
	for i := 1; i < len(mt); i++ {
		m := mt[i]
		mm := &p.Mappings[i-1]
		mm.Start, mm.Limit, mm.Offset, mm.File = m.MemoryStart, m.MemoryLimit, m.FileOffset, m.FilenameStrindex
		d.mappingAttrs(t, p, mm, m.AttributeIndices)
	}
	if ct != nil {
		// The functions' string indices are the model's as they are.
		if n := len(ct.funcs); n > 1 {
			p.Functions = ct.funcs[1:n:n]
		}
		d.takeLocations(t, p, ct)
		*ct = compactTables{}
	} else {
		ft := dd.GetFunctionTable()
		if len(ft) > 1 {
			p.Functions = make([]model.Function, len(ft)-1)
		}
		for i := 1; i < len(ft); i++ {
			f := ft[i]
			p.Functions[i-1] = model.Function{Name: f.NameStrindex, SystemName: f.SystemNameStrindex, Filename: f.FilenameStrindex, StartLine: f.StartLine}
		}
		d.locations(t, p, dd.GetLocationTable())
	}
	for _, f := range p.Functions {
		if f.Name == 0 && f.SystemName == 0 && f.Filename == 0 {
			d.warn("otlp: functions that name nothing (which the spec forbids) were read as functions with empty names")
			break
		}
	}
	if d.release && dd != nil {
		// The generated structs of these tables take some 100 bytes an
		// entry and a pointer, more than the model's of them: let them go
		// before the stacks are made.
		dd.MappingTable, dd.FunctionTable, dd.LocationTable, dd.AttributeTable = nil, nil, nil, nil
		mt = nil
	}
	st := dd.GetStackTable()
	frames := 0
	for _, s := range st {
		frames += len(s.GetLocationIndices())
	}
	p.Stacks.Fit(len(p.Locations))
	p.Stacks.Grow(max(len(st), 1), frames)
	p.Stacks.Add(nil) // the zero stack
	buf := make([]int32, 0, 64)
	for i := 1; i < len(st); i++ {
		buf = buf[:0]
		for _, x := range st[i].LocationIndices {
			buf = append(buf, x-1) // 0 (the zero location) was refused by the checker
		}
		p.Stacks.Add(buf)
		if d.release {
			// The indices are slices of shared blocks, each let go once
			// the stacks cut from it are made.
			st[i].LocationIndices = nil
		}
	}
	if d.release && dd != nil {
		dd.StackTable = nil
	}
	lk := dd.GetLinkTable()
	for i := 1; i < len(lk); i++ {
		p.Links = append(p.Links, model.Link{TraceID: lk[i].TraceId, SpanID: lk[i].SpanId})
	}
	t.tmpl = p
	return t
}

// locations makes the model's locations of the generated location table.
func (d *decoder) locations(t *dict, p *model.Profile, locs []*pb.Location) {
	if len(locs) > 1 {
		p.Locations = make([]model.Location, len(locs)-1)
	}
	nlines := 0
	for _, l := range locs {
		nlines += len(l.GetLines())
	}
	if nlines > 0 {
		p.Lines = make([]model.Line, 0, nlines)
	}
	for i := 1; i < len(locs); i++ {
		l := locs[i]
		ml := &p.Locations[i-1]
		ml.Address, ml.Mapping = l.Address, l.MappingIndex-1
		first := len(p.Lines)
		for _, ln := range l.Lines {
			p.Lines = append(p.Lines, model.Line{Function: ln.FunctionIndex - 1, Line: ln.Line})
			p.SetColumn(uint32(len(p.Lines)-1), ln.Column)
		}
		if len(p.Lines) > first {
			ml.FirstLine, ml.NumLines = uint32(first), uint32(len(p.Lines)-first)
		}
		d.locationAttrs(t, p, i-1, l.AttributeIndices)
	}
}

// takeLocations makes the location table read compact the model's, in
// place: the input's indices (checked) become the model's, one less.
func (d *decoder) takeLocations(t *dict, p *model.Profile, ct *compactTables) {
	if len(ct.locs) > 1 {
		p.Locations = ct.locs[1:len(ct.locs):len(ct.locs)]
	}
	if ct.nextLine > 0 {
		// The lines, each of one location, keep their places: the
		// locations' ranges hold as they are.
		p.Lines = ct.lines[:ct.nextLine:ct.nextLine]
		if ct.cols != nil {
			p.Columns = ct.cols[:ct.nextLine:ct.nextLine]
		}
	}
	for j := range p.Lines {
		p.Lines[j].Function--
	}
	for i := range p.Locations {
		p.Locations[i].Mapping--
		d.locationAttrs(t, p, i, ct.attrsOf(i+1))
	}
}

// locationAttrs gives model location i the attributes of its
// attribute_indices: the folded flag its field, the others its
// attributes.
func (d *decoder) locationAttrs(t *dict, p *model.Profile, i int, indices []int32) {
	ml := &p.Locations[i]
	var as []model.Attribute
	for _, a := range indices {
		if a == 0 {
			continue
		}
		at := &t.attrs[a]
		if at.key == AttrIsFolded && at.value.Kind == model.KindBool {
			ml.IsFolded = at.value.Bool
			continue
		}
		as = append(as, model.Attribute{Key: at.key, Value: at.value, Unit: at.unit})
	}
	p.SetLocationAttrs(i, as)
}

// mappingAttrs reads a mapping's attributes: its build id (the GNU one
// when there is one, else the htlhash one) and pprof.mapping.has_* flags
// into their fields, every other attribute (another build id,
// process.executable.*, a producer's own) into Attributes.
func (d *decoder) mappingAttrs(t *dict, p *model.Profile, mm *model.Mapping, as []int32) {
	build := -1
	for k, a := range as {
		if a == 0 {
			continue
		}
		at := &t.attrs[a]
		if at.value.Kind != model.KindString {
			continue
		}
		if at.key == AttrBuildIDGNU || (at.key == AttrBuildIDHTL && build < 0) {
			build = k
		}
	}
	for k, a := range as {
		if a == 0 {
			continue
		}
		at := &t.attrs[a]
		if k == build {
			mm.BuildID = t.stringIndex(p, at.value)
			if at.key == AttrBuildIDHTL {
				mm.BuildIDKind = 1
			}
			continue
		}
		if at.value.Kind == model.KindBool {
			switch at.key {
			case AttrHasFunctions:
				mm.HasFunctions = at.value.Bool
				continue
			case AttrHasFilenames:
				mm.HasFilenames = at.value.Bool
				continue
			case AttrHasLineNumbers:
				mm.HasLineNumbers = at.value.Bool
				continue
			case AttrHasInlineFrames:
				mm.HasInlineFrames = at.value.Bool
				continue
			}
		}
		mm.Attributes = append(mm.Attributes, model.Attribute{Key: at.key, Value: at.value, Unit: at.unit})
	}
}

// stringIndex returns the index of a string value in p's string table
// (which is the dictionary's, so it is usually there).
func (t *dict) stringIndex(p *model.Profile, v model.Value) int32 {
	s := v.Str
	if v.Kind != model.KindString {
		s = otlpcommon.ValueText(v)
	}
	for i, x := range p.Strings {
		if x == s {
			return int32(i)
		}
	}
	p.Strings = append(p.Strings[:len(p.Strings):len(p.Strings)], s)
	return int32(len(p.Strings) - 1)
}

// value converts an AnyValue, resolving string_value_strindex.
func (t *dict) value(v *commonpb.AnyValue, depth int) model.Value {
	if depth > 64 {
		return model.Value{}
	}
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return model.Value{Kind: model.KindString, Str: x.StringValue}
	case *commonpb.AnyValue_StringValueStrindex:
		return model.Value{Kind: model.KindString, Str: t.str(x.StringValueStrindex)}
	case *commonpb.AnyValue_BoolValue:
		return model.Value{Kind: model.KindBool, Bool: x.BoolValue}
	case *commonpb.AnyValue_IntValue:
		return model.Value{Kind: model.KindInt, Int: x.IntValue}
	case *commonpb.AnyValue_DoubleValue:
		return model.Value{Kind: model.KindDouble, Double: x.DoubleValue}
	case *commonpb.AnyValue_BytesValue:
		return model.Value{Kind: model.KindBytes, Bytes: x.BytesValue}
	case *commonpb.AnyValue_ArrayValue:
		out := model.Value{Kind: model.KindArray}
		for _, e := range x.ArrayValue.GetValues() {
			out.Array = append(out.Array, t.value(e, depth+1))
		}
		return out
	case *commonpb.AnyValue_KvlistValue:
		return model.Value{Kind: model.KindMap, Map: t.keyValues(x.KvlistValue.GetValues(), depth+1)}
	}
	return model.Value{}
}

// keyValues converts KeyValues, resolving key_strindex.
func (t *dict) keyValues(kvs []*commonpb.KeyValue, depth int) []model.Attribute {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]model.Attribute, len(kvs))
	for i, kv := range kvs {
		k := kv.GetKey()
		if k == "" && kv.GetKeyStrindex() != 0 {
			k = t.str(kv.GetKeyStrindex())
		}
		out[i] = model.Attribute{Key: k, Value: t.value(kv.GetValue(), depth)}
	}
	return out
}

func (d *decoder) profilesData(pd *pb.ProfilesData, ct *compactTables) ([]*model.Profile, error) {
	t := d.dictionary(pd, ct)
	type group struct {
		rp    *pb.ResourceProfiles
		sp    *pb.ScopeProfiles
		profs []*pb.Profile
		order []int // sample type index of each profile
		path  string
	}
	var groups []group
	for ri, rp := range pd.ResourceProfiles {
		for si, sp := range rp.GetScopeProfiles() {
			profs := sp.GetProfiles()
			if len(profs) == 0 {
				continue
			}
			path := fmt.Sprintf("resource_profiles[%d].scope_profiles[%d]", ri, si)
			ord := sampleTypeOrder(t, sp.GetScope().GetAttributes(), len(profs))
			if len(profs) > 1 && lineUp(profs) {
				groups = append(groups, group{rp, sp, profs, ord, path})
				continue
			}
			if len(profs) > 1 && ord != nil {
				d.warn("otlp: the profiles of a scope do not line up (different samples or times); they are read as separate profiles")
			}
			for _, pr := range profs {
				groups = append(groups, group{rp, sp, []*pb.Profile{pr}, []int{0}, path})
			}
		}
	}
	t.nGroups = len(groups)
	out := make([]*model.Profile, 0, len(groups))
	for _, g := range groups {
		p, err := d.group(t, g.rp, g.sp, g.profs, g.order)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", g.path, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// sampleTypeOrder reads pprof.scope.sample_type_order: a permutation of
// 0..n-1, or nil (the scope's order is used).
func sampleTypeOrder(t *dict, kvs []*commonpb.KeyValue, n int) []int {
	for _, a := range t.keyValues(kvs, 0) {
		if a.Key != AttrSampleTypeOrder || a.Value.Kind != model.KindArray || len(a.Value.Array) != n {
			continue
		}
		seen := make([]bool, n)
		out := make([]int, n)
		for k, v := range a.Value.Array {
			if v.Kind != model.KindInt || v.Int < 0 || v.Int >= int64(n) || seen[v.Int] {
				return nil
			}
			seen[v.Int] = true
			out[k] = int(v.Int)
		}
		return out
	}
	return nil
}

// lineUp reports whether the profiles of a scope hold the same samples
// (matched by stack, attributes, link and timestamps: the j-th sample with a
// key in one is the j-th with that key in the others; a later profile may
// leave samples of the first out, see matchSamples) over the same time and
// period, so that they join into one profile with several sample types.
func lineUp(profs []*pb.Profile) bool {
	a := profs[0]
	for _, b := range profs[1:] {
		if len(b.Samples) > len(a.Samples) || b.TimeUnixNano != a.TimeUnixNano || b.DurationNano != a.DurationNano ||
			b.Period != a.Period || !sameVT(a.PeriodType, b.PeriodType) {
			return false
		}
		if matchSamples(a.Samples, b.Samples) == nil {
			return false
		}
	}
	return true
}

func sameVT(a, b *pb.ValueType) bool {
	return a.GetTypeStrindex() == b.GetTypeStrindex() && a.GetUnitStrindex() == b.GetUnitStrindex()
}

// sameKey reports whether two samples have one identity: stack, link,
// set of attributes (profiles.proto: the identity is {stack_index,
// set_of(attribute_indices), link_index}; the collector-contrib
// translator writes a sample's attributes in a different order in each
// Profile), and timestamps.
func sameKey(x, y *pb.Sample) bool {
	if x.StackIndex != y.StackIndex || x.LinkIndex != y.LinkIndex || len(x.AttributeIndices) != len(y.AttributeIndices) ||
		len(x.TimestampsUnixNano) != len(y.TimestampsUnixNano) {
		return false
	}
	if !slices.Equal(x.AttributeIndices, y.AttributeIndices) &&
		!slices.Equal(sortedAttrs(x.AttributeIndices), sortedAttrs(y.AttributeIndices)) {
		return false
	}
	return slices.Equal(x.TimestampsUnixNano, y.TimestampsUnixNano)
}

// sortedAttrs returns as sorted, copied when it is not sorted already.
func sortedAttrs(as []int32) []int32 {
	if slices.IsSorted(as) {
		return as
	}
	return slices.Sorted(slices.Values(as))
}

func sampleKey(b []byte, s *pb.Sample) []byte {
	b = fmt.Appendf(b[:0], "%d|%d|%v|%v", s.StackIndex, s.LinkIndex, sortedAttrs(s.AttributeIndices), s.TimestampsUnixNano)
	return b
}

// matchSamples returns, for each sample of a, the index of its match in b,
// or nil when they do not match one to one. b may have fewer samples
// (pprofx's writer leaves out, in the profiles after the first, samples
// whose value is 0 and whose key no other sample has): then b's samples
// match, in order, the samples of a with their key, and those of a it
// skips get -1 (value 0); nil when some sample of b finds no match.
func matchSamples(a, b []*pb.Sample) []int {
	if len(b) < len(a) {
		return matchSubsequence(a, b)
	}
	m := make([]int, len(a))
	positional := true
	for i := range a {
		if !sameKey(a[i], b[i]) {
			positional = false
			break
		}
		m[i] = i
	}
	if positional {
		return m
	}
	queue := map[string][]int{}
	var kb []byte
	for j, s := range b {
		kb = sampleKey(kb, s)
		queue[string(kb)] = append(queue[string(kb)], j)
	}
	for i, s := range a {
		kb = sampleKey(kb, s)
		q := queue[string(kb)]
		if len(q) == 0 {
			return nil
		}
		m[i] = q[0]
		queue[string(kb)] = q[1:]
	}
	return m
}

// matchSubsequence is matchSamples for a b with fewer samples than a.
func matchSubsequence(a, b []*pb.Sample) []int {
	m := make([]int, len(a))
	j := 0
	for i := range a {
		if j < len(b) && sameKey(a[i], b[j]) {
			m[i] = j
			j++
		} else {
			m[i] = -1
		}
	}
	if j < len(b) {
		return nil
	}
	return m
}

// sampleValue is the value of a sample in one profile: the sum of its
// values, or the number of its timestamps when it has no values.
func (d *decoder) sampleValue(s *pb.Sample) int64 {
	if len(s.Values) == 0 {
		return int64(len(s.TimestampsUnixNano))
	}
	v := s.Values[0]
	for _, x := range s.Values[1:] {
		if x != 0 {
			d.warn("otlp: samples with several values (one per timestamp) were read as their sum; the per-timestamp values are lost")
		}
		v += x
	}
	return v
}

// group builds one model profile from the Profiles of one scope that line up
// (or one Profile alone).
func (d *decoder) group(t *dict, rp *pb.ResourceProfiles, sp *pb.ScopeProfiles, profs []*pb.Profile, ord []int) (*model.Profile, error) {
	if ord == nil || len(ord) != len(profs) {
		ord = make([]int, len(profs))
		for k := range ord {
			ord[k] = k
		}
	}
	// One group takes the whole dictionary (unused table entries
	// included, as a pprof source had them); several take each what
	// its samples use.
	p, stackMap, linkMap := t.tmpl, []int32(nil), []int32(nil)
	if t.nGroups > 1 {
		p, stackMap, linkMap = compact(t.tmpl, profs, t.mappingList(profs[0]))
	}
	first := profs[0]
	b := model.BuilderFor(p)
	p.SampleTypes = make([]model.ValueType, len(profs))
	for k, pr := range profs {
		p.SampleTypes[ord[k]] = model.ValueType{Type: b.String(t.str(pr.GetSampleType().GetTypeStrindex())),
			Unit: b.String(t.str(pr.GetSampleType().GetUnitStrindex()))}
	}
	if pt := first.PeriodType; pt != nil {
		p.PeriodType = model.ValueType{Type: b.String(t.str(pt.TypeStrindex)), Unit: b.String(t.str(pt.UnitStrindex))}
	}
	p.Period, p.TimeNanos, p.DurationNanos = first.Period, int64(first.TimeUnixNano), int64(first.DurationNano)

	if err := d.joinSamples(p, b, t, profs, ord, stackMap, linkMap); err != nil {
		return nil, err
	}
	d.profileFields(p, b, t, profs)
	d.resourceAndScope(p, b, t, rp, sp)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// joinSamples gives p the samples of the first profile, with the values of
// the other profiles' matching samples (sample type k at ord[k]).
func (d *decoder) joinSamples(p *model.Profile, b *model.Builder, t *dict, profs []*pb.Profile, ord []int, stackMap, linkMap []int32) error {
	first := profs[0]
	matches := make([][]int, len(profs))
	for k := 1; k < len(profs); k++ {
		matches[k] = matchSamples(first.Samples, profs[k].Samples)
	}
	attrLabels := map[int32]sampleAttr{}
	oneAttrSet := map[int32]int32{} // label set of a sample with only that attribute
	var labels []model.Label
	var attrs []model.Attribute
	// Arrays in attributes many samples refer to could make a small input
	// expand into a huge number of labels: the labels made may not exceed
	// a multiple of the references and array elements the input holds.
	budget := int64(1 << 20)
	for _, pr := range profs[:1] {
		for _, s := range pr.Samples {
			budget += 16 * int64(len(s.AttributeIndices))
		}
	}
	for _, a := range t.attrs {
		budget += 16 * int64(len(a.value.Array))
	}
	p.Samples = make([]model.Sample, len(first.Samples))
	values := make([]int64, len(first.Samples)*len(profs))
	for i, s := range first.Samples {
		ms := &p.Samples[i]
		ms.SetValues(values[i*len(profs) : (i+1)*len(profs) : (i+1)*len(profs)])
		ms.Values()[ord[0]] = d.sampleValue(s)
		for k := 1; k < len(profs); k++ {
			if j := matches[k][i]; j >= 0 {
				ms.Values()[ord[k]] = d.sampleValue(profs[k].Samples[j])
			}
		}
		ms.Stack, ms.Link = s.StackIndex, s.LinkIndex-1
		if stackMap != nil {
			ms.Stack = stackMap[s.StackIndex]
			if s.LinkIndex > 0 {
				ms.Link = linkMap[s.LinkIndex]
			}
		}
		if len(s.TimestampsUnixNano) > 0 {
			ms.SetTimestamps(s.TimestampsUnixNano)
		}
		// Samples with the same attribute indices have the same labels:
		// one look-up by the indices, not a hash of the labels.
		if len(s.AttributeIndices) == 0 {
			ms.LabelSet = 0
			continue
		}
		if len(s.AttributeIndices) == 1 {
			if ls, ok := oneAttrSet[s.AttributeIndices[0]]; ok {
				ms.LabelSet = ls
				continue
			}
		}
		labels, attrs = labels[:0], attrs[:0]
		for _, a := range s.AttributeIndices {
			sa, ok := attrLabels[a]
			if !ok {
				sa = d.sampleAttr(b, &t.attrs[a])
				attrLabels[a] = sa
			}
			if sa.labels == nil {
				attrs = append(attrs, sa.attr)
				continue
			}
			labels = append(labels, sa.labels...)
		}
		if budget -= int64(len(labels)); budget < 0 {
			return fmt.Errorf("samples[%d]: the samples' attributes expand to more labels than the input can honestly hold (arrays repeated by reference)", i)
		}
		ms.LabelSet = b.LabelSetWith(labels, attrs)
		if len(s.AttributeIndices) == 1 {
			oneAttrSet[s.AttributeIndices[0]] = ms.LabelSet
		}
	}

	return nil
}

// profileFields takes p's own fields from the attributes of the first
// (default) profile, and its id and payload.
func (d *decoder) profileFields(p *model.Profile, b *model.Builder, t *dict, profs []*pb.Profile) {
	first := profs[0]
	for _, a := range first.AttributeIndices {
		at := &t.attrs[a]
		switch at.key {
		case AttrComment:
			if at.value.Kind == model.KindArray {
				for _, v := range at.value.Array {
					p.Comments = append(p.Comments, b.String(textOf(v)))
				}
			} else {
				p.Comments = append(p.Comments, b.String(textOf(at.value)))
			}
			continue
		case AttrDropFrames:
			p.DropFrames = b.String(textOf(at.value))
			continue
		case AttrKeepFrames:
			p.KeepFrames = b.String(textOf(at.value))
			continue
		case AttrDocURL:
			p.DocURL = b.String(textOf(at.value))
			continue
		case AttrMappings:
			continue
		}
		p.Attributes = append(p.Attributes, model.Attribute{Key: at.key, Value: at.value, Unit: at.unit})
	}
	if id := first.ProfileId; len(id) == 16 && !allZero(id) {
		p.ProfileID = id
	}
	p.DroppedAttributesCount = first.DroppedAttributesCount
	p.OriginalPayloadFormat, p.OriginalPayload = first.OriginalPayloadFormat, first.OriginalPayload
	for _, pr := range profs[1:] {
		if len(pr.OriginalPayload) > 0 || (len(pr.ProfileId) > 0 && !bytes.Equal(pr.ProfileId, first.ProfileId)) {
			d.warn("otlp: the profile ids and original payloads of the second and later sample types of a joined profile were dropped")
			break
		}
	}
}

// resourceAndScope takes the resource and the scope around the profiles.
func (d *decoder) resourceAndScope(p *model.Profile, b *model.Builder, t *dict, rp *pb.ResourceProfiles, sp *pb.ScopeProfiles) {
	if r := rp.GetResource(); r != nil {
		p.Resource.Attributes = t.keyValues(r.Attributes, 0)
		p.Resource.DroppedAttributesCount = r.DroppedAttributesCount
	}
	p.Resource.SchemaURL = rp.GetSchemaUrl()
	if s := sp.GetScope(); s != nil {
		p.Scope = model.Scope{Name: s.Name, Version: s.Version, DroppedAttributesCount: s.DroppedAttributesCount}
		for _, a := range t.keyValues(s.Attributes, 0) {
			switch a.Key {
			case AttrDefaultSampleType:
				p.DefaultSampleType = b.String(textOf(a.Value))
			case AttrSampleTypeOrder:
			default:
				p.Scope.Attributes = append(p.Scope.Attributes, a)
			}
		}
	}
	p.Scope.SchemaURL = sp.GetSchemaUrl()
}

// mappingList returns the dictionary mapping indices pprofx's writer
// listed for a profile (AttrMappings), or nil.
func (t *dict) mappingList(pr *pb.Profile) []int32 {
	for _, a := range pr.AttributeIndices {
		at := &t.attrs[a]
		if at.key != AttrMappings || at.value.Kind != model.KindArray {
			continue
		}
		out := make([]int32, 0, len(at.value.Array))
		for _, v := range at.value.Array {
			if v.Kind != model.KindInt || v.Int <= 0 || v.Int > int64(len(t.tmpl.Mappings)) {
				return nil
			}
			out = append(out, int32(v.Int))
		}
		return out
	}
	return nil
}

func textOf(v model.Value) string {
	if v.Kind == model.KindString {
		return v.Str
	}
	return otlpcommon.ValueText(v)
}

// sampleAttr is a sample attribute as the model holds it: pprof labels,
// or (labels nil) an attribute of the label set.
type sampleAttr struct {
	labels []model.Label
	attr   model.Attribute
}

// sampleAttr converts a sample attribute. What pprof's labels hold as it
// is becomes labels: a non-empty string without a unit is one string
// label, an integer one numeric label with the attribute's unit, an array
// of two or more of these one label per element (a multi-valued label,
// as the writer writes one). Anything else (bool, double, bytes, map,
// empty, the empty string, a string with a unit, another array) stays the
// attribute it is, with its unit.
func (d *decoder) sampleAttr(b *model.Builder, at *attr) sampleAttr {
	if !labelValue(at.value, at.unit, false) {
		return sampleAttr{attr: model.Attribute{Key: at.key, Value: at.value, Unit: at.unit}}
	}
	key := b.String(at.sampleKey)
	one := func(v model.Value) model.Label {
		if v.Kind == model.KindString {
			return model.Label{Key: key, Str: b.String(v.Str)}
		}
		l := model.Label{Key: key, Num: v.Int}
		if at.unit != "" {
			l.NumUnit = b.String(at.unit)
		}
		return l
	}
	if at.value.Kind == model.KindArray {
		out := make([]model.Label, 0, len(at.value.Array))
		for _, v := range at.value.Array {
			out = append(out, one(v))
		}
		return sampleAttr{labels: out}
	}
	return sampleAttr{labels: []model.Label{one(at.value)}}
}

// labelValue reports whether pprof labels hold v with this unit as it is
// (see sampleAttr); inArray: v is an element of an array.
func labelValue(v model.Value, unit string, inArray bool) bool {
	switch v.Kind {
	case model.KindString:
		return v.Str != "" && unit == ""
	case model.KindInt:
		return true
	case model.KindArray:
		if inArray || len(v.Array) < 2 {
			return false
		}
		for _, e := range v.Array {
			if !labelValue(e, unit, true) {
				return false
			}
		}
		return true
	}
	return false
}
