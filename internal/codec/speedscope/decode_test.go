package speedscope_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/speedscope"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
	"github.com/pprofx/pprofx/internal/testutil/viewtest"
	"github.com/pprofx/pprofx/internal/view/callstacks"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(viewtest.Root(), "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// folded sums p's values of sample type t by root-first stack of names.
func folded(p *model.Profile, t int) map[string]int64 {
	set := callstacks.Aggregate(p, []int{t}, callstacks.Options{})
	out := map[string]int64{}
	for i := 0; i < set.Len(); i++ {
		var names []string
		for _, f := range set.Stack(i) {
			names = append(names, set.Name(f))
		}
		if v := set.Values[0][i]; v != 0 {
			out[strings.Join(names, ";")] = v
		}
	}
	return out
}

func equalMaps(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestSpeedscopeSamples: speedscope's own sample files, evented and
// sampled, give the stacks and weights speedscope shows for them: a;b;c
// 0-2 and 6-9, a;b;d 2-6, a;b 9-14.
func TestSpeedscopeSamples(t *testing.T) {
	want := map[string]int64{"a;b;c": 5, "a;b;d": 4, "a;b": 5}
	for _, c := range []struct {
		file, typ string
		scale     int64
	}{
		{"simple.speedscope.json", "samples/count", 1},
		{"simple-no-pretty-print.speedscope.json", "samples/count", 1},
		{"simple-sampled.speedscope.json", "time/nanoseconds", 1e9},
	} {
		ps, err := speedscope.Decode(readFixture(t, "speedscope/"+c.file), speedscope.ReadOptions{})
		if err != nil || len(ps) != 1 {
			t.Fatalf("%s: %d profiles, %v", c.file, len(ps), err)
		}
		p := ps[0].Profile
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		st := p.SampleTypes[0]
		if got := p.String(st.Type) + "/" + p.String(st.Unit); got != c.typ {
			t.Errorf("%s: sample type %s, want %s", c.file, got, c.typ)
		}
		w := map[string]int64{}
		for k, v := range want {
			w[k] = v * c.scale
		}
		if got := folded(p, 0); !equalMaps(got, w) {
			t.Errorf("%s: %v, want %v", c.file, got, w)
		}
	}
	ps, err := speedscope.Decode(readFixture(t, "speedscope/two-sampled.speedscope.json"), speedscope.ReadOptions{})
	if err != nil || len(ps) != 2 || ps[0].Name != "one" || ps[1].Name != "two" {
		t.Fatalf("two-sampled: %+v %v", ps, err)
	}
	for in, want := range map[string]string{
		"invalid-incomplete-trace.json":    "speedscope: profiles[0]: 1 frames still open after the last event",
		"invalid-out-of-order-events.json": "speedscope: profiles[0].events[6]: closes frame 1 while frame 0 is at the top",
	} {
		if _, err := speedscope.Decode(readFixture(t, "speedscope/"+in), speedscope.ReadOptions{}); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

// TestSpeedscopeExport: files speedscope's exporter wrote (evented, in
// microseconds and in "none"): the total is speedscope's total weight,
// the last event's time less startValue, in nanoseconds, and every frame
// of the file that is opened is a frame of the profile.
func TestSpeedscopeExport(t *testing.T) {
	for _, c := range []struct {
		file  string
		scale int64
	}{{"node-work.speedscope.json", 1000}, {"go-cpu.speedscope.json", 1}} {
		data := readFixture(t, "speedscope/"+c.file)
		var raw struct {
			Shared   struct{ Frames []struct{ Name string } }
			Profiles []struct {
				StartValue int64
				Events     []struct {
					Frame int
					At    int64
				}
			}
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		ps, err := speedscope.Decode(data, speedscope.ReadOptions{Warn: func(s string) { t.Errorf("%s: warning %s", c.file, s) }})
		if err != nil {
			t.Fatal(err)
		}
		p := ps[0].Profile
		var total int64
		for _, s := range p.Samples {
			total += s.Values()[0]
		}
		ev := raw.Profiles[0].Events
		if want := (ev[len(ev)-1].At - raw.Profiles[0].StartValue) * c.scale; total != want {
			t.Errorf("%s: total %d, want %d", c.file, total, want)
		}
		names := map[string]bool{}
		for _, f := range p.Functions {
			names[p.String(f.Name)] = true
		}
		for _, e := range ev {
			if n := raw.Shared.Frames[e.Frame].Name; !names[n] {
				t.Errorf("%s: no frame %q", c.file, n)
			}
		}
	}
}

// TestReadBackOwn: pprofx's own speedscope output reads back as one
// profile with every sample type it holds, the default one kept, and the
// same stacks and values per type.
func TestReadBackOwn(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(viewtest.Root(), "testdata", "go", "*.pb.gz"))
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		src, err := pprof.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := speedscope.Encode(&buf, src, speedscope.Options{Exporter: "pprofx test"}); err != nil {
			t.Fatal(err)
		}
		ps, err := speedscope.Decode(buf.Bytes(), speedscope.ReadOptions{})
		if err != nil || len(ps) != 1 {
			t.Fatalf("%s: %d profiles, %v", f, len(ps), err)
		}
		got := ps[0].Profile
		if len(got.SampleTypes) != len(src.SampleTypes) {
			t.Fatalf("%s: %d sample types, want %d", f, len(got.SampleTypes), len(src.SampleTypes))
		}
		for i, st := range src.SampleTypes {
			g := got.SampleTypes[i]
			if got.String(g.Type) != src.String(st.Type) || got.String(g.Unit) != src.String(st.Unit) {
				t.Errorf("%s: type %d: %s/%s", f, i, got.String(g.Type), got.String(g.Unit))
			}
			if a, b := folded(src, i), folded(got, i); !equalMaps(a, b) {
				t.Errorf("%s: type %d: stacks differ (%d, %d)", f, i, len(a), len(b))
			}
		}
		want, err := callstacks.SampleIndex(src, "")
		if err != nil {
			t.Fatal(err)
		}
		if g, w := got.String(got.DefaultSampleType), src.String(src.SampleTypes[want].Type); g != w {
			t.Errorf("%s: default sample type %q, want %q", f, g, w)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"shared":{"frames":[]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[[3]],"weights":[1]}]}`:                        "speedscope: profiles[0].samples[0]: frame 3 is not in shared.frames (0 frames)",
		`{"shared":{"frames":[]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[[]],"weights":[]}]}`:                          "speedscope: profiles[0]: 1 samples but 0 weights",
		`{"shared":{"frames":[]},"profiles":[{"type":"sampled","name":"x","unit":"furlongs","startValue":0,"endValue":1,"samples":[],"weights":[]}]}`:                        `speedscope: profiles[0]: unit "furlongs" is not one of speedscope's`,
		`{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented","name":"x","unit":"none","startValue":5,"endValue":9,"events":[{"type":"O","frame":0,"at":4}]}]}`: "speedscope: profiles[0].events[0]: at 4 is before the event before it or startValue (5)",
		`{"shared":{"frames":[]},"profiles":[{"type":"sampled"`: "speedscope: byte 53: the JSON is cut short",
		`{"shared":{"frames":[]},"profiles":[]}`:                "speedscope: no profiles",
		`{"shared":{"frames":[]},"profiles":[]} x`:              "speedscope: byte 39: data after the file's JSON object",
		`{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[[5000000000]],"weights":[1]}]}`:    "speedscope: samples[0][0]: 5000000000 is not a frame index (a whole number of 32 bits)",
		`{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[[0], [0, 1.5]],"weights":[1,1]}]}`: "speedscope: samples[1][1]: 1.5 is not a frame index (a whole number of 32 bits)",
		`{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[[0,"a"]],"weights":[1]}]}`:         "speedscope: samples[0][1]: want a frame index",
		`{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[0],"weights":[1]}]}`:               "speedscope: samples[0]: want an array of frame indices",
		`{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":{},"weights":[1]}]}`:                "speedscope: samples: want an array of samples",
		`{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[ [ 0 , -1 ] ],"weights":[1]}]}`:    "speedscope: profiles[0].samples[0]: frame -1 is not in shared.frames (1 frames)",
	} {
		if _, err := speedscope.Decode([]byte(in), speedscope.ReadOptions{}); err == nil || err.Error() != want {
			t.Errorf("%.60s: %v, want %q", in, err, want)
		}
	}
}

// A sample of 1M frames is read at 4 bytes a frame, into an array made
// at its size, and its locations found in place; the text is read where
// it lies. Reading this text of 2 bytes a frame allocates 10.5 MB in
// all, where it allocated 77 MB with 8 bytes a frame grown by doubling
// beside a copy of the text, and 48 MB with 4.
func TestDeepSampleMemory(t *testing.T) {
	const frames = 1 << 20
	var b strings.Builder
	b.WriteString(`{"shared":{"frames":[{"name":"a"},{"name":"b"},{"name":"c"}]},"profiles":[{"type":"sampled","name":"x","unit":"none","startValue":0,"endValue":1,"samples":[[`)
	for i := range frames {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('0' + byte(i%3))
	}
	b.WriteString(`]],"weights":[1]}]}`)
	text := []byte(b.String())
	var ps []speedscope.Profile
	got := memcheck.Of(func() {
		var err error
		if ps, err = speedscope.Decode(text, speedscope.ReadOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	if p := ps[0].Profile; p.Stacks.StackLen(int(p.Samples[0].Stack)) != frames {
		t.Fatalf("%d frames read, want %d", p.Stacks.StackLen(int(p.Samples[0].Stack)), frames)
	}
	if bound := uint64(6 * len(text)); got > bound {
		t.Errorf("reading %d bytes allocated %d, want %d at most", len(text), got, bound)
	}
}
