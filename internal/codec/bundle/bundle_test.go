package bundle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/modeldump"
)

// handBuilt returns a model profile that uses every field of the model:
// OpenTelemetry fields, links, timestamps, multi-valued and numeric labels
// with units, duplicate samples, unmapped and folded locations, columns,
// inline frames, and entries nothing references. variant changes the
// mapping's build id and has_* flags, so two variants share the file name
// but not the mapping.
func handBuilt(variant int) *model.Profile {
	b := model.NewBuilder()
	p := b.P
	s := b.String
	p.SampleTypes = []model.ValueType{
		{Type: s("alloc_objects"), Unit: s("count"), AggregationTemporality: 1},
		{Type: s("alloc_space"), Unit: s("bytes"), AggregationTemporality: 2},
	}
	p.DefaultSampleType = s("alloc_space")
	p.PeriodType = model.ValueType{Type: s("space"), Unit: s("bytes")}
	p.Period = 524288
	p.TimeNanos = 1700000000123456789 + int64(variant)
	p.DurationNanos = 1e9
	p.Comments = []int32{s("first comment"), s("second"), s("first comment")}
	p.DropFrames = s("runtime\\..*")
	p.KeepFrames = s("main\\..*")
	p.DocURL = s("https://example.com/doc")
	s("an unreferenced string")
	p.Mappings = []model.Mapping{
		{Start: 0x400000, Limit: 0x800000, Offset: 0x1000, File: s("/usr/bin/app"), BuildID: s(fmt.Sprintf("build-%d", variant)),
			BuildIDKind: int32(variant % 2), HasFunctions: true, HasFilenames: variant == 0, HasLineNumbers: true, HasInlineFrames: variant != 0},
		{Start: 0x7f0000, Limit: 0x7f8000, File: s("/lib/libc.so.6"), HasFunctions: true, Attributes: []model.Attribute{
			{Key: "process.executable.build_id.htlhash", Value: model.Value{Kind: model.KindString, Str: fmt.Sprintf("htl-%d", variant)}},
			{Key: "process.executable.build_id.go", Value: model.Value{Kind: model.KindString, Str: "go-id"}},
			{Key: "attr.size", Value: model.Value{Kind: model.KindInt, Int: 4096}, Unit: "By"}}},
		{Start: 0x9000, Limit: 0xa000, File: s("[vdso]")},                                 // referenced by no location
		{Start: 0x7f0000, Limit: 0x7f8000, File: s("/lib/libc.so.6"), HasFunctions: true}, // duplicate
	}
	p.Functions = []model.Function{
		{Name: s("main.main"), SystemName: s("main.main"), Filename: s("/src/main.go"), StartLine: 10},
		{Name: s("main.work"), SystemName: s("_ZN4main4workE"), Filename: s("/src/work.go"), StartLine: 20},
		{Name: s("inlined.helper"), Filename: s("/src/helper.go")},
		{Name: s("malloc"), Filename: s("")},
		{Name: s("unreferenced.fn")},
	}
	p.AddLocation(model.Location{Address: 0x401000, Mapping: 0}, model.Line{Function: 0, Line: 12})
	p.SetColumns(&p.Locations[0], 3)
	p.AddLocation(model.Location{Address: 0x402000, Mapping: 0}, model.Line{Function: 2, Line: 5}, model.Line{Function: 1, Line: 25})
	p.SetColumns(&p.Locations[1], 9)
	p.AddLocation(model.Location{Address: 0x7f1234, Mapping: 1, IsFolded: true}, model.Line{Function: 3})
	p.AddLocation(model.Location{Address: 0xdeadbeef, Mapping: model.NoMapping})                                                   // unmapped, no lines
	p.SetColumns(&p.Locations[p.AddLocation(model.Location{Address: 0x401000, Mapping: 0}, model.Line{Function: 0, Line: 12})], 3) // duplicate of 0
	p.AddLocation(model.Location{Address: 0x555, Mapping: 3})                                                                      // uses the duplicate mapping
	p.AddLocation(model.Location{Address: 0x999, Mapping: 0})                                                                      // unreferenced
	p.SetLocationAttrs(2, []model.Attribute{{Key: "profile.frame.type", Value: model.Value{Kind: model.KindString, Str: "native"}},
		{Key: "attr.weight", Value: model.Value{Kind: model.KindDouble, Double: 0.5}, Unit: "1"}})
	p.Links = []model.Link{
		{TraceID: bytes.Repeat([]byte{1}, 16), SpanID: bytes.Repeat([]byte{2}, 8)},
		{TraceID: bytes.Repeat([]byte{3}, 16), SpanID: bytes.Repeat([]byte{4}, 8)},
	}
	st1 := b.Stack([]int32{2, 1, 0})
	st2 := b.Stack([]int32{3, 4})
	st3 := b.Stack([]int32{1, 0})
	st4 := b.Stack([]int32{5, 2, 1, 0})
	b.Stack([]int32{6}) // unreferenced
	multi := b.LabelSet([]model.Label{
		{Key: s("worker"), Str: s("b")}, {Key: s("worker"), Str: s("a")},
		{Key: s("bytes"), Num: 4096, NumUnit: s("bytes")}, {Key: s("bytes"), Num: -7, NumUnit: s("bytes")},
		{Key: s("count"), Num: 3},
	})
	other := b.LabelSet([]model.Label{{Key: s("worker"), Str: s("a")}, {Key: s("worker"), Str: s("b")}})
	// Sample attributes pprof's labels cannot hold, with and without labels.
	typed := b.LabelSetWith([]model.Label{{Key: s("worker"), Str: s("a")}}, []model.Attribute{
		{Key: "flag", Value: model.Value{Kind: model.KindBool, Bool: true}},
		{Key: "ratio", Value: model.Value{Kind: model.KindDouble, Double: 0.25}, Unit: "1"},
	})
	onlyAttrs := b.LabelSetWith(nil, []model.Attribute{
		{Key: "m", Value: model.Value{Kind: model.KindMap, Map: []model.Attribute{{Key: "k", Value: model.Value{Kind: model.KindBytes, Bytes: []byte{7}}}}}},
		{Key: "empty", Value: model.Value{Kind: model.KindString}},
	})
	p.Samples = []model.Sample{
		sample(st1, []int64{1, 512}, multi, 0, []uint64{100, 90, 1 << 63}),
		sample(st2, []int64{-3, 0}, 0, model.NoLink, nil),
		sample(st1, []int64{1, 512}, multi, 0, []uint64{100, 90, 1 << 63}), // duplicate
		sample(st3, []int64{int64(variant), 1 << 40}, other, 1, nil),
		sample(st4, []int64{7, 8}, 0, model.NoLink, []uint64{5}),
		sample(st2, []int64{-3, 0}, 0, model.NoLink, nil),
		sample(b.Stack(nil), []int64{1, 1}, other, model.NoLink, nil), // empty stack
		sample(st3, []int64{2, 2}, typed, model.NoLink, nil),
		sample(st3, []int64{3, 3}, onlyAttrs, model.NoLink, nil),
	}
	p.ProfileID = bytes.Repeat([]byte{byte(variant + 9)}, 16)
	p.StartTimeUnixNano = 1700000000000000000
	p.EndTimeUnixNano = 1700000001000000000
	p.Attributes = []model.Attribute{
		{Key: "s", Value: model.Value{Kind: model.KindString, Str: "x"}},
		{Key: "b", Value: model.Value{Kind: model.KindBool, Bool: true}},
		{Key: "i", Value: model.Value{Kind: model.KindInt, Int: -42}},
		{Key: "d", Value: model.Value{Kind: model.KindDouble, Double: 3.25}, Unit: "s"},
		{Key: "y", Value: model.Value{Kind: model.KindBytes, Bytes: []byte{0, 1}}},
		{Key: "a", Value: model.Value{Kind: model.KindArray, Array: []model.Value{{Kind: model.KindInt, Int: 1}, {Kind: model.KindEmpty}}}},
		{Key: "m", Value: model.Value{Kind: model.KindMap, Map: []model.Attribute{{Key: "k", Value: model.Value{Kind: model.KindString, Str: "v"}}}}},
	}
	p.DroppedAttributesCount = 2
	p.Resource = model.Resource{Attributes: []model.Attribute{{Key: "service.name", Value: model.Value{Kind: model.KindString, Str: "svc"}}},
		DroppedAttributesCount: 1, SchemaURL: "https://opentelemetry.io/schemas/1.0"}
	p.Scope = model.Scope{Name: "pprofx", Version: "v1", DroppedAttributesCount: 3, SchemaURL: "scope-schema",
		Attributes: []model.Attribute{{Key: "k", Value: model.Value{Kind: model.KindInt, Int: 1}}}}
	p.OriginalPayloadFormat = "pprof"
	p.OriginalPayload = []byte("payload")
	if err := p.Validate(); err != nil {
		panic(err)
	}
	return p
}

func unpackAll(t testing.TB, data []byte) []*model.Profile {
	t.Helper()
	r, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	ps := make([]*model.Profile, r.Len())
	for i := range ps {
		if ps[i], err = r.Profile(i); err != nil {
			t.Fatal(err)
		}
	}
	return ps
}

func checkRoundTrip(t *testing.T, ps []*model.Profile) []byte {
	t.Helper()
	data, err := bundleOf(ps...)
	if err != nil {
		t.Fatal(err)
	}
	got := unpackAll(t, data)
	if len(got) != len(ps) {
		t.Fatalf("%d profiles back, want %d", len(got), len(ps))
	}
	for i := range ps {
		if d := diffProfiles(ps[i], got[i]); d != "" {
			t.Errorf("profile %d: %s", i, d)
		}
	}
	return data
}

func TestRoundTripHandBuilt(t *testing.T) {
	checkRoundTrip(t, []*model.Profile{handBuilt(0), handBuilt(1), model.New(), handBuilt(2)})
}

func TestUnreferencedDropped(t *testing.T) {
	data, err := bundleOf(handBuilt(0))
	if err != nil {
		t.Fatal(err)
	}
	p := unpackAll(t, data)[0]
	for _, s := range p.Strings {
		if s == "an unreferenced string" {
			t.Error("unreferenced string kept")
		}
	}
	if len(p.Functions) != 4 || len(p.Locations) != 5 || p.Stacks.Len() != 5 || len(p.Mappings) != 4 {
		t.Errorf("got %d functions, %d locations, %d stacks, %d mappings; want 4, 5 (duplicate merged), 5, 4 (all kept)",
			len(p.Functions), len(p.Locations), p.Stacks.Len(), len(p.Mappings))
	}
}

func TestEntries(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	if err := w.Add(Entry{Name: "a/heap.pb.gz", SourceFormat: "pprof", Samples: 99}, handBuilt(0)); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(Entry{Name: "empty", SourceFormat: "otlp"}, model.New()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	e := r.Entry(0)
	want := "a/heap.pb.gz pprof [alloc_objects/count alloc_space/bytes] 9 1700000000123456789 1000000000"
	if got := fmt.Sprint(e.Name, " ", e.SourceFormat, " ", e.SampleTypes, " ", e.Samples, " ", e.TimeNanos, " ", e.DurationNanos); got != want {
		t.Errorf("entry 0 = %s, want %s", got, want)
	}
	if e := r.Entry(1); e.Name != "empty" || e.SourceFormat != "otlp" || e.Samples != 0 || len(e.SampleTypes) != 0 {
		t.Errorf("entry 1 = %+v", e)
	}
}

func TestEmptyBundle(t *testing.T) {
	r := openBundleOf(t)
	if r.Len() != 0 {
		t.Fatalf("Len = %d", r.Len())
	}
	if _, err := r.Profile(0); err == nil || !strings.Contains(err.Error(), "index 0 out of range (bundle holds 0 profiles") {
		t.Errorf("Profile(0) of empty bundle: %v", err)
	}
}

// corpusFiles lists the bundle corpus: the committed testdata/corpus
// (scripts/bench/bundle-corpus.sh made it), or the directory $PPROFX_CORPUS.
func corpusFiles(t testing.TB) []string {
	dir := os.Getenv("PPROFX_CORPUS")
	if dir == "" {
		dir = "../../../testdata/corpus"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pb.gz"))
	if len(files) == 0 {
		t.Fatalf("no corpus in %s (scripts/bench/bundle-corpus.sh makes one)", dir)
	}
	return files
}

func TestDeterministicAndAssociative(t *testing.T) {
	a, b, c := handBuilt(0), handBuilt(1), handBuilt(2)
	if files, _ := filepath.Glob("../../../testdata/corpus/*.pb.gz"); len(files) >= 3 {
		a, b, c = decodeFile(t, files[0]), decodeFile(t, files[len(files)-1]), handBuilt(1)
	}
	abc, err := bundleOf(a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := bundleOf(a, b, c)
	if !bytes.Equal(abc, again) {
		t.Fatal("the same profiles gave different bundles")
	}
	// merge(merge(a, b), c) and merge(a, merge(b, c)), flattening bundles
	// as the CLI does.
	ab, _ := bundleOf(a, b)
	bc, _ := bundleOf(b, c)
	for _, tc := range []struct {
		name  string
		parts [][]byte
	}{{"(ab)c", [][]byte{ab, nil}}, {"a(bc)", [][]byte{nil, bc}}} {
		var buf bytes.Buffer
		w := NewWriter(&buf, WriterOptions{})
		add := func(p *model.Profile, name string) {
			if err := w.Add(Entry{Name: name, SourceFormat: "pprof"}, p); err != nil {
				t.Fatal(err)
			}
		}
		if tc.parts[0] != nil {
			r, err := Open(bytes.NewReader(ab), int64(len(ab)))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.AddBundle(r); err != nil {
				t.Fatal(err)
			}
			add(c, "p2")
		} else {
			add(a, "p0")
			r, err := Open(bytes.NewReader(bc), int64(len(bc)))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < r.Len(); i++ {
				p, err := r.Profile(i)
				if err != nil {
					t.Fatal(err)
				}
				add(p, fmt.Sprintf("p%d", i+1))
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), abc) {
			t.Errorf("%s: %d bytes, differs from merge(a,b,c) (%d bytes)", tc.name, buf.Len(), len(abc))
		}
	}
}

// ProfileLast gives the profile Profile gives, and the tables it releases
// as it reads are read again by the profiles read after it.
func TestProfileLast(t *testing.T) {
	ps := []*model.Profile{handBuilt(0), handBuilt(1), model.New(), handBuilt(2)}
	r := openBundleOf(t, ps...)
	for _, i := range []int{3, 0, 1, 2, 3} {
		want, err := r.Profile(i)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.ProfileLast(i)
		if err != nil {
			t.Fatal(err)
		}
		// DeepEqual sees a sample's values and timestamps by their first
		// element only (the model holds a pointer to it): Describe has all.
		if !reflect.DeepEqual(got, want) || modeldump.Describe(got) != modeldump.Describe(want) {
			t.Errorf("profile %d: ProfileLast differs from Profile: %s", i, diffProfiles(want, got))
		}
		if d := diffProfiles(ps[i], got); d != "" {
			t.Errorf("profile %d: %s", i, d)
		}
	}
}

// Reads of one Reader at once, one of each batch by ProfileLast,
// give what reads one at a time give: ProfileLast takes the tables'
// arrays as they are only when no other read uses them.
func TestProfileLastConcurrent(t *testing.T) {
	// Each profile uses every shared line, as a profile taken as it is.
	ps := []*model.Profile{handBuilt(0), handBuilt(0), handBuilt(0)}
	r := openBundleOf(t, ps...)
	for batch := 0; batch < 50; batch++ {
		var wg sync.WaitGroup
		got := make([]*model.Profile, 4*len(ps))
		errs := make([]error, len(got))
		for k := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				i := k % len(ps)
				if k == len(ps) {
					got[k], errs[k] = r.ProfileLast(i)
				} else {
					got[k], errs[k] = r.Profile(i)
				}
			}()
		}
		wg.Wait()
		for k, p := range got {
			if errs[k] != nil {
				t.Fatalf("batch %d, read %d: %v", batch, k, errs[k])
			}
			if d := diffProfiles(ps[k%len(ps)], p); d != "" {
				t.Fatalf("batch %d, read %d (profile %d): %s", batch, k, k%len(ps), d)
			}
		}
	}
}

// A profile read last that uses most of the shared lines takes them as
// they are: its locations' lines are slices of the tables' array. Using
// every shared function, it takes the tables' functions too.
func TestProfileLastTakesLines(t *testing.T) {
	p := handBuilt(0)
	r := openBundleOf(t, p)
	tb, err := r.tables()
	if err != nil {
		t.Fatal(err)
	}
	lines := tb.lines
	got, err := r.ProfileLast(0)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffProfiles(p, got); d != "" {
		t.Fatal(d)
	}
	if len(lines) == 0 || len(got.Lines) != len(lines) || &got.Lines[0] != &lines[0] {
		t.Errorf("the profile's lines (%d) are not the tables' (%d lines)", len(got.Lines), len(lines))
	}
	if len(got.Functions) != len(tb.functions) || &got.Functions[0] != &tb.functions[0] {
		t.Errorf("the profile's %d functions are not the tables' %d", len(got.Functions), len(tb.functions))
	}
}

func TestPermute(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200; n++ {
		xs := make([]int, n)
		to := make([]int32, n)
		for i, k := range rnd.Perm(n) {
			xs[i] = i
			to[i] = int32(k + 1)
		}
		orig := slices.Clone(to)
		permute(xs, to)
		for i := range n {
			if xs[orig[i]-1] != i {
				t.Fatalf("n=%d: element %d not at %d: %v (to %v)", n, i, orig[i]-1, xs, orig)
			}
		}
		if !slices.Equal(to, orig) {
			t.Fatalf("n=%d: to changed: %v, was %v", n, to, orig)
		}
	}
}

// Locations alike but for a line's column stay apart, their columns kept
// by every way of reading; a bundle whose lines have no column holds no
// table of them.
func TestColumns(t *testing.T) {
	b := model.NewBuilder()
	p := b.P
	p.SampleTypes = []model.ValueType{{Type: b.String("samples"), Unit: b.String("count")}}
	p.Functions = []model.Function{{Name: b.String("f")}, {Name: b.String("g")}}
	for _, cols := range [][]int64{{0, 0}, {0, 4}, {3, 0}} {
		i := p.AddLocation(model.Location{Address: 0x10, Mapping: model.NoMapping},
			model.Line{Function: 0, Line: 1}, model.Line{Function: 1, Line: 2})
		p.SetColumns(&p.Locations[i], cols...)
	}
	for i := range p.Locations {
		p.Samples = append(p.Samples, model.NewSample(b.Stack([]int32{int32(i)}), []int64{int64(i + 1)}))
	}
	checkRoundTrip(t, []*model.Profile{p})
	r := openBundleOf(t, p)
	got, err := r.ProfileLast(0)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffProfiles(p, got); d != "" {
		t.Fatal(d)
	}

	noCols := handBuilt(0)
	noCols.Columns = nil
	r = openBundleOf(t, noCols)
	tb, err := r.tables()
	if err != nil {
		t.Fatal(err)
	}
	if tb.columns != nil {
		t.Errorf("lines without columns read into a table of %d columns", len(tb.columns))
	}
	if got, err := r.ProfileLast(0); err != nil || got.Columns != nil {
		t.Errorf("profile read: %v, columns %v, want none", err, got.Columns)
	}
}

// sample is a sample of the given fields.
func sample(stack int32, values []int64, labelSet, link int32, ts []uint64) model.Sample {
	s := model.NewSample(stack, values)
	s.LabelSet, s.Link = labelSet, link
	s.SetTimestamps(ts)
	return s
}
