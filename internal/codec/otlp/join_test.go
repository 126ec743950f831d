package otlp

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"testing"

	gp "github.com/google/pprof/profile"
	"google.golang.org/protobuf/proto"

	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// TestJoinMultiset: per-type Profiles written as the collector-contrib
// translator writes them (every sample in every Profile, each sample's
// attributes in another order per Profile, the samples in another order,
// several samples with one key, in the same order among themselves) join into one profile with every sample
// type, the source's.
func TestJoinMultiset(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/go/heap.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	want, err := gp.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	// A second label on every sample, so that attribute order can differ.
	for i, s := range want.Sample {
		s.Label = map[string][]string{"worker": {fmt.Sprint(i % 3)}}
	}
	var src bytes.Buffer
	if err := want.Write(&src); err != nil {
		t.Fatal(err)
	}
	m, err := pprof.Decode(src.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var enc bytes.Buffer
	if err := Encode(&enc, []*model.Profile{m}, EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	msgs, err := Messages(enc.Bytes(), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pd := msgs[0]
	sp := pd.ResourceProfiles[0].ScopeProfiles[0]
	ord := make([]int, len(sp.Profiles))
	for k := range ord {
		ord[k] = k
	}
	for _, kv := range sp.Scope.GetAttributes() {
		if kv.Key == AttrSampleTypeOrder {
			for k, v := range kv.Value.GetArrayValue().GetValues() {
				ord[k] = int(v.GetIntValue())
			}
		}
	}
	first := sp.Profiles[0].Samples
	if len(first) != len(want.Sample) || len(sp.Profiles) < 2 {
		t.Fatalf("fixture changed: %d samples, %d profiles", len(first), len(sp.Profiles))
	}
	// A second sample with the key of sample 0 (and of the source's),
	// with other values: several samples per key.
	dup := *want.Sample[0]
	dup.Value = make([]int64, len(want.Sample[0].Value))
	for i := range dup.Value {
		dup.Value[i] = int64(1000 + i)
	}
	want.Sample = append(want.Sample, &dup)
	for k, pr := range sp.Profiles {
		samples := make([]*pb.Sample, 0, len(want.Sample))
		for i, s := range want.Sample {
			base := first[min(i, len(first)-1)]
			if i == len(want.Sample)-1 {
				base = first[0]
			}
			c := proto.Clone(base).(*pb.Sample)
			c.Values = []int64{s.Value[ord[k]]}
			if k > 0 {
				slices.Reverse(c.AttributeIndices)
			}
			samples = append(samples, c)
		}
		if k > 0 {
			// Another order, except that samples with one key keep
			// theirs: the j-th with a key goes with the j-th.
			slices.Reverse(samples)
			samples[0], samples[len(samples)-1] = samples[len(samples)-1], samples[0]
		}
		pr.Samples = samples
	}
	var out bytes.Buffer
	if err := want.Write(&out); err != nil {
		t.Fatal(err)
	}
	want, _ = gp.ParseData(out.Bytes())
	reversed := false
	for _, s := range sp.Profiles[1].Samples {
		reversed = reversed || len(s.AttributeIndices) > 1 // in the other order than in profile 0
	}
	if !reversed {
		t.Fatal("no sample with attributes out of order: the test tests nothing")
	}
	ps, err := Decode(marshal(t, pd), DecodeOptions{Warn: func(s string) { t.Errorf("warning: %s", s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 {
		t.Fatalf("%d profiles, want the %d per-type Profiles joined into 1", len(ps), len(sp.Profiles))
	}
	if d := pprofcmp.Diff(want, toPprof(t, ps[0])); d != "" {
		t.Error(d)
	}
}
