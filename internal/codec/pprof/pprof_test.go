package pprof

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// fixtures returns every pprof file under testdata that a real producer wrote.
func fixtures(t testing.TB) []string {
	files, err := filepath.Glob("../../../testdata/go/*.pb.gz")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	extra, _ := filepath.Glob("../../../testdata/pprof/*.pb.gz")
	return append(files, extra...)
}

func roundTrip(t *testing.T, data []byte, opts EncodeOptions) []byte {
	t.Helper()
	p, err := Decode(data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	var out bytes.Buffer
	if err := Encode(&out, p, opts); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return out.Bytes()
}

func TestRoundTripFixtures(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			want, err := profile.ParseData(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Sample) == 0 {
				t.Fatal("fixture has no samples")
			}
			for _, raw := range []bool{false, true} {
				out := roundTrip(t, data, EncodeOptions{Raw: raw})
				if !raw && !IsGzip(out) {
					t.Fatal("default output is not gzipped")
				}
				if raw && IsGzip(out) {
					t.Fatal("raw output is gzipped")
				}
				got, err := profile.ParseData(out)
				if err != nil {
					t.Fatalf("google/pprof cannot read our output: %v", err)
				}
				if d := pprofcmp.Diff(want, got); d != "" {
					t.Errorf("raw=%v: round trip differs:\n%s", raw, d)
				}
				// And the table entries come back in order.
				if len(got.Location) != len(want.Location) || len(got.Function) != len(want.Function) {
					t.Errorf("tables: %d/%d locations, %d/%d functions", len(got.Location), len(want.Location), len(got.Function), len(want.Function))
				}
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, name := range fixtures(t) {
		data, _ := os.ReadFile(name)
		a := roundTrip(t, data, EncodeOptions{})
		b := roundTrip(t, data, EncodeOptions{})
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two encodings differ", name)
		}
		// Re-encoding our own output is a fixed point.
		c := roundTrip(t, a, EncodeOptions{})
		if !bytes.Equal(a, c) {
			t.Errorf("%s: encode(decode(encode(x))) != encode(x)", name)
		}
	}
}

// rich is a profile with every field pprof has, built with google/pprof's
// own package.
func rich() *profile.Profile {
	m1 := &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x500000, Offset: 0x1000, File: "/bin/app", BuildID: "abc123", HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	m2 := &profile.Mapping{ID: 7, Start: 0x7f0000, Limit: 0x7f1000, File: "/lib/libc.so", BuildID: "def"}
	f1 := &profile.Function{ID: 10, Name: "main", SystemName: "_main", Filename: "main.c", StartLine: 3}
	f2 := &profile.Function{ID: 20, Name: "inlined", Filename: "x.h", StartLine: 9}
	l1 := &profile.Location{ID: 100, Mapping: m1, Address: 0x401000, Line: []profile.Line{{Function: f2, Line: 11, Column: 4}, {Function: f1, Line: 5, Column: 2}}}
	l2 := &profile.Location{ID: 5, Mapping: m2, Address: 0x7f0010, IsFolded: true, Line: []profile.Line{{Function: f1, Line: 6}}}
	l3 := &profile.Location{ID: 6, Address: 0xdead} // unmapped, unsymbolized
	return &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "alloc", Unit: "count"}, {Type: "space", Unit: "bytes"}},
		DefaultSampleType: "space",
		Sample: []*profile.Sample{
			{Location: []*profile.Location{l1, l2, l3}, Value: []int64{1, 100},
				Label:    map[string][]string{"k": {"a", "b"}, "z": {"q"}},
				NumLabel: map[string][]int64{"n": {1, 2}, "size": {64}}, NumUnit: map[string][]string{"n": {"bytes", "seconds"}, "size": {""}}},
			{Location: []*profile.Location{l1, l2, l3}, Value: []int64{1, 100}, Label: map[string][]string{"k": {"a", "b"}, "z": {"q"}},
				NumLabel: map[string][]int64{"n": {1, 2}, "size": {64}}, NumUnit: map[string][]string{"n": {"bytes", "seconds"}, "size": {""}}},
			{Location: []*profile.Location{l3}, Value: []int64{-3, 0}},
			{Location: []*profile.Location{l2, l1}, Value: []int64{2, 1 << 40}, NumLabel: map[string][]int64{"n": {5}}, NumUnit: map[string][]string{"n": {"kilobytes"}}},
		},
		Mapping:       []*profile.Mapping{m1, m2},
		Location:      []*profile.Location{l1, l2, l3},
		Function:      []*profile.Function{f1, f2},
		Comments:      []string{"first comment", "second"},
		DocURL:        "https://example.com/doc",
		DropFrames:    "runtime\\..*",
		KeepFrames:    "runtime\\.keep",
		TimeNanos:     1700000000123456789,
		DurationNanos: 5e9,
		PeriodType:    &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:        524288,
	}
}

func TestRoundTripRich(t *testing.T) {
	want := rich()
	var buf bytes.Buffer
	if err := want.Write(&buf); err != nil {
		t.Fatal(err)
	}
	want, err := profile.ParseData(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	out := roundTrip(t, buf.Bytes(), EncodeOptions{})
	got, err := profile.ParseData(out)
	if err != nil {
		t.Fatal(err)
	}
	if d := pprofcmp.Diff(want, got); d != "" {
		t.Fatalf("rich round trip differs:\n%s", d)
	}
	// The model keeps duplicate samples apart and shares their stack.
	p, _ := Decode(buf.Bytes())
	if len(p.Samples) != 4 || p.Samples[0].Stack != p.Samples[1].Stack || p.Stacks.Len() != 3 {
		t.Fatalf("samples %d, stacks %d", len(p.Samples), p.Stacks.Len())
	}
	if p.Samples[0].LabelSet == 0 || p.Samples[0].LabelSet != p.Samples[1].LabelSet {
		t.Fatalf("label sets %d %d", p.Samples[0].LabelSet, p.Samples[1].LabelSet)
	}
	if p.Locations[2].Mapping != model.NoMapping {
		t.Fatal("unmapped location got a mapping")
	}
}

func TestWarnsAboutWhatPprofCannotHold(t *testing.T) {
	data, _ := os.ReadFile(fixtures(t)[0])
	p, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	warn := func(m string) { warned = append(warned, m) }
	if err := Encode(&bytes.Buffer{}, p, EncodeOptions{Warn: warn}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 0 {
		t.Fatalf("a plain pprof profile warned: %v", warned)
	}
	p.Links = []model.Link{{TraceID: make([]byte, 16), SpanID: make([]byte, 8)}}
	p.Samples[0].Link = 0
	p.Samples[1].SetTimestamps([]uint64{1})
	p.Resource.Attributes = []model.Attribute{{Key: "service.name", Value: model.Value{Kind: model.KindString, Str: "x"}}}
	frame := model.Attribute{Key: "profile.frame.type", Value: model.Value{Kind: model.KindString, Str: "native"}}
	p.SetLocationAttrs(0, []model.Attribute{frame})
	p.SetLocationAttrs(1, []model.Attribute{frame})
	p.Mappings[0].Attributes = []model.Attribute{{Key: "process.executable.build_id.htlhash", Value: model.Value{Kind: model.KindString, Str: "ab"}}}
	if err := Encode(&bytes.Buffer{}, p, EncodeOptions{Warn: warn}); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(warned, "\n")
	for _, w := range []string{"links", "timestamps", "resource attributes", "location attributes (profile.frame.type)",
		"mapping attributes (process.executable.build_id.htlhash)"} {
		if !strings.Contains(all, w) {
			t.Errorf("no warning about %s in %q", w, all)
		}
	}
	if len(warned) != 1 {
		t.Errorf("%d warnings, want one naming every kind: %q", len(warned), all)
	}
}

func TestDecodeErrors(t *testing.T) {
	data, _ := os.ReadFile(fixtures(t)[0])
	raw, err := Gunzip(bytes.NewReader(data), DefaultMaxSize)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "empty profile"},
		{"truncated", raw[:len(raw)/2], "byte offset"},
		{"garbage", []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"), "byte offset"},
		{"truncated gzip", data[:len(data)/2], "gzip"},
		{"bad string index", []byte{0x38, 0x05, 0x32, 0x00}, "drop_frames: string index 5 out of range"},
		{"no string table", []byte{0x48, 0x01}, "no string table"},
		{"missing location", []byte{0x12, 0x02, 0x08, 0x07, 0x32, 0x00}, "location id 7 not found"},
		{"missing function", []byte{0x22, 0x06, 0x08, 0x01, 0x22, 0x02, 0x08, 0x09, 0x32, 0x00}, "function id 9 not found"},
		{"value count", []byte{0x0a, 0x00, 0x12, 0x00, 0x32, 0x00}, "0 values for 1 sample types"},
		{"duplicate id", []byte{0x2a, 0x02, 0x08, 0x02, 0x2a, 0x02, 0x08, 0x02, 0x32, 0x00}, "repeats id 2"},
		{"huge length", []byte{0x12, 0xff, 0xff, 0xff, 0xff, 0x0f}, "beyond the"},
	}
	for _, c := range cases {
		_, err := Decode(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", c.name, err)
		}
	}
}

func TestGunzipLimit(t *testing.T) {
	var buf bytes.Buffer
	p := rich()
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := Gunzip(bytes.NewReader(buf.Bytes()), 10); err == nil || !strings.Contains(err.Error(), "exceeds the limit of 10 bytes") {
		t.Fatalf("err = %v", err)
	}
}

// Many sample types times many samples must not reserve their product:
// allocation stays proportional to the input.
func TestNoQuadraticAllocation(t *testing.T) {
	var in []byte
	for i := 0; i < 20000; i++ {
		in = append(in, 0x0a, 0x00) // empty sample type
	}
	for i := 0; i < 20000; i++ {
		in = append(in, 0x12, 0x00) // empty sample
	}
	in = append(in, 0x32, 0x00)
	allocs := testing.AllocsPerRun(1, func() { DecodeRaw(in) })
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	_, err := DecodeRaw(in)
	runtime.ReadMemStats(&ms1)
	if err == nil || !strings.Contains(err.Error(), "0 values for 20000 sample types") {
		t.Fatalf("err = %v", err)
	}
	if got := ms1.TotalAlloc - ms0.TotalAlloc; got > 100*uint64(len(in)) {
		t.Fatalf("decoding %d bytes allocated %d bytes (%v allocs)", len(in), got, allocs)
	}
}

// A gzip trailer that claims a huge decompressed size (it is only checked
// at the end) must not size an allocation: a 40-byte file claiming almost
// 1 GiB is read with a small buffer and fails on the size mismatch.
func TestGzipSizeHintBounded(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte{0x0a, 0x02, 0x08, 0x01})
	zw.Close()
	data := buf.Bytes()
	binary.LittleEndian.PutUint32(data[len(data)-4:], 1<<30-1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Decode(data)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a wrong size in the trailer was accepted")
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Fatalf("decoding a %d-byte file allocated %d bytes", len(data), got)
	}
}

// TestLineWithoutFunction: google/pprof rejects a line without a
// function_id, so a model line with NoFunction is written naming an empty
// function, with one warning. The fixture is Go's threadcreate profile,
// whose one line names an all-empty function; here that line names none.
func TestLineWithoutFunction(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/go/threadcreate.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	want, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range p.Locations {
		lines := p.LocationLines(i)
		for j := range lines {
			lines[j].Function = model.NoFunction
			n++
		}
	}
	if n == 0 {
		t.Fatal("the fixture has no lines")
	}
	var warned []string
	var out bytes.Buffer
	if err := Encode(&out, p, EncodeOptions{Warn: func(s string) { warned = append(warned, s) }}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "without a function") {
		t.Errorf("warnings %q, want one about lines without a function", warned)
	}
	got, err := profile.ParseData(out.Bytes()) // runs CheckValid
	if err != nil {
		t.Fatalf("google/pprof: %v", err)
	}
	// The source's lines name an all-empty function too: the same profile.
	if d := pprofcmp.Diff(want, got); d != "" {
		t.Error(d)
	}
	if len(got.Function) != len(p.Functions)+1 {
		t.Errorf("%d functions written, want the model's %d and one empty", len(got.Function), len(p.Functions))
	}
}

// Without a size hint, the decompressed bytes are read into a buffer that
// doubles as it fills: it ends at most twice what was read.
func TestGunzipGrowsByDoubling(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	data := bytes.Repeat([]byte("0123456789abcdef"), 300_000) // 4.6 MiB
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := Gunzip(bytes.NewReader(buf.Bytes()), DefaultMaxSize)
	if err != nil || !bytes.Equal(raw, data) {
		t.Fatalf("err = %v, %d bytes, want %d", err, len(raw), len(data))
	}
	if cap(raw) > 2*len(raw) {
		t.Errorf("a buffer of %d bytes for %d read, want at most twice", cap(raw), len(raw))
	}
}
