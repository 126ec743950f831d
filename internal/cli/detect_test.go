package cli

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestV1DevelopmentCollectorFiles: OTLP profiles v1development files as
// the collector's pdata writes them (binary with the dictionary first,
// framed, JSON lines), plain and gzipped, and a JSON one whose resource
// fills the head detection sees, are read, named by inspect, and convert to
// the samples of the Go profile they were made from (its cpu/nanoseconds
// values: testdata/README.md, otlp-dev/).
func TestV1DevelopmentCollectorFiles(t *testing.T) {
	dir := t.TempDir()
	var inputs []string
	for _, name := range []string{"cpu.otlp", "cpu.framed", "cpu.otlp.json"} {
		src := filepath.Join("..", "..", "testdata", "otlp-dev", name)
		data := mustRead(t, src)
		gz := filepath.Join(dir, name+".gz")
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(data)
		zw.Close()
		if err := os.WriteFile(gz, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, src, gz)
		if name == "cpu.otlp.json" {
			filler := strings.Repeat(`{"key":"k8s.filler","value":{"stringValue":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}},`, 2000)
			big := bytes.Replace(data, []byte(`"resource":{"attributes":[`), []byte(`"resource":{"attributes":[`+filler), 1)
			p := filepath.Join(dir, "big-resource.json")
			if err := os.WriteFile(p, big, 0o644); err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, p)
		}
	}
	want := parse(t, mustRead(t, cpuFixture))
	for _, in := range inputs {
		s := run(t, nil, ExitOK, "inspect", in)
		if o := s.out.String(); !strings.Contains(o, ": otlp") || !strings.Contains(o, "dialect:        v1development") {
			t.Errorf("inspect %s names no v1development:\n%s", in, o)
		}
		out := filepath.Join(dir, "out.pb.gz")
		run(t, nil, ExitOK, "convert", in, "-o", out)
		got := parse(t, mustRead(t, out))
		if len(got.SampleType) != 1 || got.SampleType[0].Type != "cpu" || len(got.Sample) != len(want.Sample) {
			t.Fatalf("%s: sample types %v, %d samples; want cpu and %d", in, got.SampleType, len(got.Sample), len(want.Sample))
		}
		for i, ws := range want.Sample {
			gs := got.Sample[i]
			if gs.Value[0] != ws.Value[1] || fmt.Sprint(gs.Label) != fmt.Sprint(ws.Label) || len(gs.Location) != len(ws.Location) {
				t.Fatalf("%s: sample %d: %v %v, want %v %v", in, i, gs.Value, gs.Label, ws.Value, ws.Label)
			}
			for j := range ws.Location {
				if a, b := gs.Location[j], ws.Location[j]; a.Address != b.Address || len(a.Line) != len(b.Line) ||
					(len(a.Line) > 0 && (a.Line[0].Function.Name != b.Line[0].Function.Name || a.Line[0].Line != b.Line[0].Line)) {
					t.Fatalf("%s: sample %d frame %d differs", in, i, j)
				}
			}
		}
	}
}
