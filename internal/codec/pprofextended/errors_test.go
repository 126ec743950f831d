package pprofextended

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/commonpb"
	"github.com/pprofx/pprofx/internal/codec/otlpcommon"
	"github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"
)

// validPD returns a small valid ProfilesData to break in one place.
func validPD() *profilespb.ProfilesData {
	return &profilespb.ProfilesData{ResourceProfiles: []*profilespb.ResourceProfiles{{ScopeProfiles: []*profilespb.ScopeProfiles{{
		Profiles: []*profilespb.ProfileContainer{{ProfileId: bytes.Repeat([]byte{7}, 16), Profile: &profilespb.Profile{
			SampleType:      []*profilespb.ValueType{{Type: 1, Unit: 2}},
			StringTable:     []string{"", "cpu", "ns", "main", "/bin/app", "k", "unit"},
			Mapping:         []*profilespb.Mapping{{MemoryStart: 1, Filename: 4}},
			Function:        []*profilespb.Function{{Name: 3}},
			Location:        []*profilespb.Location{{MappingIndex: 0, Line: []*profilespb.Line{{FunctionIndex: 0}}}},
			LocationIndices: []int64{0},
			AttributeTable:  []*commonpb.KeyValue{{Key: "k", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 1}}}},
			AttributeUnits:  []*profilespb.AttributeUnit{{AttributeKey: 5, Unit: 6}},
			LinkTable:       []*profilespb.Link{{TraceId: bytes.Repeat([]byte{1}, 16), SpanId: bytes.Repeat([]byte{2}, 8)}},
			Sample:          []*profilespb.Sample{{LocationsStartIndex: 0, LocationsLength: 1, Value: []int64{5}, Attributes: []uint64{0}}},
		}}}}}}}}
}

func prof(pd *profilespb.ProfilesData) *profilespb.Profile {
	return pd.ResourceProfiles[0].ScopeProfiles[0].Profiles[0].Profile
}

const pp = "resource_profiles[0].scope_profiles[0].profiles[0].profile"

func TestReaderErrors(t *testing.T) {
	if _, err := Decode(mustMarshal(t, validPD()), DecodeOptions{}); err != nil {
		t.Fatalf("the valid base case fails: %v", err)
	}
	for _, tc := range []struct {
		name   string
		break_ func(pd *profilespb.ProfilesData)
		want   string
	}{
		{"start beyond", func(pd *profilespb.ProfilesData) {
			p := prof(pd)
			p.LocationIndices = make([]int64, 412)
			for len(p.Sample) < 13 {
				p.Sample = append(p.Sample, &profilespb.Sample{Value: []int64{1}})
			}
			p.Sample[12].LocationsStartIndex = 9000
		}, pp + ".sample[12].locations_start_index: 9000 beyond location_indices (412)"},
		{"length beyond", func(pd *profilespb.ProfilesData) { prof(pd).Sample[0].LocationsLength = 2 },
			pp + ".sample[0].locations_length: 2 from 0 beyond location_indices (1)"},
		{"length overflow", func(pd *profilespb.ProfilesData) {
			prof(pd).Sample[0].LocationsStartIndex = 1
			prof(pd).Sample[0].LocationsLength = ^uint64(0)
		}, pp + ".sample[0].locations_length: 18446744073709551615 from 1 beyond location_indices (1)"},
		{"location_indices entry", func(pd *profilespb.ProfilesData) { prof(pd).LocationIndices[0] = 3 },
			pp + ".location_indices[0]: 3 beyond location (1)"},
		{"location_indices negative", func(pd *profilespb.ProfilesData) { prof(pd).LocationIndices[0] = -1 },
			pp + ".location_indices[0]: -1 beyond location (1)"},
		{"deprecated location_index", func(pd *profilespb.ProfilesData) {
			s := prof(pd).Sample[0]
			s.LocationsLength, s.LocationIndex = 0, []uint64{0, 5}
		}, pp + ".sample[0].location_index[1]: 5 beyond location (1)"},
		{"mapping_index", func(pd *profilespb.ProfilesData) { prof(pd).Location[0].MappingIndex = 1 },
			pp + ".location[0].mapping_index: 1 beyond mapping (1)"},
		{"mapping_index without mappings", func(pd *profilespb.ProfilesData) { prof(pd).Mapping = nil; prof(pd).Location[0].MappingIndex = 1 },
			pp + ".location[0].mapping_index: 1 beyond mapping (0)"},
		{"function_index", func(pd *profilespb.ProfilesData) { prof(pd).Location[0].Line[0].FunctionIndex = 1 },
			pp + ".location[0].line[0].function_index: 1 beyond function (1)"},
		{"sample attribute", func(pd *profilespb.ProfilesData) { prof(pd).Sample[0].Attributes = []uint64{0, 4} },
			pp + ".sample[0].attributes[1]: 4 beyond attribute_table (1)"},
		{"mapping attribute", func(pd *profilespb.ProfilesData) { prof(pd).Mapping[0].Attributes = []uint64{1} },
			pp + ".mapping[0].attributes[0]: 1 beyond attribute_table (1)"},
		{"location attribute", func(pd *profilespb.ProfilesData) { prof(pd).Location[0].Attributes = []uint64{2} },
			pp + ".location[0].attributes[0]: 2 beyond attribute_table (1)"},
		{"link", func(pd *profilespb.ProfilesData) { prof(pd).Sample[0].Link = 1 },
			pp + ".sample[0].link: 1 beyond link_table (1)"},
		{"link without table", func(pd *profilespb.ProfilesData) { prof(pd).LinkTable = nil; prof(pd).Sample[0].Link = 2 },
			pp + ".sample[0].link: 2 beyond link_table (0)"},
		{"trace id length", func(pd *profilespb.ProfilesData) { prof(pd).LinkTable[0].TraceId = []byte{1} },
			pp + ".link_table[0].trace_id: 1 bytes, want 16"},
		{"span id length", func(pd *profilespb.ProfilesData) { prof(pd).LinkTable[0].SpanId = []byte{1, 2, 3} },
			pp + ".link_table[0].span_id: 3 bytes, want 8"},
		{"function name", func(pd *profilespb.ProfilesData) { prof(pd).Function[0].Name = 70 },
			pp + ".function[0].name: string index 70 beyond string_table (7)"},
		{"mapping filename", func(pd *profilespb.ProfilesData) { prof(pd).Mapping[0].Filename = -1 },
			pp + ".mapping[0].filename: string index -1 beyond string_table (7)"},
		{"mapping build id", func(pd *profilespb.ProfilesData) { prof(pd).Mapping[0].BuildId = 7 },
			pp + ".mapping[0].build_id: string index 7 beyond string_table (7)"},
		{"sample type unit", func(pd *profilespb.ProfilesData) { prof(pd).SampleType[0].Unit = 9 },
			pp + ".sample_type[0].unit: string index 9 beyond string_table (7)"},
		{"period type", func(pd *profilespb.ProfilesData) { prof(pd).PeriodType = &profilespb.ValueType{Type: 8} },
			pp + ".period_type.type: string index 8 beyond string_table (7)"},
		{"comment", func(pd *profilespb.ProfilesData) { prof(pd).Comment = []int64{1, 99} },
			pp + ".comment[1]: string index 99 beyond string_table (7)"},
		{"drop frames", func(pd *profilespb.ProfilesData) { prof(pd).DropFrames = 7 },
			pp + ".drop_frames: string index 7 beyond string_table (7)"},
		{"keep frames", func(pd *profilespb.ProfilesData) { prof(pd).KeepFrames = 70 },
			pp + ".keep_frames: string index 70 beyond string_table (7)"},
		{"default sample type", func(pd *profilespb.ProfilesData) { prof(pd).DefaultSampleType = 12 },
			pp + ".default_sample_type: string index 12 beyond string_table (7)"},
		{"attribute unit", func(pd *profilespb.ProfilesData) { prof(pd).AttributeUnits[0].Unit = 100 },
			pp + ".attribute_units[0].unit: string index 100 beyond string_table (7)"},
		{"label key", func(pd *profilespb.ProfilesData) { prof(pd).Sample[0].Label = []*profilespb.Label{{Key: 40}} },
			pp + ".sample[0].label[0].key: string index 40 beyond string_table (7)"},
		{"label num unit", func(pd *profilespb.ProfilesData) {
			prof(pd).Sample[0].Label = []*profilespb.Label{{Key: 1, NumUnit: 41}}
		},
			pp + ".sample[0].label[0].num_unit: string index 41 beyond string_table (7)"},
		{"location type", func(pd *profilespb.ProfilesData) { prof(pd).Location[0].TypeIndex = 30 },
			pp + ".location[0].type_index: string index 30 beyond string_table (7)"},
		{"stacktrace id", func(pd *profilespb.ProfilesData) { prof(pd).Sample[0].StacktraceIdIndex = 31 },
			pp + ".sample[0].stacktrace_id_index: string index 31 beyond string_table (7)"},
		{"string_table[0]", func(pd *profilespb.ProfilesData) { prof(pd).StringTable[0] = "x" },
			pp + `.string_table[0]: "x", must be empty`},
		{"value count", func(pd *profilespb.ProfilesData) { prof(pd).Sample[0].Value = []int64{1, 2} },
			pp + ".sample[0].value: 2 values for 1 sample types"},
		{"profile id length", func(pd *profilespb.ProfilesData) {
			pd.ResourceProfiles[0].ScopeProfiles[0].Profiles[0].ProfileId = []byte{1, 2, 3}
		}, "resource_profiles[0].scope_profiles[0].profiles[0].profile_id: 3 bytes, want 16"},
		{"missing profile", func(pd *profilespb.ProfilesData) {
			pd.ResourceProfiles[0].ScopeProfiles[0].Profiles[0].Profile = nil
		}, "resource_profiles[0].scope_profiles[0].profiles[0].profile: missing"},
		{"no container", func(pd *profilespb.ProfilesData) { pd.ResourceProfiles[0].ScopeProfiles = nil },
			"no profile in the data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pd := validPD()
			tc.break_(pd)
			for _, asJSON := range []bool{false, true} {
				data := mustMarshal(t, pd)
				if asJSON {
					var err error
					if data, err = otlpcommon.BinaryToJSON(nil, data, jsonDescriptor, "otlp json"); err != nil {
						t.Fatal(err)
					}
				}
				_, err := Decode(data, DecodeOptions{})
				if err == nil {
					t.Fatalf("json=%v: no error, want %q", asJSON, tc.want)
				}
				if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("json=%v: error %q, want one line containing %q", asJSON, err, tc.want)
				}
			}
		})
	}
}

func mustMarshal(t testing.TB, pd *profilespb.ProfilesData) []byte {
	t.Helper()
	data, err := proto.Marshal(pd)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestReaderSyntaxErrors(t *testing.T) {
	good := mustMarshal(t, validPD())
	badUTF8 := validPD()
	prof(badUTF8).StringTable[3] = "ma\xffin"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(good)
	zw.Close()
	corrupt := append([]byte(nil), gz.Bytes()[:gz.Len()-6]...)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)-3], "byte 0: resource_profiles[0]: bad length-delimited value"},
		{"bad utf-8", mustMarshalNoCheck(badUTF8), ".profile.string_table[3]: string is not valid UTF-8"},
		{"bad tag", []byte{0x0a, 0x02, 0x00, 0x00}, "byte 2: resource_profiles[0]: bad field tag"},
		{"gzip truncated", corrupt, "otlp: gzip:"},
		{"json syntax", []byte(`{"resourceProfiles":[}`), "otlp json: byte 21:"},
		{"json trailing", []byte(`{"resourceProfiles":[]} {}`), "data after the top-level object"},
		{"json deep", []byte(`{"resourceProfiles":[{"resource":{"attributes":[{"key":"k","value":` + strings.Repeat(`{"kvlistValue":{"values":[{"key":"k","value":`, 200)),
			"objects nested deeper than 100"},
		{"json type", []byte(`{"resourceProfiles":{}}`), "resource_profiles: want an array, got an object"},
		{"json hex id", []byte(`{"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"profileId":"zz"}]}]}]}`),
			`resource_profiles[0].scope_profiles[0].profiles[0].profile_id: "zz" is not hex`},
		{"json int", []byte(`{"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"profile":{"period":"1.5"}}]}]}]}`),
			`profiles[0].profile.period: "1.5" is not a 64-bit integer`},
		{"json uint negative", []byte(`{"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"profile":{"sample":[{"locationsLength":-1}]}}]}]}]}`),
			`profile.sample[0].locations_length: "-1" is not an unsigned 64-bit integer`},
		{"json string", []byte(`{"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"profile":{"stringTable":["",5]}}]}]}]}`),
			`profile.string_table[1]: want a string, got a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.data, DecodeOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func mustMarshalNoCheck(pd *profilespb.ProfilesData) []byte {
	data, err := proto.Marshal(pd)
	if err != nil {
		// protobuf-go refuses to marshal invalid UTF-8; build it by hand.
		good, _ := proto.Marshal(validPD())
		return bytes.Replace(good, []byte("main"), []byte("ma\xffn"), 1)
	}
	return data
}

func TestDecodeWarnings(t *testing.T) {
	pd := validPD()
	p := prof(pd)
	p.Location[0].TypeIndex = 3
	p.AttributeTable = append(p.AttributeTable, &commonpb.KeyValue{Key: "b", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}})
	p.Sample[0].Attributes = []uint64{0, 1}
	var warns []string
	ps, err := Decode(mustMarshal(t, pd), DecodeOptions{Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 2 {
		t.Errorf("warnings = %q, want 2", warns)
	}
	if got := labelsOf(ps[0], ps[0].Samples[0].LabelSet); got != `k=1[unit],b="true"` {
		t.Errorf("labels = %s", got)
	}
}
