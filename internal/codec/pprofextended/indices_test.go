package pprofextended

import (
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"
)

// indicesPD is validPD with three locations and samples whose stacks are
// slices of location_indices [0 1 2 1 0].
func indicesPD() *profilespb.ProfilesData {
	pd := validPD()
	p := prof(pd)
	p.Location = append(p.Location,
		&profilespb.Location{Address: 0x20, Line: []*profilespb.Line{{FunctionIndex: 0, Line: 2}}},
		&profilespb.Location{Address: 0x30, Line: []*profilespb.Line{{FunctionIndex: 0, Line: 3}}})
	p.LocationIndices = []int64{0, 1, 2, 1, 0}
	p.Sample = []*profilespb.Sample{
		{LocationsStartIndex: 0, LocationsLength: 3, Value: []int64{5}},
		{LocationsStartIndex: 2, LocationsLength: 3, Value: []int64{7}},
		{LocationsStartIndex: 3, LocationsLength: 2, Value: []int64{9}},
	}
	return pd
}

// withIndices marshals pd (one container) with its profile's
// location_indices written as the fields fields, appended to the Profile
// message: protobuf merges a repeated field's occurrences in order. Each
// of more is a second, third... Profile message of the container, which
// protobuf merges into the first.
func withIndices(t *testing.T, pd *profilespb.ProfilesData, fields [][]byte, more ...[]byte) []byte {
	t.Helper()
	pd = proto.Clone(pd).(*profilespb.ProfilesData)
	rp := pd.ResourceProfiles[0]
	sp := rp.ScopeProfiles[0]
	c := sp.Profiles[0]
	p := c.Profile
	p.LocationIndices = nil
	body, err := proto.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		body = append(body, f...)
	}
	wrap := func(m proto.Message, num protowire.Number, children ...[]byte) []byte {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, child := range children {
			b = protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), child)
		}
		return b
	}
	c.Profile = nil
	cb := wrap(c, fProfile, append([][]byte{body}, more...)...)
	sp.Profiles = nil
	sb := wrap(sp, fProfiles, cb)
	rp.ScopeProfiles = nil
	rb := wrap(rp, fScopeProfiles, sb)
	pd.ResourceProfiles = nil
	return wrap(pd, fResourceProfiles, rb)
}

func packedIndices(xs ...int64) []byte {
	var body []byte
	for _, x := range xs {
		body = protowire.AppendVarint(body, uint64(x))
	}
	return protowire.AppendBytes(protowire.AppendTag(nil, fProfileLocationIndices, protowire.BytesType), body)
}

func varintIndex(x int64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, fProfileLocationIndices, protowire.VarintType), uint64(x))
}

// The binary reader takes location_indices from the wire as proto.Unmarshal
// would: packed, one varint a field, or several fields in order, all read
// as the one list the generated code gives.
func TestLocationIndicesWireShapes(t *testing.T) {
	pd := indicesPD()
	want := flatten(decodeOne(t, mustMarshal(t, pd)))
	if len(want.Samples) != 3 {
		t.Fatalf("reference: %d samples, want 3", len(want.Samples))
	}
	for _, tc := range []struct {
		name   string
		fields [][]byte
		more   [][]byte
	}{
		{"packed", [][]byte{packedIndices(0, 1, 2, 1, 0)}, nil},
		{"one varint a field", [][]byte{varintIndex(0), varintIndex(1), varintIndex(2), varintIndex(1), varintIndex(0)}, nil},
		{"packed then varints", [][]byte{packedIndices(0, 1), varintIndex(2), packedIndices(1, 0)}, nil},
		{"an empty packed field", [][]byte{packedIndices(), packedIndices(0, 1, 2, 1, 0)}, nil},
		{"two profile messages", [][]byte{packedIndices(0, 1, 2)}, [][]byte{packedIndices(1, 0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := withIndices(t, pd, tc.fields, tc.more...)
			var ref profilespb.ProfilesData
			if err := proto.Unmarshal(data, &ref); err != nil {
				t.Fatal(err)
			}
			if got := prof(&ref).LocationIndices; !reflect.DeepEqual(got, []int64{0, 1, 2, 1, 0}) {
				t.Fatalf("proto.Unmarshal reads location_indices %v", got)
			}
			sameFlat(t, want, flatten(decodeOne(t, data)))
		})
	}
}

// A location_indices entry out of range is named by its place in the
// whole list, across the fields that hold it; a malformed packed field
// is refused by proto.Unmarshal, in one line.
func TestLocationIndicesWireErrors(t *testing.T) {
	pd := indicesPD()
	for _, tc := range []struct {
		name   string
		fields [][]byte
		want   string
	}{
		{"beyond, in a second field", [][]byte{packedIndices(0, 1, 2), varintIndex(1), packedIndices(3)},
			pp + ".location_indices[4]: 3 beyond location (3)"},
		{"negative, as a varint field", [][]byte{packedIndices(0, 1, 2, 1), varintIndex(-1)},
			pp + ".location_indices[4]: -1 beyond location (3)"},
		{"a truncated varint in a packed field", [][]byte{packedIndices(0, 1, 2, 1, 0), protowire.AppendBytes(protowire.AppendTag(nil, fProfileLocationIndices, protowire.BytesType), []byte{0x80})},
			"location_indices"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(withIndices(t, pd, tc.fields), DecodeOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line containing %q", err, tc.want)
			}
		})
	}
}
