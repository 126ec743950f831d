package otlp

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/commonpb"
	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/model"
)

// TestEBPFV19: the OpenTelemetry eBPF profiler's file (proto v1.9 Sample
// layout) is read as v1.9 without being told: every sample keeps its
// thread and process attributes, every location its profile.frame.type,
// every mapping its build ids.
func TestEBPFV19(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/otlp-dev/ebpf-v1.9.otlp")
	if err != nil {
		t.Fatal(err)
	}
	msgs, layouts, err := MessagesLayout(data, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if layouts[0] != LayoutV19 {
		t.Fatalf("read as %v", layouts[0])
	}
	ps, err := DecodeMessages(msgs, DecodeOptions{Warn: func(s string) { t.Errorf("warning: %s", s) }})
	// (The producer wrote each Profile's field 8 as an empty
	// length-delimited field, which v1.9 and v1.10 number
	// dropped_attributes_count, a varint: Decode warns about it.)
	var warned []string
	if _, err := Decode(data, DecodeOptions{Warn: func(s string) { warned = append(warned, s) }}); err != nil || len(warned) != 1 ||
		!strings.Contains(warned[0], "dropped_attributes_count (field 8) has wire type 2") {
		t.Errorf("warnings %q, %v", warned, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	frameTypes := 0
	buildIDs := map[string]bool{}
	for _, p := range ps {
		for _, s := range p.Samples {
			for _, l := range p.LabelSets[s.LabelSet].Labels() {
				keys[p.String(l.Key)] = true
			}
		}
		for _, as := range p.LocationAttributes {
			for _, a := range as {
				if a.Key == "profile.frame.type" {
					frameTypes++
				}
			}
		}
		for _, m := range p.Mappings {
			if m.BuildID != 0 {
				buildIDs[buildIDKey(m)] = true
			}
			for _, a := range m.Attributes {
				buildIDs[a.Key] = true
			}
		}
	}
	for _, k := range []string{"thread", "thread_id", "process.pid", "process.executable.name"} {
		if !keys[k] {
			t.Errorf("no sample has %s (keys %v)", k, keys)
		}
	}
	nloc := 0
	for _, p := range ps {
		nloc += len(p.Locations)
	}
	if frameTypes != nloc {
		t.Errorf("%d of %d locations have profile.frame.type", frameTypes, nloc)
	}
	if !buildIDs[AttrBuildIDGNU] || !buildIDs[AttrBuildIDHTL] {
		t.Errorf("build id keys %v, want both %s and %s", buildIDs, AttrBuildIDGNU, AttrBuildIDHTL)
	}
	if _, err := Decode(data, DecodeOptions{Layout: LayoutV110}); err == nil || !strings.Contains(err.Error(), "--otlp-proto 1.9") {
		t.Errorf("told v1.10: %v", err)
	}
}

func buildIDKey(m model.Mapping) string {
	if m.BuildIDKind == 1 {
		return AttrBuildIDHTL
	}
	return AttrBuildIDGNU
}

// ambiguous is a message whose one sample reads validly in both layouts,
// differently: field 2 (an attribute index, or a value) is 1 and field 4
// (a value, or link_index) is 0.
func ambiguous(t *testing.T) []byte {
	t.Helper()
	str := &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "x"}}
	pd := &pb.ProfilesData{
		Dictionary: &pb.ProfilesDictionary{
			StringTable:    []string{"", "k", "samples", "count", "f"},
			AttributeTable: []*pb.KeyValueAndUnit{{}, {KeyStrindex: 1, Value: str}},
			FunctionTable:  []*pb.Function{{}, {NameStrindex: 4}},
			LocationTable:  []*pb.Location{{}, {Address: 1, Lines: []*pb.Line{{FunctionIndex: 1}}}},
			StackTable:     []*pb.Stack{{}, {LocationIndices: []int32{1}}},
			MappingTable:   []*pb.Mapping{{}},
			LinkTable:      []*pb.Link{{}},
		},
		ResourceProfiles: []*pb.ResourceProfiles{{ScopeProfiles: []*pb.ScopeProfiles{{Profiles: []*pb.Profile{{
			SampleType: &pb.ValueType{TypeStrindex: 2, UnitStrindex: 3},
		}}}}}},
	}
	// The sample, by hand: stack 1, field 2 = 1, field 4 = 0 (proto.Marshal
	// would leave a zero value out).
	var s []byte
	s = protowire.AppendTag(s, 1, protowire.VarintType)
	s = protowire.AppendVarint(s, 1)
	s = protowire.AppendTag(s, 2, protowire.VarintType)
	s = protowire.AppendVarint(s, 1)
	s = protowire.AppendTag(s, 4, protowire.VarintType)
	s = protowire.AppendVarint(s, 0)
	prof, err := proto.Marshal(pd.ResourceProfiles[0].ScopeProfiles[0].Profiles[0])
	if err != nil {
		t.Fatal(err)
	}
	prof = protowire.AppendBytes(protowire.AppendTag(prof, 2, protowire.BytesType), s)
	scope := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), prof)
	rp := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), scope)
	pd.ResourceProfiles = nil
	b := marshal(t, pd)
	return protowire.AppendBytes(protowire.AppendTag(b, 1, protowire.BytesType), rp)
}

// TestAmbiguousLayout: when both readings are valid and differ, the error
// names both layouts and the flag, and the flag chooses.
func TestAmbiguousLayout(t *testing.T) {
	data := ambiguous(t)
	_, err := Decode(data, DecodeOptions{})
	if err == nil || !strings.Contains(err.Error(), "v1.10+") || !strings.Contains(err.Error(), "v1.9") || !strings.Contains(err.Error(), "--otlp-proto") {
		t.Fatalf("told nothing: %v", err)
	}
	p110, err := Decode(data, DecodeOptions{Layout: LayoutV110})
	if err != nil {
		t.Fatal(err)
	}
	if s := p110[0].Samples[0]; s.Values()[0] != 0 || len(p110[0].LabelSets[s.LabelSet].Labels()) != 1 {
		t.Errorf("v1.10: sample %+v", s)
	}
	p19, err := Decode(data, DecodeOptions{Layout: LayoutV19})
	if err != nil {
		t.Fatal(err)
	}
	if s := p19[0].Samples[0]; s.Values()[0] != 1 || s.LabelSet != 0 {
		t.Errorf("v1.9: sample %+v", s)
	}
}

// TestWireTypeContradiction: a known field with another wire type than the
// schema's (here a mapping's memory_start as bytes) is skipped with a
// warning that names it, never silently.
func TestWireTypeContradiction(t *testing.T) {
	pd, _ := heapMessage(t)
	m := pd.Dictionary.MappingTable[1]
	m.ProtoReflect().SetUnknown(protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte{1, 2}))
	m.MemoryStart = 0
	var warned []string
	if _, err := Decode(marshal(t, pd), DecodeOptions{Warn: func(s string) { warned = append(warned, s) }}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "dictionary.mapping_table[1].memory_start (field 1) has wire type 2") {
		t.Errorf("warnings %q", warned)
	}
}

// TestOwnOutputUnambiguous: a profile whose samples have labels, links and
// small values (which would read validly in both layouts) is written so
// that the reader tells it is v1.10+: its first sample's values packed.
func TestOwnOutputUnambiguous(t *testing.T) {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
	p.Functions = []model.Function{{Name: b.String("f")}}
	p.AddLocation(model.Location{Address: 1, Mapping: model.NoMapping}, model.Line{Function: 0})
	st := b.Stack([]int32{0})
	for i := 0; i < 3; i++ {
		p.Links = append(p.Links, model.Link{TraceID: bytes.Repeat([]byte{byte(i + 1)}, 16), SpanID: bytes.Repeat([]byte{byte(i + 1)}, 8)})
		ls := b.LabelSet([]model.Label{{Key: b.String("k"), Str: b.String(fmt.Sprint(i))}})
		s := model.NewSample(st, []int64{1})
		s.LabelSet, s.Link = ls, int32(i)
		p.Samples = append(p.Samples, s)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, []*model.Profile{p}, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	if ev := detectLayout(buf.Bytes()); ev.bad[1] == "" {
		t.Fatalf("the v1.9 reading is not ruled out: %+v", ev)
	}
	if _, layouts, err := MessagesLayout(buf.Bytes(), DecodeOptions{}); err != nil || layouts[0] != LayoutV110 {
		t.Fatalf("%v, %v", layouts, err)
	}
	got, err := Decode(buf.Bytes(), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0].Samples) != 3 || got[0].Samples[2].Link != 2 {
		t.Errorf("read back %+v", got[0].Samples)
	}
}
