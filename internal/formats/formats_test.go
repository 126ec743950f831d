package formats

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pprofx/pprofx/internal/detect"
)

func TestReadCompressions(t *testing.T) {
	gz, err := os.ReadFile("../../testdata/go/heap.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	in, err := Read(bytes.NewReader(gz), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
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
	_, err := Read(strings.NewReader("heap profile: 1: 2 [3: 4] @ heap/1048576\n"), ReadOptions{})
	if err == nil || err.Error() != "detected Go legacy text profile, not supported yet" {
		t.Fatalf("err = %v", err)
	}
}

func TestOutFormatForPath(t *testing.T) {
	for path, want := range map[string]OutFormat{
		"a.pb.gz": OutPprof, "a.PB.GZ": OutPprof, "x/a.pprof": OutPprof, "a.pb": OutPprofRaw, "-": OutPprof, "noext": OutPprof,
	} {
		if got := OutFormatForPath(path); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	if _, err := ParseOutFormat("pdf"); err == nil || !strings.Contains(err.Error(), "pprof-raw") {
		t.Errorf("ParseOutFormat(pdf) = %v", err)
	}
}
