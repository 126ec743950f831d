package detect

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/model"
)

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if CompressionOf(data) == Gzip {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

// topFields splits a protobuf message into its top-level fields.
func topFields(t *testing.T, b []byte) (nums []uint64, raw [][]byte) {
	t.Helper()
	for pos := 0; pos < len(b); {
		start := pos
		tag, n := binary.Uvarint(b[pos:])
		if n <= 0 || tag&7 != 2 {
			t.Fatalf("top-level field at %d: tag %x", pos, tag)
		}
		pos += n
		l, n := binary.Uvarint(b[pos:])
		pos += n + int(l)
		nums = append(nums, tag>>3)
		raw = append(raw, b[start:pos])
	}
	return nums, raw
}

// sniffs checks that every head of data (the whole, HeadSize, 512, 64, 20
// bytes) is detected as want, or as fallback when Refine on the whole
// data then gives want.
func sniffs(t *testing.T, what string, data []byte, want, fallback Format) {
	t.Helper()
	for _, n := range []int{len(data), HeadSize, 512, 64, 20} {
		if n > len(data) {
			continue
		}
		got, err := Sniff(data[:n])
		switch {
		case err != nil:
			t.Errorf("%s, first %d bytes: %v", what, n, err)
		case got.Format == want:
		case got.Format == fallback && fallback != "" && Refine(fallback, data) == want:
		default:
			t.Errorf("%s, first %d bytes: %q, want %q", what, n, got.Format, want)
		}
	}
}

// TestSniffV1Development: files the collector's pdata marshalers wrote
// (testdata/otlp-dev) are v1development, never pprof or v1experimental:
// as written (dictionary first, its tables from stack_table down), with
// the top-level fields in number order (resource_profiles first), framed
// as the file exporter frames them, and in OTLP JSON.
func TestSniffV1Development(t *testing.T) {
	bin := mustRead(t, "otlp-dev/cpu.otlp")
	nums, raw := topFields(t, bin)
	if len(nums) != 2 || nums[0] != 2 || nums[1] != 1 {
		t.Fatalf("pdata wrote fields %v, want dictionary (2) then resource_profiles (1)", nums)
	}
	sniffs(t, "pdata binary", bin, OTLP, "")
	ordered := append(append([]byte{}, raw[1]...), raw[0]...)
	sniffs(t, "fields in number order", ordered, OTLP, PprofExtended)
	sniffs(t, "framed", mustRead(t, "otlp-dev/cpu.framed"), OTLP, "")
	js := mustRead(t, "otlp-dev/cpu.otlp.json")
	sniffs(t, "pdata JSON", js, OTLPJSON, PprofExtendedJSON)

	// A resource big enough that the head holds nothing else: the
	// head says v1experimental, the whole input says v1development.
	filler := strings.Repeat(`{"key":"k8s.filler","value":{"stringValue":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}},`, 2000)
	big := bytes.Replace(js, []byte(`"resource":{"attributes":[`), []byte(`"resource":{"attributes":[`+filler), 1)
	if len(big) == len(js) {
		t.Fatal("no resource attributes in the JSON fixture")
	}
	if got, _ := Sniff(big[:HeadSize]); got.Format != PprofExtendedJSON {
		t.Errorf("big resource head: %q, want %q (undecided: the reader refines)", got.Format, PprofExtendedJSON)
	}
	if f := Refine(PprofExtendedJSON, big); f != OTLPJSON {
		t.Errorf("big resource, whole input: %q, want %q", f, OTLPJSON)
	}
}

// TestSniffV1Experimental: pprofx's own OTLP (v1experimental), binary and
// JSON, of the pprof fixtures is detected as such at every head length and
// never refined into v1development; so are hand-built heads in the field
// order of the generated code (other writers).
func TestSniffV1Experimental(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/go/*.pb.gz")
	tool, _ := filepath.Glob("../../testdata/pprof/*.pb.gz")
	for _, name := range append(files, tool...) {
		m, err := pprof.Decode(mustRead(t, filepath.Join(filepath.Base(filepath.Dir(name)), filepath.Base(name))))
		if err != nil {
			t.Fatal(err)
		}
		for _, js := range []bool{false, true} {
			var buf bytes.Buffer
			if err := pprofextended.Encode(&buf, []*model.Profile{m}, pprofextended.EncodeOptions{JSON: js}); err != nil {
				t.Fatal(err)
			}
			want := map[bool]Format{false: PprofExtended, true: PprofExtendedJSON}[js]
			sniffs(t, name, buf.Bytes(), want, "")
			if f := Refine(want, buf.Bytes()); f != want {
				t.Errorf("%s: refined to %q", name, f)
			}
		}
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"v1experimental, number order", []byte{0x0a, 0x0c, 0x12, 0x0a, 0x12, 0x08, 0x0a, 0x02, 0x01, 0x02, 0x42, 0x02, 0x08, 0x01}},
		{"v1experimental, profile id first", append(append([]byte{0x0a, 0x1a, 0x12, 0x18, 0x12, 0x16, 0x0a, 0x10}, bytes.Repeat([]byte{0xab}, 16)...), 0x42, 0x02, 0x08, 0x01)},
	} {
		sniffs(t, c.name, c.data, PprofExtended, "")
		if f := Refine(PprofExtended, c.data); f != PprofExtended {
			t.Errorf("%s: refined to %q", c.name, f)
		}
	}
}

// TestSniffPprofUnknownField: google/pprof reads a profile with a field
// profile.proto does not define (it skips it); so does detection, wherever
// the field is among the top-level ones.
func TestSniffPprofUnknownField(t *testing.T) {
	raw := mustRead(t, "go/cpu.pb.gz")
	for _, extra := range [][]byte{
		{0x80, 0x01, 0x05},                   // field 16, varint
		{0xa2, 0x06, 0x03, 'a', 'b', 'c'},    // field 100, bytes
		{0xf9, 0x01, 1, 2, 3, 4, 5, 6, 7, 8}, // field 31, fixed64
	} {
		data := append(append([]byte{}, extra...), raw...)
		if _, err := profile.ParseData(data); err != nil {
			t.Fatalf("google/pprof rejects the test input: %v", err)
		}
		sniffs(t, "pprof with an unknown field first", data, Pprof, "")
	}
}

// TestSniffFixturesByDirectory: no fixture is taken for another format.
func TestSniffFixturesByDirectory(t *testing.T) {
	want := map[string]Format{"go": Pprof, "pprof": Pprof, "otlp": Pprof, "gperftools": Gperftools}
	files, _ := filepath.Glob("../../testdata/*/*")
	n := 0
	for _, f := range files {
		dir := filepath.Base(filepath.Dir(f))
		w, ok := want[dir]
		if !ok || strings.HasSuffix(f, ".sh") || strings.HasSuffix(f, ".cc") || strings.HasSuffix(f, ".go") {
			continue
		}
		data := mustRead(t, filepath.Join(dir, filepath.Base(f)))
		got, err := Sniff(data[:min(len(data), HeadSize)])
		if err != nil || got.Format != w {
			t.Errorf("%s: %+v %v, want %s", f, got, err, w)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d fixtures checked", n)
	}
}
