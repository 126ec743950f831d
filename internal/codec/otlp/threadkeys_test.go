package otlp

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	gp "github.com/google/pprof/profile"

	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"google.golang.org/protobuf/proto"
)

// threadPprof is a pprof profile whose samples have the given labels.
func threadPprof(t *testing.T, labels []map[string][]string, nums []map[string][]int64) *model.Profile {
	t.Helper()
	fn := &gp.Function{ID: 1, Name: "main.run"}
	loc := &gp.Location{ID: 1, Line: []gp.Line{{Function: fn, Line: 3}}}
	p := &gp.Profile{
		SampleType: []*gp.ValueType{{Type: "samples", Unit: "count"}},
		Function:   []*gp.Function{fn},
		Location:   []*gp.Location{loc},
	}
	for i := range labels {
		p.Sample = append(p.Sample, &gp.Sample{Location: []*gp.Location{loc}, Value: []int64{int64(i + 1)}, Label: labels[i], NumLabel: nums[i]})
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	m, err := pprof.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sampleAttrKeys returns the keys of the sample attributes an OTLP
// message's samples refer to.
func sampleAttrKeys(t *testing.T, data []byte) []string {
	t.Helper()
	var pd pb.ProfilesData
	if err := proto.Unmarshal(data, &pd); err != nil {
		t.Fatal(err)
	}
	d := pd.GetDictionary()
	var keys []string
	for _, rp := range pd.ResourceProfiles {
		for _, sp := range rp.ScopeProfiles {
			for _, pr := range sp.Profiles {
				for _, s := range pr.Samples {
					for _, a := range s.AttributeIndices {
						keys = append(keys, d.StringTable[d.AttributeTable[a].KeyStrindex])
					}
				}
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// TestThreadKeys: the labels thread and thread_id are written as the
// semantic conventions' thread.name and thread.id and read back as they
// were; where the rule would merge two keys into one, both are written and
// read as they are, with a warning, and every value survives.
func TestThreadKeys(t *testing.T) {
	for _, c := range []struct {
		name     string
		labels   []map[string][]string
		nums     []map[string][]int64
		keys     []string
		warnings int  // written and read
		locAttr  bool // a location attribute keyed thread.name, which does not count
	}{
		{"renamed",
			[]map[string][]string{{"thread": {"main"}}, {"thread": {"worker-1"}}, {"thread": {"a", "b"}}},
			[]map[string][]int64{{"thread_id": {1}}, {"thread_id": {7}}, nil},
			[]string{"thread.id", "thread.name"}, 0, false},
		{"location attribute",
			[]map[string][]string{{"thread": {"main"}}},
			[]map[string][]int64{{"thread_id": {1}}},
			[]string{"thread.id", "thread.name"}, 0, true},
		{"thread and thread.name",
			[]map[string][]string{{"thread": {"main"}, "thread.name": {"other"}}, {"thread": {"w"}}},
			[]map[string][]int64{{"thread_id": {1}}, nil},
			[]string{"thread", "thread.id", "thread.name"}, 2, false},
		{"in other samples",
			[]map[string][]string{{"thread": {"main"}}, {"thread.name": {"other"}}},
			[]map[string][]int64{nil, {"thread.id": {3}, "thread_id": {4}}},
			[]string{"thread", "thread.id", "thread.name", "thread_id"}, 4, false},
		{"numeric thread",
			[]map[string][]string{{"thread": {"main"}}, nil},
			[]map[string][]int64{nil, {"thread": {2}}},
			[]string{"thread"}, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := threadPprof(t, c.labels, c.nums)
			if c.locAttr {
				want.SetLocationAttrs(0, []model.Attribute{{Key: "thread.name", Value: model.Value{Kind: model.KindString, Str: "not a label"}}})
			}
			var warned []string
			warn := func(s string) { warned = append(warned, s) }
			var buf bytes.Buffer
			if err := Encode(&buf, []*model.Profile{want}, EncodeOptions{Warn: warn}); err != nil {
				t.Fatal(err)
			}
			if got := sampleAttrKeys(t, buf.Bytes()); !slices.Equal(got, c.keys) {
				t.Errorf("written keys %q, want %q", got, c.keys)
			}
			got, err := Decode(buf.Bytes(), DecodeOptions{Warn: warn})
			if err != nil {
				t.Fatal(err)
			}
			sameProfiles(t, "pprof -> otlp -> model", []*model.Profile{want}, got)
			if len(warned) != c.warnings {
				t.Errorf("warnings %q, want %d", warned, c.warnings)
			}
			for _, w := range warned {
				if !strings.Contains(w, "thread") {
					t.Errorf("warning %q", w)
				}
			}
			var again bytes.Buffer
			if err := Encode(&again, got, EncodeOptions{}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), buf.Bytes()) {
				t.Error("otlp -> otlp changed the bytes")
			}
		})
	}
}

// TestThreadKeysEBPF: the eBPF profiler's thread.name and thread.id are
// read as the labels thread and thread_id, and written back as they were.
func TestThreadKeysEBPF(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/otlp-dev/ebpf-v1.9.otlp")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Decode(data, DecodeOptions{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, ps, EncodeOptions{Warn: func(s string) { t.Errorf("writer warned: %s", s) }}); err != nil {
		t.Fatal(err)
	}
	keys := sampleAttrKeys(t, buf.Bytes())
	for _, k := range []string{"thread.name", "thread.id"} {
		if !slices.Contains(keys, k) {
			t.Errorf("written sample keys %q lack %s", keys, k)
		}
	}
	for _, k := range []string{"thread", "thread_id"} {
		if slices.Contains(keys, k) {
			t.Errorf("written sample keys %q have %s", keys, k)
		}
	}
}
