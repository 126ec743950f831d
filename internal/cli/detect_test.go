package cli

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestV1DevelopmentNotSupportedYet: OTLP profiles v1development files, as
// the collector's pdata writes them (binary with the dictionary first,
// framed, JSON), plain and gzipped, and a JSON one whose resource fills the
// head detection sees, are named as what they are.
func TestV1DevelopmentNotSupportedYet(t *testing.T) {
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
	for _, in := range inputs {
		for _, cmd := range [][]string{{"convert", in, "-o", filepath.Join(dir, "out.pb.gz")}, {"inspect", in}} {
			s := run(t, nil, ExitFail, cmd...)
			want := "pprofx: " + in + ": detected OTLP profiles (v1development), not supported yet\n"
			if s.err.String() != want {
				t.Errorf("pprofx %s:\n got %q\nwant %q", strings.Join(cmd, " "), s.err, want)
			}
		}
	}
}
