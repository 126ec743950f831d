package folded_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/folded"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/viewtest"
	"github.com/pprofx/pprofx/internal/view/callstacks"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(viewtest.Root(), "testdata", "folded", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func total(p *model.Profile) int64 {
	var sum int64
	for _, s := range p.Samples {
		sum += s.Values()[0]
	}
	return sum
}

// lineSum sums the values of folded text the plain way (awk '{s+=$NF}').
func lineSum(t *testing.T, data []byte) (int64, int) {
	var sum int64
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(l)
		sum += viewtest.ParseValue(t, f[len(f)-1])
		n++
	}
	return sum, n
}

// TestStackcollapseFiles reads the real collapsed files in
// testdata/folded: every line a sample, totals as written, detected as
// folded, and written back line for line (after sorting).
func TestStackcollapseFiles(t *testing.T) {
	for _, name := range []string{"perf-gzip.folded", "go-cpu.folded", "async-profiler-handmade.folded"} {
		data := readFixture(t, name)
		if res, err := detect.Sniff(data[:min(len(data), detect.HeadSize)]); err != nil || res.Format != detect.Folded {
			t.Errorf("%s: detected %v, %v", name, res.Format, err)
		}
		p, err := folded.Decode(bytes.NewReader(data), folded.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, lines := lineSum(t, data)
		if got := total(p); got != want || len(p.Samples) != lines {
			t.Errorf("%s: %d samples, total %d; want %d lines, total %d", name, len(p.Samples), got, lines, want)
		}
		var out bytes.Buffer
		if err := folded.Encode(&out, p, folded.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if got, want := sortedLines(out.String()), sortedLines(string(data)); got != want {
			t.Errorf("%s: written back differently:\n%s\nwant\n%s", name, got, want)
		}
	}
}

func sortedLines(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	slicesSort(ls)
	return strings.Join(ls, "\n")
}

func slicesSort(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestAsyncProfilerAnnotations: "_[j]" and the like are split off the
// function name and kept as its system name.
func TestAsyncProfilerAnnotations(t *testing.T) {
	p, err := folded.Decode(bytes.NewReader(readFixture(t, "async-profiler-handmade.folded")), folded.ReadOptions{SampleType: "cpu/nanoseconds"})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, f := range p.Functions {
		found[p.String(f.Name)] = p.String(f.SystemName)
	}
	for name, sys := range map[string]string{
		"java/util/HashMap.get":    "java/util/HashMap.get_[j]",
		"com/example/Codec.decode": "com/example/Codec.decode_[i]",
		"ksys_write":               "ksys_write_[k]",
		"com/example/Server.write": "com/example/Server.write_[0]",
		"__libc_write":             "",
	} {
		if got, ok := found[name]; !ok || got != sys {
			t.Errorf("function %q: system name %q (present %v), want %q", name, got, ok, sys)
		}
	}
	if got := callstacks.TypeNames(p); got[0] != "cpu/nanoseconds" {
		t.Errorf("sample type %v", got)
	}
}

// TestGoCollapseLeaves: stackcollapse-go.pl keeps one frame per location
// (the innermost inlined function), pprofx every inlined frame; the totals
// per leaf function agree with the source profile's samples.
func TestGoCollapseLeaves(t *testing.T) {
	p, err := folded.Decode(bytes.NewReader(readFixture(t, "go-cpu.folded")), folded.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var src *viewtest.Fixture
	for _, fx := range viewtest.Fixtures(t) {
		if fx.Name == "go/cpu.pb.gz" {
			src = &fx
		}
	}
	leaves := func(p *model.Profile, ti int) map[string]int64 {
		set := callstacks.Aggregate(p, []int{ti}, callstacks.Options{})
		m := map[string]int64{}
		for i := 0; i < set.Len(); i++ {
			s := set.Stack(i)
			m[set.Name(s[len(s)-1])] += set.Values[0][i]
		}
		return m
	}
	got, want := leaves(p, 0), leaves(src.Profile, 0)
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("%d leaf functions, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("leaf %s: %d, want %d", k, got[k], v)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for in, want := range map[string]string{
		"a;b 1\nc;d\n":             "line 2: no value after the stack",
		"a;b 1\n\na;b 1.5\n":       `line 3: value "1.5" is not a whole number`,
		" 3\n":                     "line 1: a value with no stack",
		"a;b x\n":                  "line 1: no value after the stack",
		"\n\n":                     "no stacks",
		"a 99999999999999999999\n": "line 1: value 99999999999999999999 does not fit in 64 bits",
	} {
		_, err := folded.Decode(strings.NewReader(in), folded.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
	if _, err := folded.Decode(strings.NewReader("a 1\n"), folded.ReadOptions{SampleType: "/ns"}); err == nil {
		t.Errorf("a sample type without a name was taken")
	}
}

// TestEscape: names with ';' or line breaks are escaped, with a warning,
// and the output still has one stack per line.
func TestEscape(t *testing.T) {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
	for _, n := range []string{"main", "f(a;b)", "g\nh"} {
		p.Functions = append(p.Functions, model.Function{Name: b.String(n)})
		p.AddLocation(model.Location{Mapping: model.NoMapping}, model.Line{Function: int32(len(p.Functions) - 1)})
	}
	p.Samples = []model.Sample{model.NewSample(b.Stack([]int32{2, 1, 0}), []int64{7})}
	var out bytes.Buffer
	var warned []string
	if err := folded.Encode(&out, p, folded.WriteOptions{Warn: func(s string) { warned = append(warned, s) }}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "main;f(a|b);g h 7\n" {
		t.Errorf("got %q", got)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "escaped") {
		t.Errorf("warnings %q", warned)
	}
}

// TestDetect: folded text is told from other text inputs.
func TestDetect(t *testing.T) {
	long := strings.Repeat("java/lang/Thread.run;", 40) + "x 1\n"
	for in, want := range map[string]bool{
		"a;b;c 42\n":                true,
		"main 1":                    true,
		"a b c 3\r\nx 1\r\n":        true,
		long:                        true,
		"heap profile: 1: 2 [3: 4]": false,
		"{\"a\": 1}":                false,
		"hello world\n":             false,
		"a;b 1\x00":                 false,
		"42\n":                      false,
	} {
		res, err := detect.Sniff([]byte(in)[:min(len(in), detect.HeadSize)])
		if got := err == nil && res.Format == detect.Folded; got != want {
			t.Errorf("%.30q: folded %v, want %v (%v %v)", in, got, want, res.Format, err)
		}
	}
}

// TestFrameSuffix: a location whose JFR frame type is recorded gets
// async-profiler's suffixes (lines inlined into it "_[i]"); any other
// location, even one with the semantic conventions' frame type, none.
func TestFrameSuffix(t *testing.T) {
	frameType := model.Attribute{Key: "profile.frame.type", Value: model.Value{Kind: model.KindString, Str: "jvm"}}
	jfrLoc := func(typ string, lines int) (model.Location, []model.Attribute) {
		return model.Location{NumLines: uint32(lines)}, []model.Attribute{
			frameType, {Key: folded.AttrJFRFrameType, Value: model.Value{Kind: model.KindString, Str: typ}}}
	}
	type loc struct {
		l     model.Location
		attrs []model.Attribute
	}
	at := func(l model.Location, as []model.Attribute) loc { return loc{l, as} }
	cases := []struct {
		loc  loc
		k    int
		want string
	}{
		{at(jfrLoc("JIT compiled", 3)), 0, "_[i]"},
		{at(jfrLoc("JIT compiled", 3)), 1, "_[i]"},
		{at(jfrLoc("JIT compiled", 3)), 2, "_[j]"},
		{at(jfrLoc("Interpreted", 1)), 0, "_[0]"},
		{at(jfrLoc("C1 compiled", 1)), 0, "_[1]"},
		{at(jfrLoc("Kernel", 1)), 0, "_[k]"},
		{at(jfrLoc("Native", 1)), 0, ""},
		{at(jfrLoc("C++", 1)), 0, ""},
		{at(jfrLoc("Inlined", 1)), 0, "_[i]"},
		{at(model.Location{NumLines: 1}, []model.Attribute{
			{Key: "profile.frame.type", Value: model.Value{Kind: model.KindString, Str: "kernel"}}}), 0, ""},
		{at(model.Location{NumLines: 2}, nil), 0, ""},
	}
	for i, c := range cases {
		p := model.New()
		p.Locations = []model.Location{{}, c.loc.l}
		p.SetLocationAttrs(1, c.loc.attrs)
		if got := folded.FrameSuffix(p, 1, c.k); got != c.want {
			t.Errorf("case %d: FrameSuffix(line %d) = %q, want %q", i, c.k, got, c.want)
		}
	}
}
