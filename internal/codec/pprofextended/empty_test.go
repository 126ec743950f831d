package pprofextended

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	gp "github.com/google/pprof/profile"
	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// emptyEntriesPprof is a pprof profile, built with google/pprof's profile
// package, whose tables hold entries with every field empty: mapping 1 is
// all zero and comes first (so it is the first mapping written), functions
// 2 and 3 are all empty (2 names a line with a line number, as pprof's
// symbolizer writes for an address it finds no name for; 3 is used after
// named ones). withUnmapped adds a location with no mapping.
func emptyEntriesPprof(withUnmapped bool) *gp.Profile {
	zeroMap := &gp.Mapping{ID: 1}
	app := &gp.Mapping{ID: 2, Start: 0x1000, Limit: 0x2000, File: "a.out", HasFunctions: true}
	fMain := &gp.Function{ID: 1, Name: "main", SystemName: "main", Filename: "main.c"}
	fEmpty := &gp.Function{ID: 2}
	fEmpty2 := &gp.Function{ID: 3}
	l1 := &gp.Location{ID: 1, Mapping: app, Address: 0x1010, Line: []gp.Line{{Function: fMain, Line: 10}}}
	l2 := &gp.Location{ID: 2, Mapping: zeroMap, Address: 0x20, Line: []gp.Line{{Function: fEmpty, Line: 5}}}
	l3 := &gp.Location{ID: 3, Mapping: app, Address: 0x1020, Line: []gp.Line{{Function: fEmpty2}, {Function: fMain, Line: 12}}}
	p := &gp.Profile{
		SampleType: []*gp.ValueType{{Type: "samples", Unit: "count"}},
		PeriodType: &gp.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10000000,
		Mapping:  []*gp.Mapping{zeroMap, app},
		Function: []*gp.Function{fMain, fEmpty, fEmpty2},
		Location: []*gp.Location{l1, l2, l3},
	}
	p.Sample = []*gp.Sample{
		{Location: []*gp.Location{l1}, Value: []int64{1}},
		{Location: []*gp.Location{l2, l1}, Value: []int64{2}},
		{Location: []*gp.Location{l3}, Value: []int64{3}},
	}
	if withUnmapped {
		fUn := &gp.Function{ID: 4, Name: "unmapped"}
		l4 := &gp.Location{ID: 4, Address: 0x30, Line: []gp.Line{{Function: fUn}}}
		p.Function = append(p.Function, fUn)
		p.Location = append(p.Location, l4)
		p.Sample = append(p.Sample, &gp.Sample{Location: []*gp.Location{l4, l2}, Value: []int64{4}})
	}
	return p
}

// TestEmptyEntriesFixture keeps testdata/otlp/empty-entries.pb.gz what
// emptyEntriesPprof(false) builds (-update rewrites it).
func TestEmptyEntriesFixture(t *testing.T) {
	path := filepath.Join("..", "..", "..", "testdata", "otlp", "empty-entries.pb.gz")
	p := emptyEntriesPprof(false)
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
		t.Errorf("%s differs from emptyEntriesPprof(); run with -update", path)
	}
}

// TestEmptyEntriesStayReal: an all-zero mapping and all-empty functions are
// real entries through OTLP (binary and JSON) and back to pprof, with and
// without a location that has no mapping; the written tables hold exactly
// one placeholder each, at index 0, before the real entries.
func TestEmptyEntriesStayReal(t *testing.T) {
	for _, unmapped := range []bool{false, true} {
		src := emptyEntriesPprof(unmapped)
		var buf bytes.Buffer
		if err := src.Write(&buf); err != nil {
			t.Fatal(err)
		}
		want, err := gp.ParseData(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		m, err := pprof.Decode(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []EncodeOptions{{}, {JSON: true}} {
			var enc bytes.Buffer
			if err := Encode(&enc, singleton(m), o); err != nil {
				t.Fatal(err)
			}
			if !o.JSON {
				pd := &profilespb.ProfilesData{}
				if err := proto.Unmarshal(enc.Bytes(), pd); err != nil {
					t.Fatal(err)
				}
				pr := pd.ResourceProfiles[0].ScopeProfiles[0].Profiles[0].Profile
				if len(pr.Mapping) != 3 || !proto.Equal(pr.Mapping[0], &profilespb.Mapping{}) || !proto.Equal(pr.Mapping[1], &profilespb.Mapping{}) {
					t.Errorf("unmapped=%v: mapping table %v, want the placeholder, then the real all-zero mapping, then a.out", unmapped, pr.Mapping)
				}
				// Functions are written in order of first use by the
				// locations in (mapping, address) order: without the
				// unmapped location an empty one comes first and needs the
				// placeholder before it; with it, "unmapped" comes first
				// and no placeholder is written (no line lacks a function).
				if !unmapped && (len(pr.Function) != len(src.Function)+1 || !proto.Equal(pr.Function[0], &profilespb.Function{})) {
					t.Errorf("function table %v, want a placeholder then %d functions", pr.Function, len(src.Function))
				}
				if unmapped && (len(pr.Function) != len(src.Function) || pr.StringTable[pr.Function[0].Name] != "unmapped") {
					t.Errorf("unmapped: function table %v, want %d functions, \"unmapped\" first", pr.Function, len(src.Function))
				}
				for i, l := range pr.Location {
					for _, ln := range l.Line {
						if ln.FunctionIndex == 0 && !unmapped {
							t.Errorf("location[%d] names the placeholder function", i)
						}
					}
				}
			}
			back := decodeOne(t, enc.Bytes())
			if len(back.Mappings) != 2 || len(back.Functions) != len(src.Function) {
				t.Errorf("unmapped=%v json=%v: read back %d mappings, %d functions; want 2, %d", unmapped, o.JSON, len(back.Mappings), len(back.Functions), len(src.Function))
			}
			FoldForPprof(back, func(s string) { t.Errorf("FoldForPprof warned: %s", s) })
			var out bytes.Buffer
			if err := pprof.Encode(&out, back, pprof.EncodeOptions{Warn: func(s string) { t.Errorf("pprof.Encode warned: %s", s) }}); err != nil {
				t.Fatal(err)
			}
			got, err := gp.ParseData(out.Bytes()) // CheckValid included
			if err != nil {
				t.Fatalf("unmapped=%v json=%v: google/pprof: %v", unmapped, o.JSON, err)
			}
			if d := pprofcmp.Diff(want, got); d != "" {
				t.Errorf("unmapped=%v json=%v:\n%s", unmapped, o.JSON, d)
			}
		}
	}
}

// TestEmptyLinkStaysReal: a real link with empty ids keeps its place, with
// and without samples that have no link.
func TestEmptyLinkStaysReal(t *testing.T) {
	realLink := model.Link{TraceID: bytes.Repeat([]byte{7}, 16), SpanID: bytes.Repeat([]byte{8}, 8)}
	for _, none := range []bool{false, true} {
		p := richModel()
		p.Links = []model.Link{{}, realLink}
		for i := range p.Samples {
			p.Samples[i].Link = int32(i % 2)
			if none && i%3 == 2 {
				p.Samples[i].Link = model.NoLink
			}
		}
		back := decodeOne(t, encodeOne(t, p, EncodeOptions{}))
		if len(back.Links) != 2 {
			t.Fatalf("none=%v: %d links read back, want 2", none, len(back.Links))
		}
		for i := range p.Samples {
			want, got := p.Samples[i].Link, back.Samples[i].Link
			if (want == model.NoLink) != (got == model.NoLink) ||
				(want != model.NoLink && !bytes.Equal(p.Links[want].TraceID, back.Links[got].TraceID)) {
				t.Errorf("none=%v: sample %d link %d, read back %d", none, i, want, got)
			}
		}
	}
}

// TestEmptyFunctionFixtures: the real profiles with an all-empty function (Go's
// threadcreate profile, a gperftools profile that pprof symbolized against
// a stripped binary) have one, and keep it through OTLP back to pprof
// (TestLosslessPprof checks the whole profile).
func TestEmptyFunctionFixtures(t *testing.T) {
	for _, name := range []string{"go/threadcreate.pb.gz", "pprof/gperftools-stripped.pb.gz"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		src, err := gp.ParseData(data)
		if err != nil {
			t.Fatal(err)
		}
		empty := 0
		for _, f := range src.Function {
			if f.Name == "" && f.SystemName == "" && f.Filename == "" && f.StartLine == 0 {
				empty++
			}
		}
		if empty == 0 {
			t.Fatalf("%s has no all-empty function", name)
		}
		m, err := pprof.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		back := decodeOne(t, encodeOne(t, m, EncodeOptions{}))
		if len(back.Functions) != len(src.Function) {
			t.Errorf("%s: %d functions read back from OTLP, want %d", name, len(back.Functions), len(src.Function))
		}
		for i := range back.Locations {
			for _, ln := range back.LocationLines(i) {
				if ln.Function == model.NoFunction {
					t.Errorf("%s: location %d has a line with no function after OTLP", name, i)
				}
			}
		}
	}
}

// TestDerivedIDSurvivesLayout: an id derived by a writer that laid the
// profile out otherwise (here: the generated code's field order, which
// differs from pprofx's) is still recognised and dropped without a word;
// comparing with a re-encoding would call it foreign.
func TestDerivedIDSurvivesLayout(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "go", "cpu.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := pprof.Decode(src)
	if err != nil {
		t.Fatal(err)
	}
	pd := &profilespb.ProfilesData{}
	if err := proto.Unmarshal(encodeOne(t, m, EncodeOptions{}), pd); err != nil {
		t.Fatal(err)
	}
	c := pd.ResourceProfiles[0].ScopeProfiles[0].Profiles[0]
	if !IsDerivedID(c.ProfileId) {
		t.Fatalf("the writer's own id %x is not recognised", c.ProfileId)
	}
	// "Another writer": the generated code's layout, and an id derived
	// from those bytes.
	body, err := proto.MarshalOptions{Deterministic: true}.Marshal(c.Profile)
	if err != nil {
		t.Fatal(err)
	}
	id := deriveID(body)
	c.ProfileId = id[:]
	data, err := proto.Marshal(pd)
	if err != nil {
		t.Fatal(err)
	}
	back := decodeOne(t, data)
	if sum := sha256.Sum256(encodeOne(t, back, EncodeOptions{})); bytes.Equal(sum[:12], id[:12]) {
		t.Fatal("the test's layout is pprofx's: it shows nothing")
	}
	var warned []string
	FoldForPprof(back, func(s string) { warned = append(warned, s) })
	if back.ProfileID != nil {
		t.Errorf("derived id %x from another layout not recognised", id)
	}
	var out bytes.Buffer
	if err := pprof.Encode(&out, back, pprof.EncodeOptions{Warn: func(s string) { warned = append(warned, s) }}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 0 {
		t.Errorf("warnings %q, want none", warned)
	}
	// A foreign id that differs in one bit is not taken for derived.
	foreign := bytes.Clone(id[:])
	foreign[3] ^= 1
	if IsDerivedID(foreign) {
		t.Errorf("%x taken for derived", foreign)
	}
	if IsDerivedID([]byte("0123456789abcdef")) || IsDerivedID(id[:15]) {
		t.Error("a foreign or short id taken for derived")
	}
}
