package pprofextended

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	gp "github.com/google/pprof/profile"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/otlp/rich.pb.gz, testdata/size-ratios.golden)")

// richPprof is a pprof profile, built with google/pprof's profile package,
// that uses every pprof feature the OTLP round trip must keep: two sample
// types and a default one, string labels with several values for a key,
// numeric labels with and without units, a key whose unit differs between
// samples, comments, drop/keep frames, doc url, mappings with build ids and
// all four flags, unmapped locations, a location with inlined lines and
// columns, a folded location, stacks that share callers.
func richPprof() *gp.Profile {
	m1 := &gp.Mapping{ID: 1, Start: 0x400000, Limit: 0x900000, Offset: 0x1000, File: "/usr/bin/app", BuildID: "8a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
		HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	m2 := &gp.Mapping{ID: 2, Start: 0x7f1200000000, Limit: 0x7f1200200000, File: "/lib/x86_64-linux-gnu/libc.so.6", BuildID: "c0ffee", HasFunctions: true}
	fn := func(id uint64, name, sys, file string, start int64) *gp.Function {
		return &gp.Function{ID: id, Name: name, SystemName: sys, Filename: file, StartLine: start}
	}
	fMain := fn(1, "main.main", "main.main", "/src/app/main.go", 10)
	fServe := fn(2, "main.serve", "main.serve", "/src/app/serve.go", 40)
	fParse := fn(3, "main.parse", "main.parse", "/src/app/parse.go", 70)
	fInl := fn(4, "strconv.Atoi", "strconv.Atoi", "/go/src/strconv/atoi.go", 200)
	fMemcpy := fn(5, "__memmove_avx_unaligned_erms", "__memmove_avx_unaligned_erms", "", 0)
	fJIT := fn(6, "[jit] handler", "", "", 0)
	loc := func(id uint64, m *gp.Mapping, addr uint64, lines ...gp.Line) *gp.Location {
		return &gp.Location{ID: id, Mapping: m, Address: addr, Line: lines}
	}
	lMain := loc(1, m1, 0x401234, gp.Line{Function: fMain, Line: 15, Column: 2})
	lServe := loc(2, m1, 0x402345, gp.Line{Function: fServe, Line: 52, Column: 9})
	lParse := loc(3, m1, 0x403456, gp.Line{Function: fInl, Line: 210, Column: 14}, gp.Line{Function: fParse, Line: 77, Column: 5})
	lMemcpy := loc(4, m2, 0x7f1200012345, gp.Line{Function: fMemcpy})
	lMemcpy.IsFolded = true
	lJIT := loc(5, nil, 0xdeadbeef, gp.Line{Function: fJIT})
	lRaw := loc(6, nil, 0xcafe0000)
	p := &gp.Profile{
		SampleType:        []*gp.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		DefaultSampleType: "cpu",
		PeriodType:        &gp.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:            10000000,
		TimeNanos:         1763700000123456789,
		DurationNanos:     10_000_000_000,
		Comments:          []string{"hand-built for pprofx's OTLP tests", "second comment: ünïcödé"},
		DocURL:            "https://example.com/profiles/doc",
		DropFrames:        `runtime\..*`,
		KeepFrames:        `runtime\.main`,
		Mapping:           []*gp.Mapping{m1, m2},
		Function:          []*gp.Function{fMain, fServe, fParse, fInl, fMemcpy, fJIT},
		Location:          []*gp.Location{lMain, lServe, lParse, lMemcpy, lJIT, lRaw},
	}
	add := func(locs []*gp.Location, v []int64, str map[string][]string, num map[string][]int64, unit map[string][]string) {
		p.Sample = append(p.Sample, &gp.Sample{Location: locs, Value: v, Label: str, NumLabel: num, NumUnit: unit})
	}
	add([]*gp.Location{lParse, lServe, lMain}, []int64{1, 10000000}, map[string][]string{"handler": {"/api"}}, map[string][]int64{"request_bytes": {512}}, map[string][]string{"request_bytes": {"bytes"}})
	add([]*gp.Location{lServe, lMain}, []int64{3, 30000000}, map[string][]string{"handler": {"/api", "/v2/api"}}, nil, nil)
	add([]*gp.Location{lMemcpy, lParse, lServe, lMain}, []int64{2, 20000000}, nil, map[string][]int64{"request_bytes": {4, 8}}, map[string][]string{"request_bytes": {"kilobytes", "kilobytes"}})
	add([]*gp.Location{lJIT, lRaw, lMain}, []int64{1, 10000000}, map[string][]string{"thread": {"worker-1"}}, map[string][]int64{"tid": {4242}}, nil)
	add([]*gp.Location{lParse, lServe, lMain}, []int64{5, 50000000}, map[string][]string{"handler": {"/api"}}, map[string][]int64{"request_bytes": {512}}, map[string][]string{"request_bytes": {"bytes"}})
	add([]*gp.Location{lMain}, []int64{1, 10000000}, nil, nil, nil)
	add([]*gp.Location{lRaw}, []int64{0, -1}, nil, map[string][]int64{"tid": {-7}, "request_bytes": {1}}, map[string][]string{"request_bytes": {"bytes"}})
	add([]*gp.Location{lParse, lServe, lMain}, []int64{1, 10000000}, map[string][]string{"handler": {"/api"}}, map[string][]int64{"request_bytes": {512}}, map[string][]string{"request_bytes": {"bytes"}})
	return p
}

// TestRichFixture keeps testdata/otlp/rich.pb.gz what richPprof builds
// (go test ./internal/codec/pprofextended -run TestRichFixture -update rewrites it).
func TestRichFixture(t *testing.T) {
	path := filepath.Join("..", "..", "..", "testdata", "otlp", "rich.pb.gz")
	p := richPprof()
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	got, err := gp.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != p.String() {
		t.Errorf("%s differs from richPprof(); run with -update", path)
	}
}
