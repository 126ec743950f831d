package pprofextended

import (
	"fmt"
	"strings"

	"github.com/pprofx/pprofx/internal/codec/otlpcommon"

	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/inflate"
	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/commonpb"
	"github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"
	"github.com/pprofx/pprofx/internal/model"
)

// maxDecompressed bounds what a gzipped input may expand to.
const maxDecompressed = 4 << 30

// Decode reads an OTLP ProfilesData (binary or OTLP JSON, plain or gzipped)
// and returns one model.Profile per ProfileContainer, in file order, with
// its resource, scope, container attributes, profile id, times and original
// payload filled in. Every index and slice bound is checked; the error names
// the first bad one by its field path.
func Decode(data []byte, opts DecodeOptions) ([]*model.Profile, error) {
	data, err := inflate.Gzip(data, maxDecompressed, "otlp")
	if err != nil {
		return nil, err
	}
	var pd *profilespb.ProfilesData
	var st *stripped
	in := data // the input, which the memory checks hold the tables to
	switch {
	case len(data) > 0 && data[0] == 0x0a && looksJSON(data):
		// A newline then '{': binary, if it parses, else JSON.
		var binErr error
		if pd, st, binErr = decodeBinary(data, len(in)); binErr == nil {
			break
		}
		if _, ok := binErr.(*memoryError); ok {
			return nil, binErr
		}
		if pd, st, data, err = decodeJSON(data); err != nil {
			if _, ok := err.(*memoryError); ok {
				return nil, err
			}
			return nil, fmt.Errorf("otlp: neither binary (%v) nor JSON (%v)", binErr, err)
		}
	case looksJSON(data):
		if pd, st, data, err = decodeJSON(data); err != nil {
			if _, ok := err.(*memoryError); ok {
				return nil, err
			}
			return nil, fmt.Errorf("otlp json: %v", err)
		}
	default:
		var err error
		if pd, st, err = decodeBinary(data, len(in)); err != nil {
			if _, ok := err.(*memoryError); ok {
				return nil, err
			}
			return nil, fmt.Errorf("otlp: %v", err)
		}
	}
	d := &decoder{warnFn: opts.Warn, warned: map[string]bool{}, data: data, st: st,
		frameRoom: (model.MemoryPerInputByte*int64(len(in)) + 16<<20) / 4}
	return d.profilesData(pd)
}

// memoryError is a refusal by model.CheckMemory.
type memoryError struct{ err error }

func (e *memoryError) Error() string { return e.err.Error() }

// decodeJSON reads OTLP JSON ProfilesData as decodeBinary reads its binary
// encoding (otlpcommon.JSONToBinary), which it also returns: the samples
// and location_indices go to the model's layout, not to the generated
// structs of the whole text.
func decodeJSON(text []byte) (*profilespb.ProfilesData, *stripped, []byte, error) {
	data, err := otlpcommon.JSONToBinary(text, (&profilespb.ProfilesData{}).ProtoReflect().Descriptor())
	if err != nil {
		return nil, nil, nil, err
	}
	pd, st, err := decodeBinary(data, len(text))
	return pd, st, data, err
}

// decodeBinary reads binary ProfilesData: the samples are left in data
// (st says where) for the decoder to read into the model directly, and
// what the rest takes in memory is checked against the input's size
// (inputBytes: data's, or the JSON's it was made of) before
// proto.Unmarshal allocates it.
func decodeBinary(data []byte, inputBytes int) (*profilespb.ProfilesData, *stripped, error) {
	pd := &profilespb.ProfilesData{}
	md := pd.ProtoReflect().Descriptor()
	st, err := stripSamples(data)
	if err != nil {
		return nil, nil, otlpcommon.LocateWireError(data, md, err)
	}
	need, err := wireMemory(st.data, md, 0)
	if err != nil {
		return nil, nil, otlpcommon.LocateWireError(data, md, err)
	}
	nsamples := 0
	for _, n := range st.samples {
		nsamples += n
	}
	need += int64(nsamples)*sampleModel + 4*int64(st.nindices)
	if err := model.CheckMemory("otlp", need, int64(inputBytes),
		fmt.Sprintf("%d samples and %d bytes of other messages", nsamples, len(st.data))); err != nil {
		return nil, nil, &memoryError{err}
	}
	if err := proto.Unmarshal(st.data, pd); err != nil {
		return nil, nil, otlpcommon.LocateWireError(data, md, err)
	}
	// The copy without the samples (most of the input's size) is not
	// read again: proto.Unmarshal copies what it keeps of it.
	st.data = nil
	return pd, st, nil
}

// decoder holds the state of one Decode call.
type decoder struct {
	warnFn func(string)
	warned map[string]bool
	frames []int32
	labels []model.Label

	data []byte    // the input, which st points into
	st   *stripped // binary input: where the samples are; nil for JSON
	ci   int       // ordinal of the container being read
	// frameRoom is how many more frames the distinct stacks may take.
	frameRoom int64
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

func (d *decoder) profilesData(pd *profilespb.ProfilesData) ([]*model.Profile, error) {
	var out []*model.Profile
	for ri, rp := range pd.ResourceProfiles {
		for si, sp := range rp.GetScopeProfiles() {
			for ci, c := range sp.GetProfiles() {
				path := fmt.Sprintf("resource_profiles[%d].scope_profiles[%d].profiles[%d]", ri, si, ci)
				p, err := d.container(path, rp, sp, c)
				if err != nil {
					return nil, fmt.Errorf("otlp: %v", err)
				}
				d.ci++
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("otlp: no profile in the data (no resource_profiles[].scope_profiles[].profiles[])")
	}
	return out, nil
}

// containerReader reads one ProfileContainer's profile into p: the
// indices of the input's tables as the model's.
type containerReader struct {
	d          *decoder
	pp         string // the profile's field path, for errors
	prof       *profilespb.Profile
	p          *model.Profile
	b          *model.Builder
	ns         int64 // the input's string_table's length
	attrLabels []model.Label
	mapIdx     []int32
	funcIdx    []int32
	linkIdx    []int32
	nloc       int64   // the input's location table's length
	li         []int32 // location_indices, checked against it (JSON input)
	// liWire reads location_indices, checked against it, in place
	// (binary input); nli is their number either way.
	liWire *indexList
	nli    uint64
	// slices maps a (start, length) of location_indices that samples
	// share to its stack, resolved once.
	slices map[[2]uint64]int32
}

// str checks a string index.
func (r *containerReader) str(v int64, format string, args ...any) (int32, error) {
	if v < 0 || v >= r.ns {
		return 0, fmt.Errorf("%s.%s: string index %d beyond string_table (%d)", r.pp, fmt.Sprintf(format, args...), v, r.ns)
	}
	return int32(v), nil
}

// checkAttrs checks a list of attribute indices.
func (r *containerReader) checkAttrs(list []uint64, what string) error {
	nattr := uint64(len(r.attrLabels))
	for j, a := range list {
		if a >= nattr {
			return fmt.Errorf("%s.%s.attributes[%d]: %d beyond attribute_table (%d)", r.pp, what, j, a, nattr)
		}
	}
	return nil
}

func (d *decoder) container(path string, rp *profilespb.ResourceProfiles, sp *profilespb.ScopeProfiles, c *profilespb.ProfileContainer) (*model.Profile, error) {
	prof := c.GetProfile()
	if prof == nil {
		return nil, fmt.Errorf("%s.profile: missing", path)
	}
	r := &containerReader{d: d, pp: path + ".profile", prof: prof, p: model.New()}
	if st := prof.StringTable; len(st) > 0 {
		if st[0] != "" {
			return nil, fmt.Errorf("%s.string_table[0]: %q, must be empty", r.pp, st[0])
		}
		r.p.Strings = st
	}
	r.ns = int64(len(r.p.Strings))
	r.b = model.BuilderFor(r.p)
	for _, step := range []func() error{r.attributes, r.mappings, r.functions, r.locations, r.links, r.sampleTypes, r.samples, r.header} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if err := d.containerFields(r.p, r.b, path, rp, sp, c); err != nil {
		return nil, err
	}
	if err := r.p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return r.p, nil
}

// attributes reads the attribute units and the attribute table, as labels.
func (r *containerReader) attributes() error {
	prof, p, b := r.prof, r.p, r.b
	units := map[string]int32{}
	for i, u := range prof.AttributeUnits {
		k, err := r.str(u.AttributeKey, "attribute_units[%d].attribute_key", i)
		if err != nil {
			return err
		}
		unit, err := r.str(u.Unit, "attribute_units[%d].unit", i)
		if err != nil {
			return err
		}
		if _, ok := units[p.Strings[k]]; !ok {
			units[p.Strings[k]] = unit
		}
	}
	r.attrLabels = make([]model.Label, len(prof.AttributeTable))
	for i, kv := range prof.AttributeTable {
		l := model.Label{Key: b.String(kv.GetKey())}
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			l.Str = b.String(x.StringValue)
		case *commonpb.AnyValue_IntValue:
			l.Num = x.IntValue
			l.NumUnit = units[kv.GetKey()]
		default:
			r.d.warn("otlp: attributes that are neither strings nor integers became string labels")
			l.Str = b.String(otlpcommon.ValueText(convertValue(v)))
		}
		r.attrLabels[i] = l
	}
	return nil
}

// mappings reads the mapping table. Only an all-zero mapping at index 0
// is "none" (the placeholder the writer puts there); an all-zero one
// elsewhere is a real (empty) mapping.
func (r *containerReader) mappings() error {
	prof, p := r.prof, r.p
	var err error
	r.mapIdx = make([]int32, len(prof.Mapping))
	for i, m := range prof.Mapping {
		if err := r.checkAttrs(m.Attributes, fmt.Sprintf("mapping[%d]", i)); err != nil {
			return err
		}
		if len(m.Attributes) > 0 {
			r.d.warn("otlp: mapping attributes were dropped (the model has no place for them)")
		}
		if i == 0 && m.MemoryStart == 0 && m.MemoryLimit == 0 && m.FileOffset == 0 && m.Filename == 0 && m.BuildId == 0 &&
			m.BuildIdKind == 0 && !m.HasFunctions && !m.HasFilenames && !m.HasLineNumbers && !m.HasInlineFrames {
			r.mapIdx[i] = model.NoMapping
			continue
		}
		mm := model.Mapping{Start: m.MemoryStart, Limit: m.MemoryLimit, Offset: m.FileOffset,
			BuildIDKind: int32(m.BuildIdKind), HasFunctions: m.HasFunctions, HasFilenames: m.HasFilenames,
			HasLineNumbers: m.HasLineNumbers, HasInlineFrames: m.HasInlineFrames}
		if mm.File, err = r.str(m.Filename, "mapping[%d].filename", i); err != nil {
			return err
		}
		if mm.BuildID, err = r.str(m.BuildId, "mapping[%d].build_id", i); err != nil {
			return err
		}
		r.mapIdx[i] = int32(len(p.Mappings))
		p.Mappings = append(p.Mappings, mm)
	}
	return nil
}

// functions reads the function table. Only an all-zero function at index
// 0 is "none" (a line with no function); an all-zero one elsewhere is a
// real function with every field empty, as pprof's symbolizer writes for
// an address it finds nothing for.
func (r *containerReader) functions() error {
	prof, p := r.prof, r.p
	var err error
	r.funcIdx = make([]int32, len(prof.Function))
	p.Functions = make([]model.Function, 0, len(prof.Function))
	for i, f := range prof.Function {
		if i == 0 && f.Name == 0 && f.SystemName == 0 && f.Filename == 0 && f.StartLine == 0 {
			r.funcIdx[i] = model.NoFunction
			continue
		}
		r.funcIdx[i] = int32(len(p.Functions))
		p.Functions = append(p.Functions, model.Function{})
		mf := &p.Functions[len(p.Functions)-1]
		if mf.Name, err = r.str(f.Name, "function[%d].name", i); err != nil {
			return err
		}
		if mf.SystemName, err = r.str(f.SystemName, "function[%d].system_name", i); err != nil {
			return err
		}
		if mf.Filename, err = r.str(f.Filename, "function[%d].filename", i); err != nil {
			return err
		}
		mf.StartLine = f.StartLine
	}
	return nil
}

// locations reads the location table and checks location_indices.
func (r *containerReader) locations() error {
	prof, p, pp := r.prof, r.p, r.pp
	nf := uint64(len(prof.Function))
	p.Locations = make([]model.Location, len(prof.Location))
	nlines := 0
	for _, l := range prof.Location {
		nlines += len(l.Line)
	}
	if nlines > 0 {
		p.Lines = make([]model.Line, 0, nlines)
	}
	for i, l := range prof.Location {
		ml := &p.Locations[i]
		ml.Address, ml.IsFolded, ml.Mapping = l.Address, l.IsFolded, model.NoMapping
		if l.MappingIndex >= uint64(len(r.mapIdx)) {
			if l.MappingIndex != 0 || len(r.mapIdx) != 0 {
				return fmt.Errorf("%s.location[%d].mapping_index: %d beyond mapping (%d)", pp, i, l.MappingIndex, len(r.mapIdx))
			}
		} else {
			ml.Mapping = r.mapIdx[l.MappingIndex]
		}
		if err := r.checkAttrs(l.Attributes, fmt.Sprintf("location[%d]", i)); err != nil {
			return err
		}
		if _, err := r.str(int64(l.TypeIndex), "location[%d].type_index", i); err != nil {
			return err
		}
		if len(l.Attributes) > 0 || l.TypeIndex != 0 {
			r.d.warn("otlp: location attributes and frame types were dropped (the model has no place for them)")
		}
		first := len(p.Lines)
		for j, ln := range l.Line {
			if ln.FunctionIndex >= nf {
				return fmt.Errorf("%s.location[%d].line[%d].function_index: %d beyond function (%d)", pp, i, j, ln.FunctionIndex, nf)
			}
			p.Lines = append(p.Lines, model.Line{Function: r.funcIdx[ln.FunctionIndex], Line: ln.Line})
			p.SetColumn(uint32(len(p.Lines)-1), ln.Column)
		}
		if len(p.Lines) > first {
			ml.FirstLine, ml.NumLines = uint32(first), uint32(len(p.Lines)-first)
		}
	}
	r.nloc = int64(len(prof.Location))
	// The generated tables are read: let them go before location_indices,
	// the samples and their stacks are made.
	prof.Mapping, prof.Function, prof.Location = nil, nil, nil
	err := r.locationIndices()
	prof.LocationIndices = nil
	return err
}

// locationIndices reads location_indices, from the wire for binary input
// (stripSamples took it out of what proto.Unmarshal read), and checks each
// against the location table. Read only from the wire, they are left
// there (indexList); the stacks are read from them.
func (r *containerReader) locationIndices() error {
	d, prof, nloc := r.d, r.prof, r.nloc
	var err error
	valid := func(i int, x int64) bool {
		if x < 0 || x >= nloc {
			err = fmt.Errorf("%s.location_indices[%d]: %d beyond location (%d)", r.pp, i, x, nloc)
			return false
		}
		return true
	}
	check := func(i int, x int64) bool {
		if !valid(i, x) {
			return false
		}
		r.li = append(r.li, int32(x))
		return true
	}
	var ws []wireIndices
	n := len(prof.LocationIndices)
	if d.st != nil {
		ws = d.st.indices[d.ci]
		for _, w := range ws {
			if w.packed {
				n += packedCount(d.data[w.start:w.end])
			} else {
				n++
			}
		}
	}
	r.nli = uint64(n)
	if len(prof.LocationIndices) == 0 {
		r.liWire = newIndexList(d.data, ws, n, valid)
		r.nli = uint64(r.liWire.n)
		return err
	}
	r.li = make([]int32, 0, n)
	if eachIndex(d.data, ws, func(x int64) bool { return check(len(r.li), x) }); err != nil {
		return err
	}
	for _, x := range prof.LocationIndices {
		if !check(len(r.li), x) {
			return err
		}
	}
	return nil
}

// links reads the link table. Only an all-zero link at index 0 is "none".
func (r *containerReader) links() error {
	prof, p, pp := r.prof, r.p, r.pp
	r.linkIdx = make([]int32, len(prof.LinkTable))
	for i, l := range prof.LinkTable {
		if len(l.TraceId) != 0 && len(l.TraceId) != 16 {
			return fmt.Errorf("%s.link_table[%d].trace_id: %d bytes, want 16", pp, i, len(l.TraceId))
		}
		if len(l.SpanId) != 0 && len(l.SpanId) != 8 {
			return fmt.Errorf("%s.link_table[%d].span_id: %d bytes, want 8", pp, i, len(l.SpanId))
		}
		if i == 0 && isNoLink(l.TraceId, l.SpanId) {
			r.linkIdx[i] = model.NoLink
			continue
		}
		r.linkIdx[i] = int32(len(p.Links))
		p.Links = append(p.Links, model.Link{TraceID: l.TraceId, SpanID: l.SpanId})
	}
	return nil
}

func (r *containerReader) sampleTypes() error {
	for i, t := range r.prof.SampleType {
		vt, err := r.d.valueType(t, r.str, fmt.Sprintf("sample_type[%d]", i))
		if err != nil {
			return err
		}
		r.p.SampleTypes = append(r.p.SampleTypes, vt)
	}
	return nil
}

// samples reads the samples: from the wire for binary input, else from
// prof.Sample.
func (r *containerReader) samples() error {
	d, prof, p, pp := r.d, r.prof, r.p, r.pp
	var ws *wireSamples
	nsamples := len(prof.Sample)
	if d.st != nil {
		ws = &wireSamples{data: d.data, bodies: d.st.bodies[d.ci]}
		nsamples = d.st.samples[d.ci]
	}
	p.Samples = make([]model.Sample, nsamples)
	r.growStacks(ws)
	var s sampleIn
	one := func(i int) error { return r.sample(i, &s) }
	if ws != nil {
		if err := ws.each(&s, one); err != nil {
			if strings.HasPrefix(err.Error(), "sample[") {
				return fmt.Errorf("%s.%v", pp, err)
			}
			return err
		}
		return nil
	}
	for i, g := range prof.Sample {
		s.fromGenerated(g)
		if err := one(i); err != nil {
			return err
		}
	}
	return nil
}

// growStacks makes room in the profile's stacks for the distinct slices
// of location_indices the samples name (those in range; a stack that two
// slices hold alike is counted twice), so that the stacks are made at
// their size instead of grown by doubling. It numbers the slices -1 in
// r.slices, to be made by sample.
func (r *containerReader) growStacks(ws *wireSamples) {
	r.slices = map[[2]uint64]int32{}
	nli := r.nli
	// What the input's size can justify, and one more: more frames than
	// that are refused by sample, and not made room for.
	room := r.d.frameRoom + 1
	var frames int64
	slice := func(start, length uint64) {
		key := [2]uint64{start, length}
		if length == 0 || start > nli || length > nli-start {
			return
		}
		if _, ok := r.slices[key]; !ok {
			r.slices[key] = -1
			frames = min(frames+int64(length), room)
		}
	}
	if ws != nil {
		ws.slices(slice)
	} else {
		for _, g := range r.prof.Sample {
			slice(g.LocationsStartIndex, g.LocationsLength)
		}
	}
	if frames > 0 && frames < room {
		r.p.Stacks.Fit(int(r.nloc))
		r.p.Stacks.Grow(len(r.slices), int(frames))
	}
}

// sample reads sample i, as read from the input into s.
func (r *containerReader) sample(i int, s *sampleIn) error {
	d, prof, p, pp, b := r.d, r.prof, r.p, r.pp, r.b
	li := r.li
	nli, nloc := r.nli, r.nloc
	ms := &p.Samples[i]
	if s.start != 0 || s.length != 0 || len(s.locIndex) == 0 {
		if s.start > nli {
			return fmt.Errorf("%s.sample[%d].locations_start_index: %d beyond location_indices (%d)", pp, i, s.start, nli)
		}
		if s.length > nli-s.start {
			return fmt.Errorf("%s.sample[%d].locations_length: %d from %d beyond location_indices (%d)", pp, i, s.length, s.start, nli)
		}
		key := [2]uint64{s.start, s.length}
		stack, ok := r.slices[key]
		if !ok || stack < 0 {
			if d.frameRoom -= int64(s.length); d.frameRoom < 0 {
				return fmt.Errorf("%s.sample[%d]: the samples' distinct stacks reach more frames than the input's size can justify (a crafted file?)", pp, i)
			}
			if r.liWire != nil {
				d.frames = r.liWire.appendRange(d.frames[:0], s.start, s.length)
				stack = b.Stack(d.frames)
			} else {
				stack = b.Stack(li[s.start : s.start+s.length])
			}
			r.slices[key] = stack
		}
		ms.Stack = stack
	} else {
		frames := d.frames[:0]
		for j, x := range s.locIndex {
			if x >= uint64(nloc) {
				return fmt.Errorf("%s.sample[%d].location_index[%d]: %d beyond location (%d)", pp, i, j, x, nloc)
			}
			frames = append(frames, int32(x))
		}
		d.frames = frames
		ms.Stack = b.Stack(frames)
	}
	if len(s.values) != len(prof.SampleType) {
		return fmt.Errorf("%s.sample[%d].value: %d values for %d sample types", pp, i, len(s.values), len(prof.SampleType))
	}
	ms.SetValues(s.values)
	labels, err := r.sampleLabels(i, s)
	if err != nil {
		return err
	}
	ms.LabelSet = b.LabelSet(labels)
	ms.Link = model.NoLink
	if s.link >= uint64(len(r.linkIdx)) {
		if s.link != 0 || len(r.linkIdx) != 0 {
			return fmt.Errorf("%s.sample[%d].link: %d beyond link_table (%d)", pp, i, s.link, len(r.linkIdx))
		}
	} else {
		ms.Link = r.linkIdx[s.link]
	}
	if _, err := r.str(int64(s.stackID), "sample[%d].stacktrace_id_index", i); err != nil {
		return err
	}
	if s.stackID != 0 {
		d.warn("otlp: sample stacktrace ids were dropped (the model has no place for them)")
	}
	if len(s.timestamps) > 0 {
		ms.SetTimestamps(s.timestamps)
	}
	return nil
}

// sampleLabels gives sample i's attributes and labels as model labels, in
// a buffer the next sample reuses.
func (r *containerReader) sampleLabels(i int, s *sampleIn) ([]model.Label, error) {
	d := r.d
	nattr := uint64(len(r.attrLabels))
	labels := d.labels[:0]
	for j, a := range s.attrs {
		if a >= nattr {
			return nil, fmt.Errorf("%s.sample[%d].attributes[%d]: %d beyond attribute_table (%d)", r.pp, i, j, a, nattr)
		}
		labels = append(labels, r.attrLabels[a])
	}
	for j, l := range s.labels {
		var ml model.Label
		var err error
		if ml.Key, err = r.str(l.key, "sample[%d].label[%d].key", i, j); err != nil {
			return nil, err
		}
		if ml.Str, err = r.str(l.str, "sample[%d].label[%d].str", i, j); err != nil {
			return nil, err
		}
		if ml.NumUnit, err = r.str(l.unit, "sample[%d].label[%d].num_unit", i, j); err != nil {
			return nil, err
		}
		ml.Num = l.num
		labels = append(labels, ml)
	}
	d.labels = labels
	return labels, nil
}

// header reads the profile's own fields: period, times, comments, frame
// filters and the default sample type.
func (r *containerReader) header() error {
	prof, p := r.prof, r.p
	var err error
	if prof.PeriodType != nil {
		if p.PeriodType, err = r.d.valueType(prof.PeriodType, r.str, "period_type"); err != nil {
			return err
		}
	}
	p.Period, p.TimeNanos, p.DurationNanos = prof.Period, prof.TimeNanos, prof.DurationNanos
	for i, c := range prof.Comment {
		x, err := r.str(c, "comment[%d]", i)
		if err != nil {
			return err
		}
		p.Comments = append(p.Comments, x)
	}
	if p.DropFrames, err = r.str(prof.DropFrames, "drop_frames"); err != nil {
		return err
	}
	if p.KeepFrames, err = r.str(prof.KeepFrames, "keep_frames"); err != nil {
		return err
	}
	if p.DefaultSampleType, err = r.str(prof.DefaultSampleType, "default_sample_type"); err != nil {
		return err
	}
	return nil
}

// containerFields reads the fields around the profile: the container's id,
// times and attributes, the resource and the scope.
func (d *decoder) containerFields(p *model.Profile, b *model.Builder, path string, rp *profilespb.ResourceProfiles, sp *profilespb.ScopeProfiles, c *profilespb.ProfileContainer) error {
	switch {
	case len(c.ProfileId) == 0:
	case len(c.ProfileId) != 16:
		return fmt.Errorf("%s.profile_id: %d bytes, want 16", path, len(c.ProfileId))
	case allZero(c.ProfileId):
		d.warn("otlp: an all-zero profile_id (invalid) was dropped")
	default:
		p.ProfileID = c.ProfileId
	}
	p.StartTimeUnixNano, p.EndTimeUnixNano = c.StartTimeUnixNano, c.EndTimeUnixNano
	for _, kv := range c.Attributes {
		if kv.GetKey() == DocURLAttribute {
			if s, ok := kv.GetValue().GetValue().(*commonpb.AnyValue_StringValue); ok {
				p.DocURL = b.String(s.StringValue)
				continue
			}
		}
		p.Attributes = append(p.Attributes, model.Attribute{Key: kv.GetKey(), Value: convertValue(kv.GetValue())})
	}
	p.DroppedAttributesCount = c.DroppedAttributesCount
	p.OriginalPayloadFormat, p.OriginalPayload = c.OriginalPayloadFormat, c.OriginalPayload
	if r := rp.GetResource(); r != nil {
		p.Resource.Attributes = convertAttributes(r.Attributes)
		p.Resource.DroppedAttributesCount = r.DroppedAttributesCount
	}
	p.Resource.SchemaURL = rp.GetSchemaUrl()
	if s := sp.GetScope(); s != nil {
		p.Scope = model.Scope{Name: s.Name, Version: s.Version, Attributes: convertAttributes(s.Attributes),
			DroppedAttributesCount: s.DroppedAttributesCount}
	}
	p.Scope.SchemaURL = sp.GetSchemaUrl()
	return nil
}

func (d *decoder) valueType(t *profilespb.ValueType, str func(int64, string, ...any) (int32, error), what string) (model.ValueType, error) {
	var vt model.ValueType
	var err error
	if vt.Type, err = str(t.Type, "%s.type", what); err != nil {
		return vt, err
	}
	if vt.Unit, err = str(t.Unit, "%s.unit", what); err != nil {
		return vt, err
	}
	vt.AggregationTemporality = int32(t.AggregationTemporality)
	return vt, nil
}

func convertAttributes(kvs []*commonpb.KeyValue) []model.Attribute {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]model.Attribute, len(kvs))
	for i, kv := range kvs {
		out[i] = model.Attribute{Key: kv.GetKey(), Value: convertValue(kv.GetValue())}
	}
	return out
}

func convertValue(v *commonpb.AnyValue) model.Value {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return model.Value{Kind: model.KindString, Str: x.StringValue}
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
			out.Array = append(out.Array, convertValue(e))
		}
		return out
	case *commonpb.AnyValue_KvlistValue:
		return model.Value{Kind: model.KindMap, Map: convertAttributes(x.KvlistValue.GetValues())}
	}
	return model.Value{}
}
