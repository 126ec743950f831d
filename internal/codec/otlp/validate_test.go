package otlp

import (
	"bytes"
	"os"
	"strings"
	"testing"

	gp "github.com/google/pprof/profile"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/commonpb"
	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// heapMessage is pprofx's v1development output of the real Go heap profile
// (4 sample types: 4 Profiles), parsed.
func heapMessage(t *testing.T) (*pb.ProfilesData, []byte) {
	t.Helper()
	m, src := heapProfile(t)
	var buf bytes.Buffer
	if err := Encode(&buf, []*model.Profile{m}, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	pd := &pb.ProfilesData{}
	if err := proto.Unmarshal(buf.Bytes(), pd); err != nil {
		t.Fatal(err)
	}
	return pd, src
}

// heapProfile is the real Go heap profile, decoded, and its file.
func heapProfile(t *testing.T) (*model.Profile, []byte) {
	t.Helper()
	src, err := os.ReadFile("../../../testdata/go/heap.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	m, err := pprof.Decode(src)
	if err != nil {
		t.Fatal(err)
	}
	return m, src
}

func marshal(t *testing.T, pd *pb.ProfilesData) []byte {
	t.Helper()
	b, err := proto.Marshal(pd)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func findings(t *testing.T, pd *pb.ProfilesData) []string {
	t.Helper()
	fs, _, err := ValidateData(marshal(t, pd), DecodeOptions{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

func TestValidateClean(t *testing.T) {
	pd, _ := heapMessage(t)
	for _, f := range findings(t, pd) {
		if strings.HasPrefix(f, "error") {
			t.Errorf("pprofx's own output: %s", f)
		}
	}
}

// TestValidateFindings: each broken rule is named by its path, the reader
// refuses what breaks a MUST it depends on, and nothing panics.
func TestValidateFindings(t *testing.T) {
	sample := "resource_profiles[0].scope_profiles[0].profiles[1].samples[12]"
	cases := []struct {
		name  string
		edit  func(pd *pb.ProfilesData)
		want  string
		reads bool // the reader still takes it
	}{
		{"stack index", func(pd *pb.ProfilesData) { prof(pd, 1).Samples[12].StackIndex = 9000 },
			"error: " + sample + ".stack_index: 9000 beyond stack_table (", false},
		{"negative attribute", func(pd *pb.ProfilesData) { prof(pd, 1).Samples[12].AttributeIndices = []int32{-1} },
			"error: " + sample + ".attribute_indices[0]: -1 is negative", false},
		{"no values", func(pd *pb.ProfilesData) { prof(pd, 1).Samples[12].Values = nil },
			"error: " + sample + ": neither values nor timestamps_unix_nano", false},
		{"shape", func(pd *pb.ProfilesData) { prof(pd, 1).Samples[12].TimestampsUnixNano = []uint64{1, 2} },
			"error: " + sample + ": 1 values but 2 timestamps_unix_nano", false},
		{"duplicate key", func(pd *pb.ProfilesData) {
			s := prof(pd, 1).Samples[12]
			a := s.AttributeIndices[0]
			s.AttributeIndices = []int32{a, a}
		}, "error: " + sample + ".attribute_indices[1]: key \"bytes\" repeated", false},
		{"function", func(pd *pb.ProfilesData) { pd.Dictionary.FunctionTable[3] = &pb.Function{StartLine: 5} },
			"error: dictionary.function_table[3]: names nothing", true},
		{"zero entry", func(pd *pb.ProfilesData) { pd.Dictionary.StringTable[0] = "x" },
			"error: dictionary.string_table[0]: must be the zero value", false},
		{"payload", func(pd *pb.ProfilesData) { prof(pd, 0).OriginalPayload = []byte("x") },
			"error: resource_profiles[0].scope_profiles[0].profiles[0].original_payload_format: original_payload and original_payload_format must be set together", false},
		{"profile id", func(pd *pb.ProfilesData) { prof(pd, 2).ProfileId = make([]byte, 16) },
			"error: resource_profiles[0].scope_profiles[0].profiles[2].profile_id: all zero", false},
		{"link ids", func(pd *pb.ProfilesData) {
			pd.Dictionary.LinkTable = append(pd.Dictionary.LinkTable, &pb.Link{TraceId: make([]byte, 15), SpanId: make([]byte, 8)})
		}, "error: dictionary.link_table[1].trace_id: 15 bytes, want 16", false},
		{"timestamp", func(pd *pb.ProfilesData) {
			for _, p := range pd.ResourceProfiles[0].ScopeProfiles[0].Profiles {
				p.Samples[12].TimestampsUnixNano = []uint64{1}
			}
		}, "warning: " + sample + ".timestamps_unix_nano[0]: 1 outside the profile's time range", true},
		{"scope strindex", func(pd *pb.ProfilesData) {
			sp := pd.ResourceProfiles[0].ScopeProfiles[0]
			if sp.Scope == nil { // pprofx writes none for a pprof input
				sp.Scope = &commonpb.InstrumentationScope{}
			}
			sc := sp.Scope
			sc.Attributes = append(sc.Attributes, &commonpb.KeyValue{KeyStrindex: 1 << 20})
		}, "error: resource_profiles[0].scope_profiles[0].scope.attributes[0].key_strindex: 1048576 beyond string_table (", false},
		{"no dictionary", func(pd *pb.ProfilesData) { pd.Dictionary = nil },
			"error: dictionary: missing, but 4 profiles refer to it", false},
		{"empty dictionary", func(pd *pb.ProfilesData) { pd.Dictionary = &pb.ProfilesDictionary{} },
			"error: dictionary.string_table: empty: [0] must be present", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pd, _ := heapMessage(t)
			c.edit(pd)
			fs := findings(t, pd)
			found := false
			for _, f := range fs {
				found = found || strings.HasPrefix(f, c.want)
			}
			if !found {
				t.Errorf("findings %q lack %q", fs, c.want)
			}
			_, err := Decode(marshal(t, pd), DecodeOptions{Warn: func(string) {}})
			if (err == nil) != c.reads {
				t.Errorf("reader: %v, want it to read: %v", err, c.reads)
			}
			if err != nil && !strings.Contains(err.Error(), strings.TrimPrefix(strings.SplitN(c.want, ": ", 3)[1], "error: ")) {
				t.Errorf("reader error %q does not name %q", err, c.want)
			}
		})
	}
}

// toV19 renumbers the Sample fields of a v1.10 message to v1.9's
// (attribute_indices 2->3, link_index 3->4, values 4->2).
func toV19(t *testing.T, data []byte) []byte {
	t.Helper()
	out := append([]byte(nil), data...)
	var walk func(b []byte, depth int)
	path := []protowire.Number{1, 2, 2, 2}
	walk = func(b []byte, depth int) {
		for off := 0; off < len(b); {
			num, typ, n := protowire.ConsumeTag(b[off:])
			m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
			if depth == len(path) {
				to := map[protowire.Number]protowire.Number{2: 3, 3: 4, 4: 2}[num]
				if to != 0 {
					b[off] = byte(to)<<3 | byte(typ)
				}
			} else if typ == protowire.BytesType && num == path[depth] {
				body, hl := protowire.ConsumeBytes(b[off+n:])
				start := off + n + hl - len(body)
				walk(b[start:start+len(body)], depth+1)
			}
			off += n + m
		}
	}
	walk(out, 0)
	return out
}

// TestV19: a v1.9 file (Sample fields renumbered) is read as v1.9 without
// being told, and is the source profile; told v1.10 it is refused with an
// error that names v1.9 and the flag; a v1.10 file told v1.9 is refused
// naming v1.10.
func TestV19(t *testing.T) {
	pd, src := heapMessage(t)
	v110 := marshal(t, pd)
	v19 := toV19(t, v110)
	want, _ := gp.ParseData(src)
	for _, layout := range []SampleLayout{LayoutAuto, LayoutV19} {
		msgs, layouts, err := MessagesLayout(v19, DecodeOptions{Layout: layout})
		if err != nil {
			t.Fatal(err)
		}
		if layouts[0] != LayoutV19 {
			t.Errorf("told %v: read as %v", layout, layouts[0])
		}
		ps, err := DecodeMessages(msgs, DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := pprofcmp.Diff(want, toPprof(t, ps[0])); d != "" {
			t.Errorf("v1.9 read as %v:\n%s", layout, d)
		}
	}
	if _, layouts, err := MessagesLayout(v110, DecodeOptions{}); err != nil || layouts[0] != LayoutV110 {
		t.Errorf("v1.10 told nothing: %v, %v", layouts, err)
	}
	if _, err := Decode(v19, DecodeOptions{Layout: LayoutV110}); err == nil || !strings.Contains(err.Error(), "this looks like OTLP profiles proto v1.9") ||
		!strings.Contains(err.Error(), "--otlp-proto 1.9") {
		t.Errorf("v1.9 read as v1.10: %v", err)
	}
	if _, err := Decode(v110, DecodeOptions{Layout: LayoutV19}); err == nil || !strings.Contains(err.Error(), "v1.10 or later") {
		t.Errorf("v1.10 read as v1.9: %v", err)
	}
	fs, _, err := ValidateData(v19, DecodeOptions{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f := firstMust(fs); f != nil {
		t.Errorf("validate of v1.9 told nothing: %v", f)
	}
	_, _, err = ValidateData(v110, DecodeOptions{Layout: LayoutV19}, 0)
	if err == nil || !strings.Contains(err.Error(), "v1.10 or later") {
		t.Errorf("validate --otlp-proto 1.9 of a v1.10 file does not name v1.10: %v", err)
	}
}

// TestTimestampAtEnd: a timestamp at exactly time + duration (as the eBPF
// profiler writes its last one) is no warning; one nanosecond later is;
// every warning names the rule it reports.
func TestTimestampAtEnd(t *testing.T) {
	for _, c := range []struct {
		off  uint64
		warn bool
	}{{0, false}, {1, true}} {
		pd, _ := heapMessage(t)
		for _, p := range pd.ResourceProfiles[0].ScopeProfiles[0].Profiles {
			p.TimeUnixNano, p.DurationNano = 1000, 500
			for _, s := range p.Samples {
				s.TimestampsUnixNano = []uint64{1000 + 500 + c.off}
			}
		}
		n := 0
		for _, f := range findings(t, pd) {
			if strings.Contains(f, "timestamps_unix_nano") {
				n++
			}
			if strings.HasPrefix(f, "warning") && !strings.Contains(f, ".proto") && !strings.Contains(f, ".md") && !strings.Contains(f, "OpenTelemetry") {
				t.Errorf("warning names no rule: %s", f)
			}
		}
		if (n > 0) != c.warn {
			t.Errorf("timestamp at end + %d: %d warnings, want some: %v", c.off, n, c.warn)
		}
	}
}

func prof(pd *pb.ProfilesData, k int) *pb.Profile {
	return pd.ResourceProfiles[0].ScopeProfiles[0].Profiles[k]
}

// TestFastParser: the hand-written parser reads every output of every
// fixture (and the collector-written files) into the very message the
// generated code reads.
func TestFastParser(t *testing.T) {
	var inputs [][]byte
	for _, m := range decodedPprofFixtures(t) {
		var buf bytes.Buffer
		if err := Encode(&buf, []*model.Profile{m}, EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, buf.Bytes())
	}
	pdata, err := os.ReadFile("../../../testdata/otlp-dev/cpu.otlp")
	if err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, pdata)
	for i, in := range inputs {
		fast, err := (&parser{}).data(in)
		if err != nil {
			t.Fatalf("input %d: fast parser: %v", i, err)
		}
		slow := &pb.ProfilesData{}
		if err := proto.Unmarshal(in, slow); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(fast, slow) {
			t.Errorf("input %d: the parsers disagree", i)
		}
	}
}
