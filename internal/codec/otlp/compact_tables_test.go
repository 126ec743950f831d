package otlp

import (
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/commonpb"
	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/model"
)

// decodeBoth reads data as Decode does (the location table read compact,
// in the model's layout) and through the generated structs (Messages,
// DecodeMessages), and fails unless both give the same profiles, or the
// same error.
func decodeBoth(t *testing.T, what string, data []byte, opts DecodeOptions) ([]*model.Profile, error) {
	t.Helper()
	got, err := Decode(data, opts)
	var want []*model.Profile
	msgs, werr := Messages(data, opts)
	if werr == nil {
		want, werr = DecodeMessages(msgs, opts)
	}
	if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
		t.Fatalf("%s: compact: %v; generated: %v", what, err, werr)
	}
	if err == nil {
		sameProfiles(t, what, want, got)
	}
	return got, err
}

// The location and function tables read compact give the profiles the
// generated structs give, for every OTLP fixture.
func TestCompactTablesFixtures(t *testing.T) {
	compact := 0
	for _, name := range otlpFixtures(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeBoth(t, name, data, DecodeOptions{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p, err := ReadForDecode(data, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ct := range p.cts {
			if ct != nil {
				compact++
				break
			}
		}
	}
	if compact < 5 {
		t.Errorf("only %d fixtures had their location table read compact", compact)
	}
}

// compactPD is a message whose location table the fast parser takes:
// locations with several lines, attributes (the folded flag among them),
// a mapping and none.
func compactPD() *pb.ProfilesData {
	boolv := &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}
	strv := &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "v"}}
	return &pb.ProfilesData{
		Dictionary: &pb.ProfilesDictionary{
			StringTable:    []string{"", "samples", "count", "f", "g", AttrIsFolded, "k", "/bin/app"},
			AttributeTable: []*pb.KeyValueAndUnit{{}, {KeyStrindex: 5, Value: boolv}, {KeyStrindex: 6, Value: strv}},
			FunctionTable:  []*pb.Function{{}, {NameStrindex: 3}, {NameStrindex: 4}},
			MappingTable:   []*pb.Mapping{{}, {MemoryStart: 0x1000, MemoryLimit: 0x2000, FilenameStrindex: 7}},
			LocationTable: []*pb.Location{{},
				{MappingIndex: 1, Address: 0x1010, Lines: []*pb.Line{{FunctionIndex: 1, Line: 3, Column: 2}, {FunctionIndex: 2, Line: 9}}},
				{Address: 0x20, AttributeIndices: []int32{1, 2}},
				{MappingIndex: 1, Address: 0x1030, Lines: []*pb.Line{{FunctionIndex: 2, Line: 4}}, AttributeIndices: []int32{2}}},
			StackTable: []*pb.Stack{{}, {LocationIndices: []int32{1, 2, 3}}, {LocationIndices: []int32{3}}},
			LinkTable:  []*pb.Link{{}},
		},
		ResourceProfiles: []*pb.ResourceProfiles{{ScopeProfiles: []*pb.ScopeProfiles{{Profiles: []*pb.Profile{{
			SampleType: &pb.ValueType{TypeStrindex: 1, UnitStrindex: 2},
			Samples:    []*pb.Sample{{StackIndex: 1, Values: []int64{3}}, {StackIndex: 2, Values: []int64{4}}},
		}}}}}},
	}
}

func TestCompactTables(t *testing.T) {
	data := marshal(t, compactPD())
	p, err := ReadForDecode(data, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.cts) != 1 || p.cts[0] == nil || len(p.cts[0].locs) != 4 || len(p.cts[0].funcs) != 3 {
		t.Fatal("the location and function tables were not read compact")
	}
	d := p.Messages[0].GetDictionary()
	if n := len(d.GetLocationTable()) + len(d.GetFunctionTable()); n != 0 {
		t.Errorf("the generated location and function tables have %d entries beside the compact ones", n)
	}
	ps, err := decodeBoth(t, "compactPD", data, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	locs := ps[0].Locations
	if len(locs) != 3 || locs[0].Mapping != 0 || locs[1].Mapping != model.NoMapping || len(ps[0].LocationLines(0)) != 2 ||
		ps[0].LocationLines(0)[1].Function != 1 || !locs[1].IsFolded || locs[2].IsFolded {
		t.Errorf("locations %+v", locs)
	}
}

// An index out of range in the location or function table is refused with
// the error the generated structs' checker gives.
func TestCompactTablesErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(d *pb.ProfilesDictionary)
		want   string
	}{
		{"mapping beyond", func(d *pb.ProfilesDictionary) { d.LocationTable[1].MappingIndex = 2 },
			"dictionary.location_table[1].mapping_index: 2 beyond mapping_table (2)"},
		{"mapping negative", func(d *pb.ProfilesDictionary) { d.LocationTable[3].MappingIndex = -1 },
			"dictionary.location_table[3].mapping_index: -1 is negative"},
		{"function beyond", func(d *pb.ProfilesDictionary) { d.LocationTable[1].Lines[1].FunctionIndex = 3 },
			"dictionary.location_table[1].lines[1].function_index: 3 beyond function_table (3)"},
		{"attribute beyond", func(d *pb.ProfilesDictionary) { d.LocationTable[2].AttributeIndices[1] = 9 },
			"dictionary.location_table[2].attribute_indices[1]: 9 beyond attribute_table (3)"},
		{"attribute key twice", func(d *pb.ProfilesDictionary) { d.LocationTable[2].AttributeIndices = []int32{2, 2} },
			`dictionary.location_table[2].attribute_indices[1]: key "k" repeated`},
		{"zero entry with a line", func(d *pb.ProfilesDictionary) { d.LocationTable[0].Lines = []*pb.Line{{}} },
			"dictionary.location_table[0]: must be the zero value"},
		{"zero entry with an attribute", func(d *pb.ProfilesDictionary) { d.LocationTable[0].AttributeIndices = []int32{0} },
			"dictionary.location_table[0]: must be the zero value"},
		{"no zero entry", func(d *pb.ProfilesDictionary) {
			d.LocationTable, d.StackTable = nil, []*pb.Stack{{}}
		}, "dictionary.location_table: empty"},
		{"function name beyond", func(d *pb.ProfilesDictionary) { d.FunctionTable[2].NameStrindex = 8 },
			"dictionary.function_table[2].name_strindex: 8 beyond string_table (8)"},
		{"function file negative", func(d *pb.ProfilesDictionary) { d.FunctionTable[1].FilenameStrindex = -2 },
			"dictionary.function_table[1].filename_strindex: -2 is negative"},
		{"function zero entry with a start line", func(d *pb.ProfilesDictionary) { d.FunctionTable[0].StartLine = 1 },
			"dictionary.function_table[0]: must be the zero value"},
		{"no function zero entry", func(d *pb.ProfilesDictionary) {
			d.FunctionTable = nil
			for _, l := range d.LocationTable {
				l.Lines = nil
			}
		}, "dictionary.function_table: empty"},
		{"stack beyond", func(d *pb.ProfilesDictionary) { d.StackTable[2].LocationIndices[0] = 4 },
			"dictionary.stack_table[2].location_indices[0]: 4 beyond location_table (4)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pd := compactPD()
			tc.break_(pd.Dictionary)
			data, err := proto.Marshal(pd)
			if err != nil {
				t.Fatal(err)
			}
			_, err = decodeBoth(t, tc.name, data, DecodeOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
