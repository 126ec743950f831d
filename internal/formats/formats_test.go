package formats

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/model"
)

// readHeap reads the real Go heap profile.
func readHeap(t *testing.T) *Input {
	t.Helper()
	gz, err := os.ReadFile("../../testdata/go/heap.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	in, err := Read(bytes.NewReader(gz), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestReadCompressions(t *testing.T) {
	in := readHeap(t)
	if in.Format != detect.Pprof || in.Compression != detect.Gzip || len(in.Items) != 1 || in.Describe() != "pprof (gzip)" {
		t.Fatalf("gzip input: %+v", in)
	}
	// The same profile, raw and then zstd-compressed, reads the same.
	var raw bytes.Buffer
	if err := Write(&raw, OutPprofRaw, in.Items, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	zs := enc.EncodeAll(raw.Bytes(), nil)
	for name, data := range map[string][]byte{"raw": raw.Bytes(), "zstd": zs} {
		got, err := Read(bytes.NewReader(data), ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got.Items[0].Profile.Samples) != len(in.Items[0].Profile.Samples) {
			t.Fatalf("%s: %d samples, want %d", name, len(got.Items[0].Profile.Samples), len(in.Items[0].Profile.Samples))
		}
	}
	if got, _ := Read(bytes.NewReader(zs), ReadOptions{}); got.Compression != detect.Zstd {
		t.Fatalf("zstd not reported: %q", got.Compression)
	}
}

func TestReadUnsupported(t *testing.T) {
	for in, want := range map[string]string{
		`{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}]}`:                        "Chrome trace-event JSON",
		`[{"name":"a","ph":"B","ts":1,"pid":1,"tid":1}]`:                                                "Chrome trace-event JSON",
		`{"version":1.2,"mode":"cpu","interval":1000,"samples":0,"frames":{},"raw":[]}`:                 "stackprof JSON (Ruby)",
		`{"meta":{"interval":1,"startTime":1,"product":"Firefox","version":24},"libs":[],"threads":[]}`: "Firefox profiler JSON",
	} {
		_, err := Read(strings.NewReader(in), ReadOptions{})
		if err == nil || err.Error() != "detected "+want+", not supported yet" {
			t.Errorf("%s: err = %v", in, err)
		}
	}
}

func TestOutFormatForPath(t *testing.T) {
	for path, want := range map[string]OutFormat{
		"a.pb.gz": OutPprof, "a.PB.GZ": OutPprof, "x/a.pprof": OutPprof, "a.pb": OutPprofRaw, "-": OutPprof, "noext": OutPprof,
		"dir.d/noext": OutPprof, ".hidden": OutPprof,
	} {
		if got, ok := OutFormatForPath(path); got != want || !ok {
			t.Errorf("%s: %s %v, want %s", path, got, ok, want)
		}
	}
	for _, path := range []string{"x.json", "x.txt", "a.pb.gz.bak", "x.gz"} {
		if got, ok := OutFormatForPath(path); ok {
			t.Errorf("%s: %s, want no format", path, got)
		}
	}
	for _, f := range []OutFormat{OutPprof, OutPprofRaw, OutOTLP, OutOTLPJSON} {
		if got, ok := OutFormatForPath("x" + Suffix(f)); got != f || !ok {
			t.Errorf("Suffix(%s) = %s names %s", f, Suffix(f), got)
		}
	}
	if _, err := ParseOutFormat("pdf"); err == nil || !strings.Contains(err.Error(), "pprof-raw") {
		t.Errorf("ParseOutFormat(pdf) = %v", err)
	}
}

func TestOTLPReadWrite(t *testing.T) {
	orig, err := os.ReadFile("../../testdata/go/heap.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	src, err := Read(bytes.NewReader(orig), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f      OutFormat
		gz     bool
		format detect.Format
	}{{OutPprofExtended, false, detect.PprofExtended}, {OutPprofExtended, true, detect.PprofExtended}, {OutPprofExtendedJSON, false, detect.PprofExtendedJSON},
		{OutPprofExtendedJSON, true, detect.PprofExtendedJSON}, {OutOTLP, false, detect.OTLP}, {OutOTLP, true, detect.OTLP},
		{OutOTLPJSON, false, detect.OTLPJSON}, {OutOTLPJSON, true, detect.OTLPJSON}, {OutOTLPJSONL, false, detect.OTLPJSON},
		{OutOTLPFramed, false, detect.OTLP}, {OutOTLPFramed, true, detect.OTLP}} {
		var buf bytes.Buffer
		items := []Item{src.Items[0], src.Items[0]}
		if err := Write(&buf, c.f, items, WriteOptions{Gzip: c.gz, ScopeVersion: "v9",
			Resource: []model.Attribute{{Key: "service.name", Value: model.Value{Kind: model.KindString, Str: "api"}}}}); err != nil {
			t.Fatal(err)
		}
		if gz := buf.Bytes()[0] == 0x1f; gz != c.gz {
			t.Errorf("%s gzip=%v: output gzipped %v", c.f, c.gz, gz)
		}
		in, err := Read(&buf, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if in.Format != c.format || len(in.Items) != 2 {
			t.Fatalf("%s: read back as %s with %d items", c.f, in.Format, len(in.Items))
		}
		facts := map[string]string{}
		for _, f := range in.Facts {
			facts[f[0]] = f[1]
		}
		// The pprofextended dialect names pprofx's scope; v1development
		// writes none for a profile that names none.
		wantScope := "pprofx v9"
		if c.format == detect.OTLP || c.format == detect.OTLPJSON {
			wantScope = ""
		}
		if facts["resource"] != "service.name=api" || facts["scope"] != wantScope {
			t.Errorf("%s: facts %v", c.f, facts)
		}
		if c.format == detect.PprofExtended || c.format == detect.PprofExtendedJSON {
			if facts["profile containers"] != "2" || !strings.HasPrefix(in.Items[0].Name, "id ") || !strings.HasSuffix(in.Items[0].Name, ", service.name=api") {
				t.Errorf("%s: facts %v, item name %q", c.f, facts, in.Items[0].Name)
			}
			continue
		}
		// heap has 4 sample types: 2 pprof profiles are 8 OTLP profiles.
		if !strings.HasPrefix(facts["OTLP profiles"], "8, read as 2 ") || !strings.HasPrefix(facts["dialect"], "v1development") ||
			in.Items[1].Name != "profile 1, service.name=api" {
			t.Errorf("%s: facts %v, item name %q", c.f, facts, in.Items[1].Name)
		}
		if c.f == OutOTLPFramed && !strings.Contains(in.Describe(), "framed") {
			t.Errorf("%s: described as %q", c.f, in.Describe())
		}
	}
	for path, want := range map[string]OutFormat{"a.otlp": OutOTLP, "a.otlp.gz": OutOTLP, "a.otlp.json": OutOTLPJSON, "a.OTLP.JSON.GZ": OutOTLPJSON,
		"a.jsonl": OutOTLPJSONL, "a.jsonl.gz": OutOTLPJSONL} {
		if got, ok := OutFormatForPath(path); got != want || !ok {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
}

// TestReadEach: with Each, a bundle's profiles are handed over one at a
// time, in order, and none is kept in Items; a file of one profile is
// read as always.
func TestReadEach(t *testing.T) {
	data, err := os.ReadFile("../../testdata/bundle/v2.ppxb")
	if err != nil {
		t.Fatal(err)
	}
	all, err := Read(bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Items) < 2 {
		t.Fatalf("want a bundle of several profiles, got %d", len(all.Items))
	}
	var got []Item
	each, err := Read(bytes.NewReader(data), ReadOptions{Each: func(it Item) error {
		got = append(got, it)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(each.Items) != 0 || len(got) != len(all.Items) {
		t.Fatalf("Each saw %d profiles and Items kept %d; want %d and 0", len(got), len(each.Items), len(all.Items))
	}
	for i := range got {
		if got[i].Name != all.Items[i].Name || len(got[i].Profile.Samples) != len(all.Items[i].Profile.Samples) {
			t.Errorf("profile %d: %q with %d samples, want %q with %d", i, got[i].Name, len(got[i].Profile.Samples), all.Items[i].Name, len(all.Items[i].Profile.Samples))
		}
	}
	in := readHeap(t)
	heap, err := os.ReadFile("../../testdata/go/heap.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	one, err := Read(bytes.NewReader(heap), ReadOptions{Each: func(Item) error { t.Error("Each called for a pprof input"); return nil }})
	if err != nil || len(one.Items) != 1 || len(one.Items[0].Profile.Samples) != len(in.Items[0].Profile.Samples) {
		t.Fatalf("pprof with Each: %v, %+v", err, one)
	}
}
