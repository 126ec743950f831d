package pprofextended

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/commonpb"
	"github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"
	"github.com/pprofx/pprofx/internal/model"
)

func TestRoundTripModel(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts EncodeOptions
	}{
		{"binary", EncodeOptions{KeepOriginal: true}},
		{"binary-gzip", EncodeOptions{Gzip: true, KeepOriginal: true}},
		{"json", EncodeOptions{JSON: true, KeepOriginal: true}},
		{"json-gzip", EncodeOptions{JSON: true, Gzip: true, KeepOriginal: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := richModel()
			want := flatten(p)
			var warnings []string
			tc.opts.Warn = func(s string) { warnings = append(warnings, s) }
			data := encodeOne(t, p, tc.opts)
			got := decodeOne(t, data)
			g := flatten(got)
			want.Scope = "pprofx   " // the writer's scope replaces the source's
			sameFlat(t, want, g)
			// The "bytes" key has unit bytes first, kilobytes later: those
			// samples go through Sample.label, and the writer says so.
			if len(warnings) != 1 || !strings.Contains(warnings[0], "deprecated Sample.label") {
				t.Errorf("warnings = %q, want one about Sample.label", warnings)
			}
		})
	}
}

func TestOriginalPayloadOffByDefault(t *testing.T) {
	got := decodeOne(t, encodeOne(t, richModel(), EncodeOptions{}))
	if got.OriginalPayload != nil || got.OriginalPayloadFormat != "" {
		t.Errorf("original payload written without KeepOriginal: %q %q", got.OriginalPayloadFormat, got.OriginalPayload)
	}
}

func TestDeterministicAndProfileID(t *testing.T) {
	p := richModel()
	p.ProfileID = nil
	a := encodeOne(t, p, EncodeOptions{})
	b := encodeOne(t, richModel2(), EncodeOptions{})
	if !bytes.Equal(a, b) {
		t.Fatal("two encodings of the same profile differ")
	}
	id := decodeOne(t, a).ProfileID
	if len(id) != 16 || allZero(id) {
		t.Fatalf("derived profile id %x", id)
	}
	p.Samples[0].Values()[0]++
	if id2 := decodeOne(t, encodeOne(t, p, EncodeOptions{})).ProfileID; bytes.Equal(id, id2) {
		t.Errorf("profile id %x does not change with the content", id)
	}
	set, _ := hex.DecodeString("00112233445566778899aabbccddeeff")
	if got := decodeOne(t, encodeOne(t, p, EncodeOptions{ProfileID: set})).ProfileID; !bytes.Equal(got, set) {
		t.Errorf("profile id = %x, want %x", got, set)
	}
	if err := Encode(&bytes.Buffer{}, []*model.Profile{p}, EncodeOptions{ProfileID: []byte{1, 2}}); err == nil {
		t.Error("a 2-byte profile id was accepted")
	}
	if err := Encode(&bytes.Buffer{}, []*model.Profile{p, p}, EncodeOptions{ProfileID: set}); err == nil {
		t.Error("one profile id for two profiles was accepted")
	}
}

func richModel2() *model.Profile {
	p := richModel()
	p.ProfileID = nil
	return p
}

func TestResourceOption(t *testing.T) {
	p := richModel()
	p.Scope = model.Scope{Name: "otel-ebpf-profiler", Version: "0.1"}
	var warns []string
	data := encodeOne(t, p, EncodeOptions{Resource: []model.Attribute{
		{Key: "service.name", Value: model.Value{Kind: model.KindString, Str: "other"}},
		{Key: "deployment.environment", Value: model.Value{Kind: model.KindString, Str: "prod"}},
	}, ScopeVersion: "v1.2.3", Warn: func(s string) { warns = append(warns, s) }})
	got := decodeOne(t, data)
	if len(warns) != 2 || !strings.Contains(warns[0], `scope "otel-ebpf-profiler" of the input is replaced by "pprofx"`) {
		t.Errorf("warnings %q", warns)
	}
	if a := attrs(got.Resource.Attributes); !strings.HasPrefix(a, "service.name=other(1);host.cpus=8(3);") || !strings.HasSuffix(a, "deployment.environment=prod(1)") {
		t.Errorf("resource = %s", a)
	}
	if got.Scope.Name != "pprofx" || got.Scope.Version != "v1.2.3" {
		t.Errorf("scope = %+v", got.Scope)
	}
}

// TestWireShape checks the layout the issue asks for on the generated
// structs: one resource, one scope, one container per profile, the
// all-zero mapping and link at index 0, shared stack slices.
func TestWireShape(t *testing.T) {
	p := richModel()
	data := encodeOne(t, p, EncodeOptions{})
	pd := &profilespb.ProfilesData{}
	if err := proto.Unmarshal(data, pd); err != nil {
		t.Fatal(err)
	}
	if len(pd.ResourceProfiles) != 1 || len(pd.ResourceProfiles[0].ScopeProfiles) != 1 || len(pd.ResourceProfiles[0].ScopeProfiles[0].Profiles) != 1 {
		t.Fatal("not one resource, one scope, one container")
	}
	c := pd.ResourceProfiles[0].ScopeProfiles[0].Profiles[0]
	if c.StartTimeUnixNano != p.StartTimeUnixNano || c.EndTimeUnixNano != p.EndTimeUnixNano {
		t.Errorf("times %d %d", c.StartTimeUnixNano, c.EndTimeUnixNano)
	}
	var doc string
	for _, kv := range c.Attributes {
		if kv.Key == DocURLAttribute {
			doc = kv.Value.GetStringValue()
		}
	}
	if doc != "https://example.com/doc" {
		t.Errorf("doc url attribute = %q", doc)
	}
	pr := c.Profile
	if len(pr.Function) != 6 || !proto.Equal(pr.Function[0], &profilespb.Function{}) {
		t.Errorf("function[0] = %v of %d, want all-zero of 6 (a line has no function)", pr.Function[0], len(pr.Function))
	}
	if len(pr.Mapping) != 3 || !proto.Equal(pr.Mapping[0], &profilespb.Mapping{}) {
		t.Errorf("mapping[0] = %v of %d, want all-zero of 3", pr.Mapping[0], len(pr.Mapping))
	}
	if len(pr.LinkTable) != 2 || !proto.Equal(pr.LinkTable[0], &profilespb.Link{}) {
		t.Errorf("link_table = %v, want an all-zero link first", pr.LinkTable)
	}
	// Stacks: {2,1,0}, {1,0}, {3,4,0}, {0}, {5,0}, {4}, {}: {1,0} and {0}
	// reuse the tail of {2,1,0}; {4} is not a caller part of anything.
	total := 0
	for _, s := range pr.Sample {
		total += int(s.LocationsLength)
	}
	if len(pr.LocationIndices) != 9 || total != 17 {
		t.Errorf("len(location_indices) = %d for %d frames in samples, want 9 for 17: %v", len(pr.LocationIndices), total, pr.LocationIndices)
	}
	s1 := pr.Sample[1]
	if got := pr.LocationIndices[s1.LocationsStartIndex : s1.LocationsStartIndex+s1.LocationsLength]; len(got) != 2 ||
		pr.Location[got[0]].Address != 0x402000 || pr.Location[got[1]].Address != 0x401000 {
		t.Errorf("sample[1] stack = %v, want the locations at 0x402000, 0x401000", got)
	}
	// The location table is ordered by mapping, then address.
	for i := 1; i < len(pr.Location); i++ {
		a, b := pr.Location[i-1], pr.Location[i]
		if a.MappingIndex > b.MappingIndex || (a.MappingIndex == b.MappingIndex && a.Address > b.Address) {
			t.Errorf("location[%d] (%d %#x) after location[%d] (%d %#x)", i, b.MappingIndex, b.Address, i-1, a.MappingIndex, a.Address)
		}
	}
	if len(pr.AttributeUnits) != 1 || pr.StringTable[pr.AttributeUnits[0].Unit] != "bytes" {
		t.Errorf("attribute_units = %v", pr.AttributeUnits)
	}
	if len(pr.Sample[3].Label) != 2 || len(pr.Sample[3].Attributes) != 0 {
		t.Errorf("sample[3] (kilobytes) labels=%v attributes=%v, want 2 labels", pr.Sample[3].Label, pr.Sample[3].Attributes)
	}
	// Identical attributes are stored once.
	if len(pr.AttributeTable) != 6 {
		t.Errorf("attribute_table has %d entries, want 6: %v", len(pr.AttributeTable), pr.AttributeTable)
	}
}

func TestJSONShape(t *testing.T) {
	p := richModel()
	data := encodeOne(t, p, EncodeOptions{JSON: true})
	s := string(data)
	for _, want := range []string{
		`"resourceProfiles":[`, `"scopeProfiles":[`, `"profileId":"30313233343536373839616263646566"`,
		`"traceId":"01010101010101010101010101010101"`, `"spanId":"0202020202020202"`,
		`"startTimeUnixNano":"1700000000000000000"`, `"aggregationTemporality":1`, `"timeNanos":"1700000000123456789"`,
		`"locationIndices":["`, `"stringTable":["",`, `"buildIdKind":1`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
}

// TestJSONReaderLeniency: unknown fields ignored, snake_case keys, numbers
// as JSON numbers, enums by name, the deprecated fields, a profile id in
// base64 as protojson writes it, the OTEP's name "timestamps".
func TestJSONReaderLeniency(t *testing.T) {
	in := `{"resource_profiles":[{"unknownField":{"x":[1,2]},"scopeProfiles":[{"profiles":[{
	  "profile_id":"AAECAwQFBgcICQoLDA0ODw==","startTimeUnixNano":5,
	  "profile":{"sampleType":[{"type":1,"unit":"2","aggregation_temporality":"AGGREGATION_TEMPORALITY_CUMULATIVE"}],
	    "stringTable":["","cpu","ns","main","k","v"],
	    "function":[{"name":3}],"location":[{"line":[{"functionIndex":0,"line":"7"}]}],
	    "sample":[{"locationIndex":[0],"value":["42"],"label":[{"key":4,"str":5}],"timestamps":["7"]}],
	    "somethingNew":true}}]}]}]}`
	got := decodeOne(t, []byte(in))
	f := flatten(got)
	if len(f.Samples) != 1 || f.Samples[0] != `[42] {k="v"} <0x0 main|||0:7:0> ts [7]` {
		t.Errorf("samples = %q", f.Samples)
	}
	if f.SampleTypes[0] != "cpu/ns/2" || f.Start != 5 || f.ProfileID != "000102030405060708090a0b0c0d0e0f" {
		t.Errorf("got %+v", f)
	}
}

func TestDeprecatedLocationIndexBinary(t *testing.T) {
	pd := &profilespb.ProfilesData{ResourceProfiles: []*profilespb.ResourceProfiles{{ScopeProfiles: []*profilespb.ScopeProfiles{{
		Profiles: []*profilespb.ProfileContainer{{Profile: &profilespb.Profile{
			StringTable: []string{"", "f", "g"},
			Function:    []*profilespb.Function{{Name: 1}, {Name: 2}},
			Location:    []*profilespb.Location{{Line: []*profilespb.Line{{FunctionIndex: 0}}}, {Line: []*profilespb.Line{{FunctionIndex: 1}}}},
			Sample:      []*profilespb.Sample{{LocationIndex: []uint64{1, 0}}, {LocationIndex: []uint64{0}}},
		}}}}}}}}
	data, err := proto.Marshal(pd)
	if err != nil {
		t.Fatal(err)
	}
	f := flatten(decodeOne(t, data))
	if f.Samples[0] != "[] {} <0x0 g|||0:0:0> <0x0 f|||0:0:0>" || f.Samples[1] != "[] {} <0x0 f|||0:0:0>" {
		t.Errorf("samples = %q", f.Samples)
	}
}

func TestFoldForPprof(t *testing.T) {
	p := richModel()
	p.Scope = model.Scope{Name: "otel-ebpf", Version: "0.1"}
	var warns []string
	FoldForPprof(p, func(s string) { warns = append(warns, s) })
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	f := flatten(p)
	joined := strings.Join(f.Comments, "\n")
	for _, want := range []string{
		"otlp.resource: service.name=app", "otlp.resource: host.cpus=8", "otlp.resource: flags=[true,1.5]",
		"otlp.resource: nested={b=0001}", "otlp.resource.schema_url: https://opentelemetry.io/schemas/1.26.0",
		"otlp.attribute: profile.kind=cpu", "otlp.scope: otel-ebpf 0.1",
		"otlp.start_time_unix_nano: 1700000000000000000", "otlp.end_time_unix_nano: 1700000009000000000",
		"otlp.sample_type[1].aggregation_temporality: delta", "otlp.mapping[1].build_id_kind: binary_hash",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("comments lack %q:\n%s", want, joined)
		}
	}
	if !strings.Contains(f.Samples[0], `trace_id="01010101010101010101010101010101",span_id="0202020202020202",timestamp=1700000000200000000[nanoseconds]`) {
		t.Errorf("sample[0] = %s", f.Samples[0])
	}
	if !strings.Contains(f.Samples[2], `timestamp=1700000000300000000[nanoseconds],timestamp=1700000000400000000[nanoseconds]`) {
		t.Errorf("sample[2] = %s", f.Samples[2])
	}
	if len(p.Links) != 0 || p.Resource.Attributes != nil || p.OriginalPayload != nil || p.SampleTypes[1].AggregationTemporality != 0 {
		t.Error("folded fields not cleared")
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "original payload") {
		t.Errorf("warnings = %q", warns)
	}
}

// TestManyContainers: several profiles are written as containers of one
// scope and read back in order; several resources are read too.
func TestManyContainers(t *testing.T) {
	a, b := richModel(), richModel()
	b.Samples = b.Samples[:2]
	b.ProfileID = nil
	var buf bytes.Buffer
	var warns []string
	if err := Encode(&buf, []*model.Profile{a, b}, EncodeOptions{Warn: func(s string) { warns = append(warns, s) }}); err != nil {
		t.Fatal(err)
	}
	ps, err := Decode(buf.Bytes(), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || len(ps[0].Samples) != 9 || len(ps[1].Samples) != 2 {
		t.Fatalf("read %d profiles", len(ps))
	}
	if bytes.Equal(ps[0].ProfileID, ps[1].ProfileID) {
		t.Error("two profiles got one id")
	}
	pd := &profilespb.ProfilesData{}
	if err := proto.Unmarshal(buf.Bytes(), pd); err != nil {
		t.Fatal(err)
	}
	// Split into two resources with their own attributes.
	rp2 := proto.Clone(pd.ResourceProfiles[0]).(*profilespb.ResourceProfiles)
	rp2.Resource.Attributes[0].Value.Value = &commonpb.AnyValue_StringValue{StringValue: "second"}
	rp2.ScopeProfiles[0].Profiles = rp2.ScopeProfiles[0].Profiles[1:]
	pd.ResourceProfiles[0].ScopeProfiles[0].Profiles = pd.ResourceProfiles[0].ScopeProfiles[0].Profiles[:1]
	pd.ResourceProfiles = append(pd.ResourceProfiles, rp2)
	ps, err = Decode(mustMarshal(t, pd), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[1].Resource.Attributes[0].Value.Str != "second" || ps[0].Resource.Attributes[0].Value.Str != "app" || len(ps[1].Samples) != 2 {
		t.Errorf("two resources read wrong")
	}
}

func TestEmptyProfile(t *testing.T) {
	for _, json := range []bool{false, true} {
		got := decodeOne(t, encodeOne(t, model.New(), EncodeOptions{JSON: json}))
		if len(got.Samples) != 0 || len(got.Strings) != 1 || len(got.ProfileID) != 16 {
			t.Errorf("json=%v: got %+v", json, got)
		}
	}
}

// TestBinaryThatLooksLikeJSON: binary ProfilesData starts with 0x0a, a
// newline; when its length byte is '{' it looks like JSON, and is still
// read as binary (a bug the fuzzer found).
func TestBinaryThatLooksLikeJSON(t *testing.T) {
	for n := 0; n < 200; n++ {
		p := model.New()
		p.Resource.Attributes = []model.Attribute{{Key: "k", Value: model.Value{Kind: model.KindString, Str: strings.Repeat("x", n)}}}
		data := encodeOne(t, p, EncodeOptions{})
		if data[1] != '{' {
			continue
		}
		got := decodeOne(t, data)
		if got.Resource.Attributes[0].Value.Str != strings.Repeat("x", n) {
			t.Errorf("read back %+v", got.Resource)
		}
		return
	}
	t.Fatal("no encoding with '{' as its second byte")
}
