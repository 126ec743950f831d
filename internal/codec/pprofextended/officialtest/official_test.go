package officialtest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	profiles "go.opentelemetry.io/proto/otlp/profiles/v1experimental"
	resource "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

var (
	outDir   string
	fixtures []string
)

// TestMain runs ./encode once over the fixtures: pprofx's pprof decoder and
// OTLP encoder, in their own binary (see the package comment).
func TestMain(m *testing.M) {
	root := filepath.Join("..", "..", "..", "..")
	fixtures, _ = filepath.Glob(filepath.Join(root, "testdata", "go", "*.pb.gz"))
	tool, _ := filepath.Glob(filepath.Join(root, "testdata", "pprof", "*.pb.gz"))
	gperf, _ := filepath.Glob(filepath.Join(root, "testdata", "gperftools", "*.prof"))
	fixtures = append(append(fixtures, tool...), gperf...)
	fixtures = append(fixtures, filepath.Join(root, "testdata", "otlp", "rich.pb.gz"))
	dir, err := os.MkdirTemp("", "pprofx-officialtest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	outDir = dir
	cmd := exec.Command("go", append([]string{"run", "./encode", "-o", dir}, fixtures...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "go run ./encode:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func outputs(t *testing.T, name string) (src *profile.Profile, bin, js []byte) {
	t.Helper()
	base := filepath.Join(outDir, strings.TrimSuffix(strings.TrimSuffix(filepath.Base(name), ".pb.gz"), ".prof"))
	ref := name
	if strings.HasSuffix(name, ".prof") { // gperftools: compare with pprofx's pprof of it
		ref = base + ".src.pb.gz"
	}
	data, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	if src, err = profile.ParseData(data); err != nil {
		t.Fatal(err)
	}
	if bin, err = os.ReadFile(base + ".otlp"); err != nil {
		t.Fatal(err)
	}
	if js, err = os.ReadFile(base + ".otlp.json"); err != nil {
		t.Fatal(err)
	}
	return src, bin, js
}

// TestOfficialBindingsBinary decodes pprofx's binary output with the
// official bindings and checks it against the source pprof.
func TestOfficialBindingsBinary(t *testing.T) {
	for _, name := range fixtures {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, bin, _ := outputs(t, name)
			pd := &profiles.ProfilesData{}
			if err := proto.Unmarshal(bin, pd); err != nil {
				t.Fatal(err)
			}
			checkAgainst(t, src, pd)
		})
	}
}

// TestOfficialBindingsJSON decodes pprofx's OTLP JSON with protojson over
// the official bindings (after turning the hex ids, OTLP's one departure
// from protojson, into base64) and checks it against the source pprof.
func TestOfficialBindingsJSON(t *testing.T) {
	for _, name := range fixtures {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, _, js := outputs(t, name)
			var tree any
			if err := json.Unmarshal(js, &tree); err != nil {
				t.Fatal(err)
			}
			hexToBase64(t, tree)
			std, err := json.Marshal(tree)
			if err != nil {
				t.Fatal(err)
			}
			pd := &profiles.ProfilesData{}
			if err := protojson.Unmarshal(std, pd); err != nil {
				t.Fatal(err)
			}
			checkAgainst(t, src, pd)
		})
	}
}

func hexToBase64(t *testing.T, v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && (k == "profileId" || k == "traceId" || k == "spanId") {
				b, err := hex.DecodeString(s)
				if err != nil {
					t.Fatalf("%s %q is not hex: %v", k, s, err)
				}
				x[k] = base64.StdEncoding.EncodeToString(b)
				continue
			}
			hexToBase64(t, e)
		}
	case []any:
		for _, e := range x {
			hexToBase64(t, e)
		}
	}
}

func checkAgainst(t *testing.T, src *profile.Profile, pd *profiles.ProfilesData) {
	t.Helper()
	if len(pd.ResourceProfiles) != 1 || len(pd.ResourceProfiles[0].ScopeProfiles) != 1 {
		t.Fatalf("want one resource with one scope")
	}
	sp := pd.ResourceProfiles[0].ScopeProfiles[0]
	if sp.Scope.GetName() != "pprofx" || sp.Scope.GetVersion() != "test" {
		t.Errorf("scope = %v", sp.Scope)
	}
	if len(sp.Profiles) != 1 {
		t.Fatalf("%d containers, want 1", len(sp.Profiles))
	}
	c := sp.Profiles[0]
	if len(c.ProfileId) != 16 || bytes.Equal(c.ProfileId, make([]byte, 16)) {
		t.Errorf("profile_id %x", c.ProfileId)
	}
	if src.TimeNanos != 0 && (c.StartTimeUnixNano != uint64(src.TimeNanos) || c.EndTimeUnixNano != uint64(src.TimeNanos+src.DurationNanos)) {
		t.Errorf("start/end %d/%d for time %d duration %d", c.StartTimeUnixNano, c.EndTimeUnixNano, src.TimeNanos, src.DurationNanos)
	}
	got, err := toPprof(c)
	if err != nil {
		t.Fatal(err)
	}
	if d := pprofcmp.Diff(src, got); d != "" {
		t.Error(d)
	}
	frames := 0
	for _, s := range c.Profile.Sample {
		frames += int(s.LocationsLength)
	}
	t.Logf("location_indices: %d for %d frames in %d samples", len(c.Profile.LocationIndices), frames, len(c.Profile.Sample))
}

// toPprof turns a container decoded by the official bindings into a
// google/pprof profile, reading the schema as the spec describes it and
// independently of pprofx's reader.
func toPprof(c *profiles.ProfileContainer) (*profile.Profile, error) {
	p := c.Profile
	st := p.StringTable
	s := func(i int64) (string, error) {
		if i < 0 || i >= int64(len(st)) {
			return "", fmt.Errorf("string index %d out of %d", i, len(st))
		}
		return st[i], nil
	}
	var firstErr error
	must := func(i int64) string {
		v, err := s(i)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return v
	}
	vt := func(v *profiles.ValueType) *profile.ValueType {
		if v == nil {
			return nil
		}
		return &profile.ValueType{Type: must(v.Type), Unit: must(v.Unit)}
	}
	out := &profile.Profile{PeriodType: vt(p.PeriodType), Period: p.Period, TimeNanos: p.TimeNanos, DurationNanos: p.DurationNanos,
		DropFrames: must(p.DropFrames), KeepFrames: must(p.KeepFrames), DefaultSampleType: must(p.DefaultSampleType)}
	for _, t := range p.SampleType {
		out.SampleType = append(out.SampleType, vt(t))
	}
	for _, cm := range p.Comment {
		out.Comments = append(out.Comments, must(cm))
	}
	for _, kv := range c.Attributes {
		if kv.Key == "pprof.profile.doc_url" {
			out.DocURL = kv.Value.GetStringValue()
		}
	}
	mappings := make([]*profile.Mapping, len(p.Mapping))
	for i, m := range p.Mapping {
		if i == 0 && proto.Equal(m, &profiles.Mapping{}) {
			continue // an all-zero mapping at index 0 means none
		}
		mappings[i] = &profile.Mapping{ID: uint64(len(out.Mapping) + 1), Start: m.MemoryStart, Limit: m.MemoryLimit, Offset: m.FileOffset,
			File: must(m.Filename), BuildID: must(m.BuildId), HasFunctions: m.HasFunctions, HasFilenames: m.HasFilenames,
			HasLineNumbers: m.HasLineNumbers, HasInlineFrames: m.HasInlineFrames}
		out.Mapping = append(out.Mapping, mappings[i])
	}
	for i, f := range p.Function {
		out.Function = append(out.Function, &profile.Function{ID: uint64(i + 1), Name: must(f.Name), SystemName: must(f.SystemName),
			Filename: must(f.Filename), StartLine: f.StartLine})
	}
	for i, l := range p.Location {
		pl := &profile.Location{ID: uint64(i + 1), Address: l.Address, IsFolded: l.IsFolded}
		if len(p.Mapping) > 0 {
			if l.MappingIndex >= uint64(len(p.Mapping)) {
				return nil, fmt.Errorf("location %d: mapping_index %d", i, l.MappingIndex)
			}
			pl.Mapping = mappings[l.MappingIndex]
		}
		for _, ln := range l.Line {
			if ln.FunctionIndex >= uint64(len(out.Function)) {
				return nil, fmt.Errorf("location %d: function_index %d", i, ln.FunctionIndex)
			}
			pl.Line = append(pl.Line, profile.Line{Function: out.Function[ln.FunctionIndex], Line: ln.Line, Column: ln.Column})
		}
		out.Location = append(out.Location, pl)
	}
	units := map[string]string{}
	for _, u := range p.AttributeUnits {
		units[must(u.AttributeKey)] = must(u.Unit)
	}
	for i, smp := range p.Sample {
		ps := &profile.Sample{Value: smp.Value, Label: map[string][]string{}, NumLabel: map[string][]int64{}, NumUnit: map[string][]string{}}
		end := smp.LocationsStartIndex + smp.LocationsLength
		if end > uint64(len(p.LocationIndices)) || end < smp.LocationsStartIndex {
			return nil, fmt.Errorf("sample %d: slice [%d,+%d) of %d", i, smp.LocationsStartIndex, smp.LocationsLength, len(p.LocationIndices))
		}
		for _, x := range p.LocationIndices[smp.LocationsStartIndex:end] {
			if x < 0 || x >= int64(len(out.Location)) {
				return nil, fmt.Errorf("sample %d: location index %d", i, x)
			}
			ps.Location = append(ps.Location, out.Location[x])
		}
		for _, a := range smp.Attributes {
			if a >= uint64(len(p.AttributeTable)) {
				return nil, fmt.Errorf("sample %d: attribute %d", i, a)
			}
			kv := p.AttributeTable[a]
			switch v := kv.Value.Value.(type) {
			case *common.AnyValue_StringValue:
				ps.Label[kv.Key] = append(ps.Label[kv.Key], v.StringValue)
			case *common.AnyValue_IntValue:
				ps.NumLabel[kv.Key] = append(ps.NumLabel[kv.Key], v.IntValue)
				ps.NumUnit[kv.Key] = append(ps.NumUnit[kv.Key], units[kv.Key])
			default:
				return nil, fmt.Errorf("sample %d: attribute %d of type %T", i, a, v)
			}
		}
		for _, l := range smp.Label { // the deprecated field, used for units that differ
			k := must(l.Key)
			if l.Str != 0 {
				ps.Label[k] = append(ps.Label[k], must(l.Str))
			} else {
				ps.NumLabel[k] = append(ps.NumLabel[k], l.Num)
				ps.NumUnit[k] = append(ps.NumUnit[k], must(l.NumUnit))
			}
		}
		pprofForm(ps)
		out.Sample = append(out.Sample, ps)
	}
	return out, firstErr
}

// laterFields are fields that opentelemetry-proto added to common.proto and
// resource.proto after v1.3.1 (v1.10: references into the v1development
// dictionary; entity references), which pprofx's copy, taken from v1.11.0
// for the v1development dialect, has. v1experimental files never set them.
var laterFields = map[protoreflect.FullName]bool{
	"opentelemetry.proto.common.v1.AnyValue.string_value_strindex": true,
	"opentelemetry.proto.common.v1.KeyValue.key_strindex":          true,
	"opentelemetry.proto.resource.v1.Resource.entity_refs":         true,
}

// TestSchemaMatchesOfficial compares pprofx's generated descriptors with
// the official v1.3.1 ones: same messages, fields (number, name, JSON name,
// kind, cardinality, type), enums and values.
func TestSchemaMatchesOfficial(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(outDir, "descriptors.binpb"))
	if err != nil {
		t.Fatal(err)
	}
	set := &descriptorpb.FileDescriptorSet{}
	if err := proto.Unmarshal(data, set); err != nil {
		t.Fatal(err)
	}
	ours, err := protodesc.NewFiles(set)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range []protoreflect.FileDescriptor{
		common.File_opentelemetry_proto_common_v1_common_proto,
		resource.File_opentelemetry_proto_resource_v1_resource_proto,
		profiles.File_opentelemetry_proto_profiles_v1experimental_pprofextended_proto,
		profiles.File_opentelemetry_proto_profiles_v1experimental_profiles_proto,
	} {
		msgs := fd.Messages()
		for i := 0; i < msgs.Len(); i++ {
			om := msgs.Get(i)
			d, err := ours.FindDescriptorByName(om.FullName())
			if err != nil {
				if fd.Package() == "opentelemetry.proto.common.v1" && !usedByProfiles(om.FullName()) {
					continue // common messages the profiles schema does not import
				}
				t.Errorf("%s: missing in pprofx's schema", om.FullName())
				continue
			}
			mm := d.(protoreflect.MessageDescriptor)
			later := 0
			for j := 0; j < mm.Fields().Len(); j++ {
				if laterFields[mm.Fields().Get(j).FullName()] {
					later++
				}
			}
			if mm.Fields().Len()-later != om.Fields().Len() {
				t.Errorf("%s: %d fields, official %d", om.FullName(), mm.Fields().Len()-later, om.Fields().Len())
			}
			for j := 0; j < om.Fields().Len(); j++ {
				of := om.Fields().Get(j)
				mf := mm.Fields().ByNumber(of.Number())
				if mf == nil {
					t.Errorf("%s: field %d (%s) missing", om.FullName(), of.Number(), of.Name())
					continue
				}
				if mf.Name() != of.Name() || mf.JSONName() != of.JSONName() || mf.Kind() != of.Kind() || mf.Cardinality() != of.Cardinality() ||
					mf.IsPacked() != of.IsPacked() || (of.Message() != nil && mf.Message().FullName() != of.Message().FullName()) ||
					(of.Enum() != nil && mf.Enum().FullName() != of.Enum().FullName()) ||
					(of.ContainingOneof() == nil) != (mf.ContainingOneof() == nil) {
					t.Errorf("%s.%s: differs from the official field", om.FullName(), of.Name())
				}
				n++
			}
		}
		enums := fd.Enums()
		for i := 0; i < enums.Len(); i++ {
			oe := enums.Get(i)
			d, err := ours.FindDescriptorByName(oe.FullName())
			if err != nil {
				t.Errorf("%s: missing", oe.FullName())
				continue
			}
			me := d.(protoreflect.EnumDescriptor)
			for j := 0; j < oe.Values().Len(); j++ {
				ov := oe.Values().Get(j)
				if mv := me.Values().ByNumber(ov.Number()); mv == nil || mv.Name() != ov.Name() {
					t.Errorf("%s: value %s differs", oe.FullName(), ov.Name())
				}
			}
		}
	}
	if n < 90 {
		t.Errorf("compared only %d fields", n)
	}
}

// pprofForm puts a sample's labels in the form google/pprof reads them in:
// no empty maps, a numeric label of 0 with no unit is absent, and a key's
// units are kept only when one of them is set.
func pprofForm(s *profile.Sample) {
	for k, vs := range s.NumLabel {
		units := s.NumUnit[k]
		var keepV []int64
		var keepU []string
		any := false
		for i, v := range vs {
			if v == 0 && units[i] == "" {
				continue
			}
			keepV, keepU = append(keepV, v), append(keepU, units[i])
			any = any || units[i] != ""
		}
		if len(keepV) == 0 {
			delete(s.NumLabel, k)
			delete(s.NumUnit, k)
			continue
		}
		s.NumLabel[k] = keepV
		if any {
			s.NumUnit[k] = keepU
		} else {
			delete(s.NumUnit, k)
		}
	}
	if len(s.Label) == 0 {
		s.Label = nil
	}
	if len(s.NumLabel) == 0 {
		s.NumLabel, s.NumUnit = nil, nil
	}
}

func usedByProfiles(name protoreflect.FullName) bool {
	switch name {
	case "opentelemetry.proto.common.v1.AnyValue", "opentelemetry.proto.common.v1.ArrayValue",
		"opentelemetry.proto.common.v1.KeyValueList", "opentelemetry.proto.common.v1.KeyValue",
		"opentelemetry.proto.common.v1.InstrumentationScope":
		return true
	}
	return false
}
