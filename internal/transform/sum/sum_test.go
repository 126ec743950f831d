package sum_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/synth"
	"github.com/pprofx/pprofx/internal/transform/sum"
)

func read(t *testing.T, name string) *model.Profile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	in, err := formats.Read(bytes.NewReader(b), formats.ReadOptions{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return in.Items[0].Profile
}

// TestKeepsOpenTelemetry: an OTLP profile (a real one, with a link, a
// timestamp and a location attribute put on top) added to itself keeps
// them all: each sample with timestamps twice (never combined), links and
// location attributes as they were, the resource and scope (the same in
// both), values doubled.
func TestKeepsOpenTelemetry(t *testing.T) {
	p := read(t, "otlp-dev/cpu.otlp")
	p.Links = append(p.Links, model.Link{TraceID: bytes.Repeat([]byte{7}, 16), SpanID: bytes.Repeat([]byte{9}, 8)})
	p.Samples[0].Link = int32(len(p.Links) - 1)
	p.Samples[1].SetTimestamps([]uint64{uint64(p.TimeNanos) + 1000})
	li := p.Stacks.Append(nil, int(p.Samples[2].Stack))[0]
	p.SetLocationAttrs(int(li), append(p.LocationAttrs(int(li)), model.Attribute{Key: "profile.frame.type",
		Value: model.Value{Kind: model.KindString, Str: "go"}}))
	var warned []string
	got, err := sum.Sum([]sum.Input{{Name: "a", Profile: p}, {Name: "b", Profile: p}}, func(s string) { warned = append(warned, s) })
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 0 {
		t.Errorf("warnings: %v", warned)
	}
	if !reflect.DeepEqual(got.Resource, p.Resource) || !reflect.DeepEqual(got.Scope, p.Scope) ||
		!reflect.DeepEqual(got.Attributes, p.Attributes) || len(p.Resource.Attributes) == 0 {
		t.Errorf("resource, scope or attributes changed: %+v %+v %+v", got.Resource, got.Scope, got.Attributes)
	}
	type key struct {
		stack  string
		stamps string
		link   string
	}
	describe := func(q *model.Profile, s *model.Sample) key {
		var st, link string
		for _, li := range q.Stacks.Append(nil, int(s.Stack)) {
			loc := q.Locations[li]
			st += fmt.Sprintf("|%#x", loc.Address)
			for _, ln := range q.LinesOf(&loc) {
				if ln.Function != model.NoFunction {
					st += ":" + q.String(q.Functions[ln.Function].Name)
				}
			}
			for _, a := range q.LocationAttrs(int(li)) {
				st += "@" + a.Key + "=" + a.Value.Str
			}
		}
		if s.Link != model.NoLink {
			link = string(q.Links[s.Link].TraceID) + string(q.Links[s.Link].SpanID)
		}
		return key{st, string(fmtStamps(s.Timestamps())), link}
	}
	want := map[key][]int64{}
	stamped, linked, attrs := 0, 0, 0
	for i := range p.Samples {
		s := &p.Samples[i]
		k := describe(p, s)
		if len(s.Timestamps()) > 0 {
			stamped++
		}
		if s.Link != model.NoLink {
			linked++
		}
		v := want[k]
		if v == nil {
			v = make([]int64, len(s.Values()))
		}
		for j, x := range s.Values() {
			v[j] += 2 * x
		}
		want[k] = v
	}
	for _, as := range p.LocationAttributes {
		attrs += len(as)
	}
	if stamped == 0 || linked == 0 || attrs == 0 {
		t.Fatalf("the fixture has %d samples with timestamps, %d with links, %d location attributes: it tests nothing", stamped, linked, attrs)
	}
	gotm := map[key][]int64{}
	gotStamped := 0
	for i := range got.Samples {
		s := &got.Samples[i]
		if len(s.Timestamps()) > 0 {
			gotStamped++
		}
		k := describe(got, s)
		v := gotm[k]
		if v == nil {
			v = make([]int64, len(s.Values()))
		}
		for j, x := range s.Values() {
			v[j] += x
		}
		gotm[k] = v
	}
	if !reflect.DeepEqual(gotm, want) {
		t.Errorf("samples differ:\n got %v\nwant %v", gotm, want)
	}
	if gotStamped != 2*stamped {
		t.Errorf("%d samples with timestamps, want %d", gotStamped, 2*stamped)
	}
}

func fmtStamps(ts []uint64) []byte {
	var b []byte
	for _, t := range ts {
		for i := 0; i < 8; i++ {
			b = append(b, byte(t>>(8*i)))
		}
	}
	return b
}

// TestUnion: types matched by name, the others kept with zeros, in the
// order first seen; units of one family go to the finer, whichever input
// brings it.
func TestUnion(t *testing.T) {
	mk := func(types [][2]string, vals []int64) *model.Profile {
		b := model.NewBuilder()
		p := b.P
		for _, ty := range types {
			p.SampleTypes = append(p.SampleTypes, model.ValueType{Type: b.String(ty[0]), Unit: b.String(ty[1])})
		}
		p.Functions = []model.Function{{Name: b.String("main")}}
		p.AddLocation(model.Location{Mapping: model.NoMapping}, model.Line{Function: 0})
		p.Samples = []model.Sample{model.NewSample(b.Stack([]int32{0}), vals)}
		return p
	}
	a := mk([][2]string{{"alloc_space", "bytes"}, {"alloc_objects", "count"}}, []int64{3, 1})
	c := mk([][2]string{{"inuse_space", "kilobytes"}, {"alloc_space", "kilobytes"}}, []int64{2, 5})
	got, err := sum.Sum([]sum.Input{{Name: "a", Profile: a}, {Name: "c", Profile: c}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, st := range got.SampleTypes {
		names = append(names, got.String(st.Type)+"/"+got.String(st.Unit))
	}
	if want := []string{"alloc_space/bytes", "alloc_objects/count", "inuse_space/kilobytes"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("types %v, want %v", names, want)
	}
	if len(got.Samples) != 1 || !reflect.DeepEqual(got.Samples[0].Values(), []int64{3 + 5*1024, 1, 2}) {
		t.Errorf("samples %+v", got.Samples)
	}
	if got.String(got.DefaultSampleType) != "alloc_objects" {
		t.Errorf("default %q: the first input's last type is alloc_objects", got.String(got.DefaultSampleType))
	}
	// In the other order the finer unit comes second, and what the sum
	// holds in kilobytes is scaled into it; the type only the second has
	// is zero in the sample of the first alone.
	a.PeriodType, a.Period = model.ValueType{Type: a.SampleTypes[0].Type, Unit: a.SampleTypes[0].Unit}, 1024
	c2 := mk([][2]string{{"inuse_space", "kilobytes"}, {"alloc_space", "kilobytes"}}, []int64{2, 5})
	c2.Samples = append(c2.Samples, model.NewSample(c2.Stacks.Add(nil), []int64{7, 1}))
	c2.PeriodType, c2.Period = model.ValueType{Type: c2.SampleTypes[1].Type, Unit: c2.SampleTypes[1].Unit}, 2
	got, err = sum.Sum([]sum.Input{{Name: "c", Profile: c2}, {Name: "a", Profile: a}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, st := range got.SampleTypes {
		names = append(names, got.String(st.Type)+"/"+got.String(st.Unit))
	}
	if want := []string{"inuse_space/kilobytes", "alloc_space/bytes", "alloc_objects/count"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("reversed: types %v, want %v", names, want)
	}
	if len(got.Samples) != 2 || !reflect.DeepEqual(got.Samples[0].Values(), []int64{2, 5*1024 + 3, 1}) || !reflect.DeepEqual(got.Samples[1].Values(), []int64{7, 1024, 0}) {
		t.Errorf("reversed: samples %+v", got.Samples)
	}
	if pt := got.String(got.PeriodType.Type) + "/" + got.String(got.PeriodType.Unit); pt != "alloc_space/bytes" || got.Period != 2048 {
		t.Errorf("reversed: period %d %s, want 2048 alloc_space/bytes (the larger, in the finer unit)", got.Period, pt)
	}
	// Units that do not convert: an error naming both.
	d := mk([][2]string{{"alloc_space", "count"}}, []int64{1})
	_, err = sum.Sum([]sum.Input{{Name: "a", Profile: a}, {Name: "d", Profile: d}}, nil)
	if se, ok := err.(*sum.Error); !ok || !reflect.DeepEqual(se.Names, []string{"a", "d"}) {
		t.Errorf("error %v", err)
	}
}

// A stack of 1M frames added to itself is held once more, as the sum's
// locations, beside the sum's stack: its frames are not copied into the
// samples' keys (three copies, 24 MB, when they were).
// Samples with timestamps stay apart, their values kept; those of equal
// values next to each other share one array of the sum's, which a finer
// unit coming later scales once, not once a sample.
func TestTimestampedShareValues(t *testing.T) {
	mk := func(unit string, n int) *model.Profile {
		b := model.NewBuilder()
		p := b.P
		p.SampleTypes = []model.ValueType{{Type: b.String("cpu"), Unit: b.String(unit)}, {Type: b.String("samples"), Unit: b.String("count")}}
		p.Functions = []model.Function{{Name: b.String("main")}}
		p.AddLocation(model.Location{Mapping: model.NoMapping}, model.Line{Function: 0})
		for i := range n {
			s := model.NewSample(b.Stack([]int32{0}), []int64{10, 1})
			s.SetTimestamps([]uint64{uint64(1000 + i)})
			p.Samples = append(p.Samples, s)
		}
		// One without a timestamp between: added to, never shared.
		p.Samples = append(p.Samples, model.NewSample(b.Stack([]int32{0}), []int64{10, 1}))
		for i := range n {
			s := model.NewSample(b.Stack([]int32{0}), []int64{10, 1})
			s.SetTimestamps([]uint64{uint64(2000 + i)})
			p.Samples = append(p.Samples, s)
		}
		return p
	}
	got, err := sum.Sum([]sum.Input{{Name: "a", Profile: mk("milliseconds", 3)}, {Name: "b", Profile: mk("nanoseconds", 2)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Samples) != 11 {
		t.Fatalf("%d samples, want 3+3 and 2+2 timestamped and one without", len(got.Samples))
	}
	rows := map[*int64]bool{}
	var ts []uint64
	for i, s := range got.Samples {
		want := []int64{10 * 1e6, 1} // milliseconds scaled to nanoseconds
		if i >= 7 {
			want = []int64{10, 1}
		}
		if len(s.Timestamps()) == 0 {
			want = []int64{10*1e6 + 10, 2}
		} else {
			ts = append(ts, s.Timestamps()...)
		}
		if !reflect.DeepEqual(s.Values(), want) {
			t.Errorf("sample %d (timestamps %v): values %v, want %v", i, s.Timestamps(), s.Values(), want)
		}
		rows[&s.Values()[0]] = true
	}
	if want := []uint64{1000, 1001, 1002, 2000, 2001, 2002, 1000, 1001, 2000, 2001}; !reflect.DeepEqual(ts, want) {
		t.Errorf("timestamps %v, want %v", ts, want)
	}
	if len(rows) > 5 {
		t.Errorf("%d arrays of values for 11 samples: runs of timestamped ones do not share", len(rows))
	}
}

// The sum makes room for an input's timestamped samples at once: after
// two inputs of 3000 each, its array holds 6000, not the 7000 or more
// that append's growth, a quarter at a time, would have left.
func TestTimestampedRoomAtOnce(t *testing.T) {
	mk := func() *model.Profile {
		b := model.NewBuilder()
		p := b.P
		p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
		p.Functions = []model.Function{{Name: b.String("main")}}
		p.AddLocation(model.Location{Mapping: model.NoMapping}, model.Line{Function: 0})
		for i := range 3000 {
			s := model.NewSample(b.Stack([]int32{0}), []int64{1})
			s.SetTimestamps([]uint64{uint64(1000 + i)})
			p.Samples = append(p.Samples, s)
		}
		return p
	}
	x := sum.New(nil)
	for _, name := range []string{"a", "b"} {
		if err := x.Add(name, mk()); err != nil {
			t.Fatal(err)
		}
	}
	got, err := x.Sum()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Samples) != 6000 || cap(got.Samples) != 6000 {
		t.Errorf("%d samples in an array of %d, want 6000 in 6000", len(got.Samples), cap(got.Samples))
	}
}

func TestDeepStackHeldOnce(t *testing.T) {
	const frames = 1 << 20
	a, b := synth.DeepStack(frames), synth.DeepStack(frames)
	var out *model.Profile
	peak := memcheck.Peak(func() {
		var err error
		if out, err = sum.Sum([]sum.Input{{Name: "a", Profile: a}, {Name: "b", Profile: b}}, nil); err != nil {
			t.Fatal(err)
		}
	})
	if n := out.Stacks.StackLen(int(out.Samples[0].Stack)); len(out.Samples) != 1 || n != frames || out.Samples[0].Values()[0] != 2*a.Samples[0].Values()[0] {
		t.Fatalf("%d samples, the first of %d frames and %v, want one of %d and twice %v", len(out.Samples), n, out.Samples[0].Values(), frames, a.Samples[0].Values())
	}
	// The sum's stack (2 bytes a frame), its frames as read (4), and a
	// copy of them to rehash the index of stacks (4).
	if bound := uint64(12 * frames); peak > bound {
		t.Errorf("summing took %d bytes, want %d at most", peak, bound)
	}
}

// Each input is let go once it is added: summing two profiles of 256k
// functions and locations each, none in common, holds beside them the sum
// (two inputs' tables, grown from one's) less the first input, let go
// while the second is added: 3.2 times what one input takes, where 4.1
// while both were held to the end.
func TestInputsLetGo(t *testing.T) {
	const n = 1 << 18
	other := synth.OwnLocations(n, 256)
	for i := range other.Functions {
		s := &other.Strings[other.Functions[i].Name]
		*s = "other." + *s
	}
	in := []sum.Input{{Name: "a", Profile: synth.OwnLocations(n, 256)}, {Name: "b", Profile: other}}
	one := in[0].Profile.MemSize()
	other = nil
	var out *model.Profile
	peak := memcheck.Peak(func() {
		var err error
		if out, err = sum.Sum(in, nil); err != nil {
			t.Fatal(err)
		}
	})
	if len(out.Functions) != 2*n || len(out.Locations) != 2*n {
		t.Fatalf("the sum has %d functions and %d locations, want %d of each", len(out.Functions), len(out.Locations), 2*n)
	}
	for i, x := range in {
		if x.Profile != nil {
			t.Errorf("input %d is still held", i)
		}
	}
	t.Logf("an input takes %.1f MiB; summing two held %.1f more at most", float64(one)/(1<<20), float64(peak)/(1<<20))
	if bound := uint64(one) * 7 / 2; peak > bound {
		t.Errorf("summing held %d bytes beside the inputs, want %d at most (3.5 times one input)", peak, bound)
	}
}
