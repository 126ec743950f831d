package otlpcommon_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	devpb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/codec/otlpcommon"
	oldpb "github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// sameReading reads text as a message of m's kind with UnmarshalJSONStructs (the generated structs), and
// with JSONToBinary then proto.Unmarshal: both must fail with the same
// error, or give equal messages.
func sameReading(t testing.TB, text []byte, m proto.Message) error {
	t.Helper()
	want := m.ProtoReflect().New().Interface()
	werr := otlpcommon.UnmarshalJSONStructs(text, want.ProtoReflect())
	wire, gerr := otlpcommon.JSONToBinary(text, m.ProtoReflect().Descriptor())
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("structs: %v; JSONToBinary: %v", werr, gerr)
	}
	if werr != nil {
		return werr
	}
	got := m.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(wire, got); err != nil {
		t.Fatalf("protobuf refuses the binary: %v", err)
	}
	if !proto.Equal(got, want) {
		t.Fatalf("the binary reads as another message:\n%v\nwant\n%v", got, want)
	}
	return nil
}

func TestJSONToBinaryFixtures(t *testing.T) {
	dev, old := encodings(t)
	json := func(data []byte, md protoreflect.MessageDescriptor) []byte {
		t.Helper()
		b, err := otlpcommon.BinaryToJSON(nil, data, md, "otlp json")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	devMD, oldMD := (&devpb.ProfilesData{}).ProtoReflect().Descriptor(), (&oldpb.ProfilesData{}).ProtoReflect().Descriptor()
	for i := range dev {
		if err := sameReading(t, json(dev[i], devMD), &devpb.ProfilesData{}); err != nil {
			t.Fatal(err)
		}
		if err := sameReading(t, json(old[i], oldMD), &oldpb.ProfilesData{}); err != nil {
			t.Fatal(err)
		}
	}
	// The collector's JSON marshaler's output.
	text, err := os.ReadFile("../../../testdata/otlp-dev/cpu.otlp.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := sameReading(t, text, &devpb.ProfilesData{}); err != nil {
		t.Fatal(err)
	}
}

func TestJSONToBinaryShapes(t *testing.T) {
	long := strings.Repeat("x", 20000) // a length of three bytes
	mid := strings.Repeat("y", 200)    // of two
	for _, c := range []struct{ name, text string }{
		{"empty", `{}`},
		{"a scalar given twice, the last zero", `{"dictionary":{"stringTable":["","a"],"mappingTable":[{"memoryStart":"5","memoryStart":"0"}]}}`},
		{"a message given twice merges", `{"dictionary":{"stringTable":["","a"]},"dictionary":{"stringTable":["b"],"linkTable":[{}]}}`},
		{"a list given twice appends", `{"dictionary":{"stackTable":[{"locationIndices":[1,2]},{"locationIndices":[]},{"locationIndices":[3],"location_indices":[4,5]}]}}`},
		{"null is unset", `{"dictionary":null,"resourceProfiles":[{"resource":null,"schemaUrl":null}]}`},
		{"snake_case keys and unknown keys", `{"resource_profiles":[{"schema_url":"s","whatever":{"a":[1,{"b":2}]},"scopeProfiles":[{"profiles":[{"sample_type":{"type_strindex":1}}]}]}]}`},
		{"oneof switched", `{"dictionary":{"attributeTable":[{"key":"k","value":{"stringValue":"a","intValue":"7"}},{"key":"m","value":{"kvlistValue":{"values":[{"key":"x","value":{"boolValue":false}}]},"doubleValue":"NaN"}},{"value":{"arrayValue":{"values":[{"bytesValue":"AAE="},{"doubleValue":-1.5}]}}}]}}`},
		{"negative numbers", `{"dictionary":{"stackTable":[{"locationIndices":[-1,-2147483648,0]}],"mappingTable":[{"memoryStart":"18446744073709551615"}]},"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"samples":[{"values":["-9223372036854775808","-1",0,"17"],"timestamps":["1","2"],"linkIndex":-3}]}]}]}]}`},
		{"ids in hex and base64", `{"dictionary":{"linkTable":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"AQIDBAUGBwg="}]},"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"profileId":"000102030405060708090a0b0c0d0e0f","originalPayload":"aGVsbG8="}]}]}]}`},
		{"long strings", `{"dictionary":{"stringTable":["` + mid + `","` + long + `"]},"resourceProfiles":[{"schemaUrl":"` + long + `","scopeProfiles":[{"scope":{"name":"` + mid + `"}}]}]}`},
		{"enums by name and number", `{"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"sampleType":{"aggregationTemporality":"AGGREGATION_TEMPORALITY_CUMULATIVE"},"periodType":{"aggregationTemporality":1}}]}]}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := sameReading(t, []byte(c.text), &devpb.ProfilesData{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	// The pprofextended schema: its own fields, the OTEP's timestamps.
	text := `{"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"profileId":"000102030405060708090a0b0c0d0e0f","profile":{"stringTable":["","a"],"locationIndices":["1","2"],"sample":[{"locationsStartIndex":"0","locationsLength":"2","value":["3"],"timestamps":["5"]}],"location":[{"line":[{"functionIndex":"1","line":"3"}]}]}}]}]}]}`
	if err := sameReading(t, []byte(text), &oldpb.ProfilesData{}); err != nil {
		t.Fatal(err)
	}
}

func TestJSONToBinaryRefuses(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"not an object", `[1]`, "want an object"},
		{"a list not an array", `{"resourceProfiles":{}}`, "want an array"},
		{"an object for a scalar", `{"dictionary":{"stringTable":[{}]}}`, "want a scalar"},
		{"a bad number", `{"dictionary":{"mappingTable":[{"memoryStart":"-1"}]}}`, "not an unsigned"},
		{"a bad id", `{"dictionary":{"linkTable":[{"traceId":"zz"}]}}`, "not hex"},
		{"cut short", `{"dictionary":{"stringTable":["a"`, "unexpected EOF"},
		{"data after it", `{} {}`, "data after the top-level object"},
		{"nested too deep", `{"dictionary":{"attributeTable":[{"value":` + strings.Repeat(`{"kvlistValue":{"values":[{"value":`, 40) + `{}` + strings.Repeat(`}]}}`, 40) + `}]}}`, "nested deeper than 100"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := sameReading(t, []byte(c.text), &devpb.ProfilesData{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want an error with %q", err, c.want)
			}
		})
	}
}

// FuzzJSONToBinary checks that JSONToBinary reads every text as
// the generated structs' reader does: the same error, or a binary that protobuf reads as
// the same message.
func FuzzJSONToBinary(f *testing.F) {
	dev, old := encodings(f)
	// Small seeds: the fuzzer shortens each input it finds new, a slow
	// start with texts of many kilobytes.
	for i := range dev {
		if len(dev[i]) < 1<<10 {
			b, err := otlpcommon.BinaryToJSON(nil, dev[i], (&devpb.ProfilesData{}).ProtoReflect().Descriptor(), "otlp json")
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, false)
			b, err = otlpcommon.BinaryToJSON(nil, old[i], (&oldpb.ProfilesData{}).ProtoReflect().Descriptor(), "otlp json")
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, true)
		}
	}
	f.Add([]byte(`{"dictionary":{"attributeTable":[{"key":"k","value":{"stringValue":"a","intValue":"7"}}]}}`), false)
	f.Fuzz(func(t *testing.T, text []byte, pprofext bool) {
		var m proto.Message = &devpb.ProfilesData{}
		if pprofext {
			m = &oldpb.ProfilesData{}
		}
		sameReading(t, text, m)
	})
}

// BenchmarkJSONDecode reads OTLP JSON into model profiles: through its
// binary encoding and the binary reader (otlp.Decode, "binary"), and into
// the generated structs token by token, which the profiles are then made
// of ("structs", the reader JSONToBinary replaced), for the JSON of the Go
// runtime's CPU profile and of one sample of 1M location ids:
//
//	go test -run '^$' -bench JSONDecode -benchmem -count 6 ./internal/codec/otlpcommon | benchstat -col /impl -
func BenchmarkJSONDecode(b *testing.B) {
	for _, c := range benchProfiles(b) {
		text, err := otlp.AppendJSON(nil, []*model.Profile{c.p}, otlp.EncodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("profile="+c.name+"/impl=binary", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := otlp.Decode(text, otlp.DecodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("profile="+c.name+"/impl=structs", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				pd := &devpb.ProfilesData{}
				if err := otlpcommon.UnmarshalJSONStructs(text, pd.ProtoReflect()); err != nil {
					b.Fatal(err)
				}
				if _, err := otlp.DecodeMessages([]*devpb.ProfilesData{pd}, otlp.DecodeOptions{Release: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzJSONScanner: the scanner JSONToBinary reads a text with gives the
// tokens encoding/json's Decoder gives (UseNumber), More answers as it
// does, and the first error comes at the same token with the same
// message.
func FuzzJSONScanner(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,"x\u00e9\ud83d\ude00",true,false,null,{}],"b":{"c":"\ud800"}}`,
		`[1 2]`, `{"a" 1}`, `{"a":1,}`, `[,]`, `01`, `1x`, `"\x01"`, `"\q"`, `"\u12g4"`, `tru`, `-`, `1.`, `1e+`, "\xff\"\xfe\"", `{} {}`, `]`, `{"a":1:2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lib, own := otlpcommon.JSONTokens(data, true), otlpcommon.JSONTokens(data, false)
		for k := 0; k < 10000; k++ {
			if lo, oo := lib.InputOffset(), own.InputOffset(); lo != oo {
				t.Fatalf("token %d: InputOffset: encoding/json %d, scanner %d", k, lo, oo)
			}
			if lm, om := lib.More(), own.More(); lm != om {
				t.Fatalf("token %d: More: encoding/json %v, scanner %v", k, lm, om)
			}
			lt, lerr := lib.Token()
			ot, oerr := own.Token()
			if (lerr == nil) != (oerr == nil) {
				t.Fatalf("token %d: encoding/json %v (%v), scanner %v (%v)", k, lt, lerr, ot, oerr)
			}
			if lerr != nil {
				if lerr.Error() != oerr.Error() {
					t.Fatalf("token %d: encoding/json's error %q, the scanner's %q", k, lerr, oerr)
				}
				return
			}
			if lt != ot {
				t.Fatalf("token %d: encoding/json %#v, scanner %#v", k, lt, ot)
			}
		}
	})
}

// BenchmarkJSONToBinary reads OTLP JSON into its binary encoding with the
// scanner ("scanner") and with encoding/json's Decoder, which it
// replaced ("encoding-json"), for the Go runtime's CPU profile, one sample
// of 1M location ids, 200k locations of their own functions and 20k
// labelled, timestamped samples:
//
//	go test -run '^$' -bench JSONToBinary -benchmem -count 6 ./internal/codec/otlpcommon | benchstat -col /impl -
func BenchmarkJSONToBinary(b *testing.B) {
	ps := benchProfiles(b)
	ps = append(ps, benchProfile{"locations", synth.OwnLocations(200_000, 100)}, benchProfile{"labeled", synth.LabeledStacks(20_000, true)})
	md := (&devpb.ProfilesData{}).ProtoReflect().Descriptor()
	for _, c := range ps {
		text, err := otlp.AppendJSON(nil, []*model.Profile{c.p}, otlp.EncodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, impl := range []struct {
			name string
			read func([]byte, protoreflect.MessageDescriptor) ([]byte, error)
		}{{"scanner", otlpcommon.JSONToBinary}, {"encoding-json", otlpcommon.JSONToBinaryLibrary}} {
			b.Run("profile="+c.name+"/impl="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					if _, err := impl.read(text, md); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// JSONValues finds the values of JSON lines as encoding/json's Decoder
// does, and names the byte where a value is cut short or broken.
func TestJSONValues(t *testing.T) {
	for _, c := range []struct {
		text  string
		spans [][2]int
		err   string
	}{
		{`{"a":1}`, [][2]int{{0, 7}}, ""},
		{"{\"a\":[1]}\n {}\n\n", [][2]int{{0, 9}, {11, 13}}, ""},
		{`{} ]`, [][2]int{{0, 2}}, ""}, // More: a ']' ends the text
		{`1 "x"`, [][2]int{{0, 1}, {2, 5}}, ""},
		{``, nil, "byte 0: EOF"},
		{"  \n", nil, "byte 3: EOF"},
		{"{}\n{\"a\":", [][2]int{{0, 2}}, "byte 8: unexpected EOF"},
		{"{}\n{\"a\" 1}", [][2]int{{0, 2}}, "byte 8: invalid character '1' after object key"},
	} {
		spans, err := otlpcommon.JSONValues([]byte(c.text))
		if fmt.Sprint(spans) != fmt.Sprint(c.spans) || (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
			t.Errorf("%q: %v, %v; want %v, %q", c.text, spans, err, c.spans, c.err)
		}
	}
}
