package otlp

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/commonpb"
	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/model"
)

// Severity of a validation finding.
type Severity int

const (
	// Must: the message breaks a MUST of the spec or the proto.
	Must Severity = iota
	// Should: the message breaks a SHOULD (or a convention).
	Should
)

func (s Severity) String() string {
	if s == Must {
		return "error"
	}
	return "warning"
}

// Finding is one rule a message breaks, named by its field path, e.g.
// resource_profiles[0].scope_profiles[0].profiles[1].samples[12].stack_index.
type Finding struct {
	Severity Severity
	Path     string
	Msg      string
}

func (f Finding) String() string { return f.Severity.String() + ": " + f.Path + ": " + f.Msg }

// checker walks a ProfilesData and reports what breaks the spec. With
// mustOnly it checks only the MUST rules the reader depends on (indices,
// zero entries, sample shape, ids) and stops at the first finding.
type checker struct {
	mustOnly bool
	limit    int // stop after this many findings (0: no limit)
	out      []Finding
	nMust    int

	d                                   *pb.ProfilesDictionary
	ct                                  *compactTables // d's location and function tables, when read compact
	nstr, nmap, nloc, nfun, nlnk, nattr int
	nstack                              int
}

func (c *checker) done() bool {
	return (c.mustOnly && c.nMust > 0) || (c.limit > 0 && len(c.out) >= c.limit)
}

func (c *checker) add(sev Severity, path func() string, format string, args ...any) {
	if c.done() || (c.mustOnly && sev != Must) {
		return
	}
	if sev == Must {
		c.nMust++
	}
	c.out = append(c.out, Finding{sev, path(), fmt.Sprintf(format, args...)})
}

// Paths are made only when a finding is reported: each is a closure over
// the indices (which does not escape, so it costs no allocation).

// Validate checks one ProfilesData against the spec's rules and returns
// every finding (at most limit, 0: all), MUST failures and SHOULD warnings.
// It never panics, whatever the message holds.
func Validate(pd *pb.ProfilesData, limit int) []Finding {
	c := &checker{limit: limit}
	c.data(pd)
	return c.out
}

// firstError returns the first MUST failure the reader cannot read past;
// ct is pd's location and function tables when they were read compact
// (else nil).
func firstError(pd *pb.ProfilesData, ct *compactTables) *Finding {
	c := &checker{mustOnly: true, ct: ct}
	c.data(pd)
	if len(c.out) > 0 {
		return &c.out[0]
	}
	return nil
}

func (c *checker) data(pd *pb.ProfilesData) {
	d := pd.GetDictionary()
	c.d = d
	c.nstr, c.nmap, c.nloc = len(d.GetStringTable()), len(d.GetMappingTable()), len(d.GetLocationTable())
	c.nfun, c.nlnk, c.nattr, c.nstack = len(d.GetFunctionTable()), len(d.GetLinkTable()), len(d.GetAttributeTable()), len(d.GetStackTable())
	if c.ct != nil {
		c.nloc, c.nfun = len(c.ct.locs), len(c.ct.funcs)
	}
	nprof := 0
	for _, rp := range pd.GetResourceProfiles() {
		for _, sp := range rp.GetScopeProfiles() {
			nprof += len(sp.GetProfiles())
		}
	}
	if d == nil {
		if nprof > 0 {
			c.add(Must, func() string { return fmt.Sprintf("dictionary") }, "missing, but %d profiles refer to it", nprof)
		}
	} else {
		c.dictionary(d)
	}
	for ri, rp := range pd.GetResourceProfiles() {
		rpath := fmt.Sprintf("resource_profiles[%d]", ri)
		if r := rp.GetResource(); r != nil {
			c.keyValues(r.GetAttributes(), rpath+".resource.attributes")
		}
		for si, sp := range rp.GetScopeProfiles() {
			spath := fmt.Sprintf("%s.scope_profiles[%d]", rpath, si)
			if s := sp.GetScope(); s != nil {
				c.keyValues(s.GetAttributes(), spath+".scope.attributes")
			}
			for pi, pr := range sp.GetProfiles() {
				c.profile(pr, fmt.Sprintf("%s.profiles[%d]", spath, pi))
				if c.done() {
					return
				}
			}
		}
	}
}

// index checks a reference into a table of n entries.
func (c *checker) index(x int32, n int, table string, path func() string) bool {
	if x < 0 {
		c.add(Must, path, "%d is negative", x)
		return false
	}
	if int(x) >= n && !(x == 0 && n == 0) {
		c.add(Must, path, "%d beyond %s (%d)", x, table, n)
		return false
	}
	return true
}

func (c *checker) str(x int32, path func() string) bool {
	return c.index(x, c.nstr, "string_table", path)
}

func (c *checker) zeroEntry(table string, n int, zero bool) {
	switch {
	case n == 0:
		c.add(Must, func() string { return fmt.Sprintf("dictionary.%s", table) }, "empty: [0] must be present, the zero value")
	case !zero:
		c.add(Must, func() string { return fmt.Sprintf("dictionary.%s[0]", table) }, "must be the zero value")
	}
}

func (c *checker) dictionary(d *pb.ProfilesDictionary) {
	zeroMsg := func(m proto.Message) bool { return proto.Size(m) == 0 }
	c.zeroEntry("string_table", c.nstr, c.nstr > 0 && d.StringTable[0] == "")
	c.zeroEntry("mapping_table", c.nmap, c.nmap > 0 && zeroMsg(d.MappingTable[0]))
	if c.ct != nil {
		c.zeroEntry("location_table", c.nloc, c.nloc > 0 && c.ct.zeroLocation())
	} else {
		c.zeroEntry("location_table", c.nloc, c.nloc > 0 && zeroMsg(d.LocationTable[0]))
	}
	if c.ct != nil {
		c.zeroEntry("function_table", c.nfun, c.nfun > 0 && c.ct.funcs[0] == model.Function{})
	} else {
		c.zeroEntry("function_table", c.nfun, c.nfun > 0 && zeroMsg(d.FunctionTable[0]))
	}
	c.zeroEntry("link_table", c.nlnk, c.nlnk > 0 && allZero(d.LinkTable[0].GetTraceId()) && allZero(d.LinkTable[0].GetSpanId()))
	// (The collector's pdata writes attribute_table[0] with an empty
	// AnyValue, value: {}: no value is set, which is the zero value.)
	a0 := func() bool {
		a := d.AttributeTable[0]
		return a.GetKeyStrindex() == 0 && a.GetUnitStrindex() == 0 && a.GetValue().GetValue() == nil && len(a.GetValue().ProtoReflect().GetUnknown()) == 0
	}
	c.zeroEntry("attribute_table", c.nattr, c.nattr > 0 && a0())
	c.zeroEntry("stack_table", c.nstack, c.nstack > 0 && zeroMsg(d.StackTable[0]))
	if c.nlnk > 0 && d.LinkTable[0] != nil && allZero(d.LinkTable[0].TraceId) && allZero(d.LinkTable[0].SpanId) &&
		(len(d.LinkTable[0].TraceId) != 16 || len(d.LinkTable[0].SpanId) != 8) && !(len(d.LinkTable[0].TraceId) == 0 && len(d.LinkTable[0].SpanId) == 0) {
		c.add(Should, func() string { return fmt.Sprintf("dictionary.link_table[0]") }, "zero ids of other lengths than 16 and 8 bytes (profiles.proto, ProfilesDictionary.link_table: link_table[0] SHOULD hold 16 and 8 zero bytes)")
	}
	for i, kv := range d.AttributeTable {
		if i == 0 {
			continue
		}
		k, u := kv.GetKeyStrindex(), kv.GetUnitStrindex()
		if k > 0 && int(k) < c.nstr && u >= 0 && int(u) < c.nstr && plainValue(kv.GetValue()) {
			continue // nothing to report: no path made
		}
		path := fmt.Sprintf("dictionary.attribute_table[%d]", i)
		c.str(k, func() string { return fmt.Sprintf("%s.key_strindex", path) })
		c.str(u, func() string { return fmt.Sprintf("%s.unit_strindex", path) })
		c.anyValue(kv.GetValue(), path+".value", 0)
		if k == 0 {
			c.add(Should, func() string { return fmt.Sprintf("%s.key_strindex", path) }, "0: the attribute's key is empty (OpenTelemetry common/attributes: an attribute key MUST be a non-empty string; reported as a warning, the reader needs no key)")
		}
	}
	for i, m := range d.MappingTable {
		if i == 0 {
			continue
		}
		c.str(m.GetFilenameStrindex(), func() string { return fmt.Sprintf("dictionary.mapping_table[%d].filename_strindex", i) })
		c.attrIndices(m.GetAttributeIndices(), func() string { return fmt.Sprintf("dictionary.mapping_table[%d]", i) })
		if !c.mustOnly && !c.hasBuildID(m.GetAttributeIndices()) {
			c.add(Should, func() string { return fmt.Sprintf("dictionary.mapping_table[%d].attribute_indices", i) }, "no process.executable.build_id.* attribute (profiles/mappings.md: a Mapping MUST have at least one; reported as a warning, since a pprof mapping often has no build id and no reader needs one)")
		}
	}
	for i, f := range d.FunctionTable {
		if i > 0 {
			c.function(i, f.GetNameStrindex(), f.GetSystemNameStrindex(), f.GetFilenameStrindex())
		}
	}
	if c.ct != nil {
		for i := 1; i < len(c.ct.funcs); i++ {
			f := &c.ct.funcs[i]
			c.function(i, f.Name, f.SystemName, f.Filename)
		}
	}
	for i, l := range d.LocationTable {
		if i > 0 {
			c.location(i, l.GetMappingIndex(), l.GetAttributeIndices(), len(l.GetLines()), func(j int) int32 { return l.Lines[j].GetFunctionIndex() })
		}
	}
	if c.ct != nil {
		for i := 1; i < len(c.ct.locs); i++ {
			l := &c.ct.locs[i]
			lines := c.ct.linesOf(l)
			c.location(i, l.Mapping, c.ct.attrsOf(i), len(lines), func(j int) int32 { return lines[j].Function })
		}
	}
	for i, l := range d.LinkTable {
		if i == 0 {
			continue
		}
		if n := len(l.GetTraceId()); n != 16 {
			c.add(Must, func() string { return fmt.Sprintf("dictionary.link_table[%d].trace_id", i) }, "%d bytes, want 16", n)
		}
		if n := len(l.GetSpanId()); n != 8 {
			c.add(Must, func() string { return fmt.Sprintf("dictionary.link_table[%d].span_id", i) }, "%d bytes, want 8", n)
		}
	}
	for i, s := range d.StackTable {
		if i == 0 {
			continue
		}
		for j, x := range s.GetLocationIndices() {
			if c.index(x, c.nloc, "location_table", func() string { return fmt.Sprintf("dictionary.stack_table[%d].location_indices[%d]", i, j) }) && x == 0 {
				c.add(Must, func() string { return fmt.Sprintf("dictionary.stack_table[%d].location_indices[%d]", i, j) }, "0 is the zero location, not a frame")
			}
		}
	}
}

// function checks function_table[i]'s string indices.
func (c *checker) function(i int, name, systemName, filename int32) {
	c.str(name, func() string { return fmt.Sprintf("dictionary.function_table[%d].name_strindex", i) })
	c.str(systemName, func() string { return fmt.Sprintf("dictionary.function_table[%d].system_name_strindex", i) })
	c.str(filename, func() string { return fmt.Sprintf("dictionary.function_table[%d].filename_strindex", i) })
	// (The reader takes such a function as an empty one, with a
	// warning: it needs nothing of it.)
	if !c.mustOnly && name == 0 && systemName == 0 && filename == 0 {
		c.add(Must, func() string { return fmt.Sprintf("dictionary.function_table[%d]", i) }, "names nothing: one of name_strindex, system_name_strindex, filename_strindex must be set")
	}
}

// location checks location_table[i]: its mapping_index, the
// function_index of each of its nlines lines (fn) and its
// attribute_indices.
func (c *checker) location(i int, mapping int32, attrs []int32, nlines int, fn func(j int) int32) {
	c.index(mapping, c.nmap, "mapping_table", func() string { return fmt.Sprintf("dictionary.location_table[%d].mapping_index", i) })
	for j := range nlines {
		c.index(fn(j), c.nfun, "function_table", func() string { return fmt.Sprintf("dictionary.location_table[%d].lines[%d].function_index", i, j) })
	}
	c.attrIndices(attrs, func() string { return fmt.Sprintf("dictionary.location_table[%d]", i) })
}

func (c *checker) hasBuildID(as []int32) bool {
	for _, a := range as {
		if a > 0 && int(a) < c.nattr {
			k := c.d.AttributeTable[a].GetKeyStrindex()
			if k > 0 && int(k) < c.nstr && strings.HasPrefix(c.d.StringTable[k], "process.executable.build_id.") {
				return true
			}
		}
	}
	return false
}

// attrIndices checks a referrer's attribute_indices: in range, keys unique.
func (c *checker) attrIndices(as []int32, owner func() string) {
	for j, a := range as {
		c.index(a, c.nattr, "attribute_table", func() string { return fmt.Sprintf("%s.attribute_indices[%d]", owner(), j) })
	}
	if len(as) < 2 || c.done() {
		return
	}
	for j, a := range as {
		if a <= 0 || int(a) >= c.nattr {
			continue
		}
		ka := c.d.AttributeTable[a].GetKeyStrindex()
		for _, b := range as[:j] {
			if b <= 0 || int(b) >= c.nattr {
				continue
			}
			if kb := c.d.AttributeTable[b].GetKeyStrindex(); kb == ka || c.keyText(kb) == c.keyText(ka) {
				c.add(Must, func() string { return fmt.Sprintf("%s.attribute_indices[%d]", owner(), j) },
					"key %q repeated: attribute keys must be unique per referrer", c.keyText(ka))
				return
			}
		}
	}
}

func (c *checker) keyText(k int32) string {
	if k >= 0 && int(k) < c.nstr {
		return c.d.StringTable[k]
	}
	return ""
}

// plainValue reports whether v holds no reference into the string table
// (and no array or map that could).
func plainValue(v *commonpb.AnyValue) bool {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValueStrindex, *commonpb.AnyValue_KvlistValue:
		return false
	case *commonpb.AnyValue_ArrayValue:
		for _, e := range x.ArrayValue.GetValues() {
			if !plainValue(e) || e.GetArrayValue() != nil {
				return false
			}
		}
	}
	return true
}

func (c *checker) anyValue(v *commonpb.AnyValue, path string, depth int) {
	if v == nil || depth > 64 {
		return
	}
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValueStrindex:
		c.str(x.StringValueStrindex, func() string { return fmt.Sprintf("%s.string_value_strindex", path) })
	case *commonpb.AnyValue_ArrayValue:
		for i, e := range x.ArrayValue.GetValues() {
			c.anyValue(e, fmt.Sprintf("%s.array_value.values[%d]", path, i), depth+1)
		}
	case *commonpb.AnyValue_KvlistValue:
		for i, kv := range x.KvlistValue.GetValues() {
			c.keyValue(kv, fmt.Sprintf("%s.kvlist_value.values[%d]", path, i), depth+1)
		}
	}
}

func (c *checker) keyValue(kv *commonpb.KeyValue, path string, depth int) {
	if kv.GetKeyStrindex() != 0 {
		c.str(kv.GetKeyStrindex(), func() string { return fmt.Sprintf("%s.key_strindex", path) })
	}
	c.anyValue(kv.GetValue(), path+".value", depth)
}

func (c *checker) keyValues(kvs []*commonpb.KeyValue, path string) {
	for i, kv := range kvs {
		c.keyValue(kv, fmt.Sprintf("%s[%d]", path, i), 0)
	}
}

func (c *checker) profile(pr *pb.Profile, path string) {
	vt := func(t *pb.ValueType, what string) {
		if t == nil {
			return
		}
		c.str(t.TypeStrindex, func() string { return fmt.Sprintf("%s.%s.type_strindex", path, what) })
		c.str(t.UnitStrindex, func() string { return fmt.Sprintf("%s.%s.unit_strindex", path, what) })
	}
	vt(pr.GetSampleType(), "sample_type")
	vt(pr.GetPeriodType(), "period_type")
	c.attrIndices(pr.GetAttributeIndices(), func() string { return fmt.Sprintf("%s", path) })
	if id := pr.GetProfileId(); len(id) > 0 {
		if len(id) != 16 {
			c.add(Must, func() string { return fmt.Sprintf("%s.profile_id", path) }, "%d bytes, want 16", len(id))
		} else if allZero(id) {
			c.add(Must, func() string { return fmt.Sprintf("%s.profile_id", path) }, "all zero (invalid)")
		}
	}
	if (pr.GetOriginalPayloadFormat() == "") != (len(pr.GetOriginalPayload()) == 0) {
		c.add(Must, func() string { return fmt.Sprintf("%s.original_payload_format", path) }, "original_payload and original_payload_format must be set together")
	}
	t0, dur := pr.GetTimeUnixNano(), pr.GetDurationNano()
	shape := -1
	warnedTS, warnedShape := false, false
	for i, s := range pr.GetSamples() {
		sp := func() string { return fmt.Sprintf("%s.samples[%d]", path, i) }
		c.index(s.GetStackIndex(), c.nstack, "stack_table", func() string { return sp() + ".stack_index" })
		c.attrIndices(s.GetAttributeIndices(), sp)
		c.index(s.GetLinkIndex(), c.nlnk, "link_table", func() string { return sp() + ".link_index" })
		nv, nt := len(s.GetValues()), len(s.GetTimestampsUnixNano())
		switch {
		case nv == 0 && nt == 0:
			c.add(Must, sp, "neither values nor timestamps_unix_nano: a sample needs at least one")
		case nv > 0 && nt > 0 && nv != nt:
			c.add(Must, sp, "%d values but %d timestamps_unix_nano: when both are set they must be as many", nv, nt)
		}
		sh := 0
		if nv > 0 {
			sh |= 1
		}
		if nt > 0 {
			sh |= 2
		}
		if shape == -1 {
			shape = sh
		} else if sh != shape && !warnedShape && !c.mustOnly {
			warnedShape = true
			c.add(Should, sp, "shape (values/timestamps) differs from the profile's first sample (profiles.proto, Sample: all Samples for a Profile SHOULD have the same shape)")
		}
		if t0 != 0 && !warnedTS && !c.mustOnly {
			for j, ts := range s.GetTimestampsUnixNano() {
				// The end is inside: profiles.proto's Sample says the
				// timestamps SHOULD fall within [time, time + duration),
				// its Profile.duration_nano "within the profile time
				// range"; the eBPF profiler ends the range at its last
				// sample, and no reader is misled by that.
				if ts < t0 || (dur > 0 && ts-t0 > dur) {
					warnedTS = true
					c.add(Should, func() string { return fmt.Sprintf("%s.timestamps_unix_nano[%d]", sp(), j) },
						"%d outside the profile's time range [%d, %d] (profiles.proto, Sample.timestamps_unix_nano: SHOULD fall within the Profile's time range; reported once per profile)", ts, t0, t0+dur)
					break
				}
			}
		}
		if c.done() {
			return
		}
	}
}

// ValidateData parses data as Decode does (any layout, gzip) and returns
// every finding of every message, paths prefixed with "message[i]." when
// there are several, at most limit per message (0: all). The error is
// for data that does not parse at all. A message whose samples break the
// rules but that reads cleanly in the other Sample layout (v1.9 / v1.10)
// gets a finding that says so.
func ValidateData(data []byte, opts DecodeOptions, limit int) ([]Finding, int, error) {
	// Fields the parser skipped (a wire type the schema contradicts, a
	// number it does not have) are findings too.
	var skipped []Finding
	opts.Warn = func(s string) {
		skipped = append(skipped, Finding{Should, "wire format", strings.TrimPrefix(s, "otlp: ") + " (protobuf encoding: a field's wire type is its schema type's)"})
	}
	p, err := readMessages(data, opts, false)
	if err != nil {
		return nil, 0, err
	}
	msgs, layouts := p.Messages, p.Layouts
	out := skipped
	var alt []*pb.ProfilesData
	for i, pd := range msgs {
		fs := Validate(pd, limit)
		other, name := LayoutV19, "v1.9 (values=2, attribute_indices=3, link_index=4): use --otlp-proto 1.9"
		if layouts[i] == LayoutV19 {
			other, name = LayoutV110, "v1.10 or later: use --otlp-proto 1.10"
		}
		if f := firstMust(fs); f != nil && strings.Contains(f.Path, ".samples[") && layouts[i] != LayoutAuto {
			alt = nil
			if a, err := readMessages(data, DecodeOptions{Layout: other}, false); err == nil && len(a.Messages) == len(msgs) {
				alt = a.Messages
			}
			if i < len(alt) && firstError(alt[i], nil) == nil && hasSamples(alt[i]) {
				fs = append(fs, Finding{Must, f.Path, "this message reads cleanly as OTLP profiles proto " + name})
			}
		}
		for _, f := range fs {
			if len(msgs) > 1 {
				f.Path = fmt.Sprintf("message[%d].%s", i, f.Path)
			}
			out = append(out, f)
		}
	}
	return out, len(msgs), nil
}

func firstMust(fs []Finding) *Finding {
	for i := range fs {
		if fs[i].Severity == Must {
			return &fs[i]
		}
	}
	return nil
}
