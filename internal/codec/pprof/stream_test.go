package pprof

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// streamProfile is a profile of n samples, one per stack of depth 8 over
// 5,000 locations, as a gperftools profile is.
func streamProfile(n int) *model.Profile {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}, {Type: b.String("cpu"), Unit: b.String("nanoseconds")}}
	p.PeriodType = p.SampleTypes[1]
	p.Period = 10000000
	p.Mappings = []model.Mapping{{Start: 0x400000, Limit: 0x800000, File: b.String("/bin/x")}}
	for i := 0; i < 5000; i++ {
		p.Locations = append(p.Locations, model.Location{Address: 0x400000 + uint64(i)*16, Mapping: 0})
	}
	x := uint64(12345)
	fr := make([]int32, 8)
	for i := 0; i < n; i++ {
		for j := range fr {
			x = x*6364136223846793005 + 1442695040888963407
			fr[j] = int32(x >> 33 % 5000)
		}
		c := int64(1 + i%3)
		p.Samples = append(p.Samples, model.NewSample(p.Stacks.Add(fr), []int64{c, c * p.Period}))
	}
	return p
}

// split returns p's tables (no samples or stacks) and its samples as
// EncodeStream takes them.
func split(p *model.Profile) (*model.Profile, Samples) {
	t := *p
	t.Samples, t.Stacks = nil, model.Stacks{}
	return &t, func(fn func([]int32, []byte, []int64) error) error {
		for i := range p.Samples {
			s := &p.Samples[i]
			if err := fn(p.Stacks.Append(nil, int(s.Stack)), nil, s.Values()); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestEncodeStreamSameAsEncode checks EncodeStream against Encode, raw and
// gzipped, below and above ParallelGzipFrom (where both gzip in parallel),
// and that the parallel gzip's bytes do not depend on the number of cores
// and read back as the same profile.
func TestEncodeStreamSameAsEncode(t *testing.T) {
	for _, n := range []int{10, 160_000} {
		p := streamProfile(n)
		tables, samples := split(p)
		for _, raw := range []bool{true, false} {
			var want, got bytes.Buffer
			if err := Encode(&want, p, EncodeOptions{Raw: raw}); err != nil {
				t.Fatal(err)
			}
			if err := EncodeStream(&got, tables, samples, EncodeOptions{Raw: raw}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%d samples, raw %v: EncodeStream's %d bytes differ from Encode's %d", n, raw, got.Len(), want.Len())
			}
			if raw {
				if large := want.Len() >= ParallelGzipFrom; large != (n > 10) {
					t.Fatalf("%d samples: raw encoding of %d bytes; the test needs it on the other side of ParallelGzipFrom", n, want.Len())
				}
				continue
			}
			old := runtime.GOMAXPROCS(1)
			var one bytes.Buffer
			err := Encode(&one, p, EncodeOptions{})
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(one.Bytes(), want.Bytes()) {
				t.Fatalf("%d samples: gzipped on one core, the bytes differ", n)
			}
			gp, err := profile.Parse(bytes.NewReader(want.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			var rawBuf bytes.Buffer
			if err := Encode(&rawBuf, p, EncodeOptions{Raw: true}); err != nil {
				t.Fatal(err)
			}
			rp, err := profile.ParseData(rawBuf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if d := pprofcmp.Diff(rp, gp); d != "" {
				t.Fatalf("%d samples: gzipped output reads back differently: %s", n, d)
			}
		}
	}
}
