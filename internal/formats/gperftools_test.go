package formats

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/pprofx/pprofx/internal/codec/gperftools"
	"github.com/pprofx/pprofx/internal/detect"
)

func TestReadGperftools(t *testing.T) {
	for file, layout := range map[string]string{
		"le64-100hz.prof": "64-bit little-endian",
		"le32-100hz.prof": "32-bit little-endian",
		"be64-100hz.prof": "64-bit big-endian",
		"be32-100hz.prof": "32-bit big-endian",
	} {
		data, err := os.ReadFile("../../testdata/gperftools/" + file)
		if err != nil {
			t.Fatal(err)
		}
		want, info, err := gperftools.Decode(bytes.NewReader(data), gperftools.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Plain and gzipped read the same, through the bufio.Reader Read gives.
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(data)
		zw.Close()
		for _, in := range [][]byte{data, gz.Bytes()} {
			got, err := Read(bytes.NewReader(in), ReadOptions{})
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if got.Format != detect.Gperftools || got.Layout != layout || len(got.Items) != 1 {
				t.Fatalf("%s: %+v", file, got)
			}
			p := got.Items[0].Profile
			if len(p.Samples) != len(want.Samples) || p.Period != want.Period || len(p.Mappings) != len(want.Mappings) {
				t.Errorf("%s: %d samples, period %d, %d mappings; Decode gives %d, %d, %d", file, len(p.Samples), p.Period, len(p.Mappings), len(want.Samples), want.Period, len(want.Mappings))
			}
			facts := map[string]string{}
			for _, f := range got.Facts {
				facts[f[0]] = f[1]
			}
			if facts["sampling period"] != "10000 µs (100 Hz)" || !strings.HasPrefix(facts["records"], strconv.Itoa(info.Records)+" (") || facts["trailer"] != "yes" {
				t.Errorf("%s: facts %q", file, facts)
			}
		}
	}
}

func TestReadGperftoolsSalvage(t *testing.T) {
	data, err := os.ReadFile("../../testdata/gperftools/le64-100hz.prof")
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:100] // header (40 bytes) and a record cut in the middle
	if _, err := Read(bytes.NewReader(cut), ReadOptions{}); err == nil || !strings.Contains(err.Error(), "record 1 at byte 40") {
		t.Fatalf("cut file: %v", err)
	}
	var warns []string
	in, err := Read(bytes.NewReader(cut), ReadOptions{Salvage: true, Warn: func(m string) { warns = append(warns, m) }})
	if err != nil || len(in.Items[0].Profile.Samples) != 0 || len(warns) != 1 || !strings.Contains(warns[0], "salvage") {
		t.Fatalf("salvaged: %v, warnings %q", err, warns)
	}
}
