package summary

import (
	"os"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
)

// The totals agree with google/pprof's reading of the same real file.
func TestTotalsMatchPprof(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/go/heap.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	p, err := pprof.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	s := Of(p)
	if len(s.SampleTypes) != 4 || s.Samples != len(want.Sample) || s.Locations != len(want.Location) || s.Functions != len(want.Function) {
		t.Fatalf("summary %+v", s)
	}
	for i, st := range s.SampleTypes {
		var total int64
		for _, smp := range want.Sample {
			total += smp.Value[i]
		}
		if st.Total != total || st.Type != want.SampleType[i].Type {
			t.Errorf("%s: total %d, google/pprof sums %d", st.Type, st.Total, total)
		}
		def := want.DefaultSampleType
		if def == "" { // pprof's rule: the last sample type
			def = want.SampleType[len(want.SampleType)-1].Type
		}
		if st.Default != (st.Type == def) {
			t.Errorf("%s: default %v, profile's default is %q", st.Type, st.Default, want.DefaultSampleType)
		}
	}
	if satAdd(1<<62, 1<<62) != 1<<63-1 || satAdd(-1<<62, -1<<63) != -1<<63 {
		t.Error("totals do not saturate")
	}
}
