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

	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

func gperfHeader(slot int, order binary.AppendByteOrder, words uint64) []byte {
	var b []byte
	put := func(v uint64) {
		if slot == 8 {
			b = order.AppendUint64(b, v)
		} else {
			b = order.AppendUint32(b, uint32(v))
		}
	}
	put(0)
	put(words)
	put(0)
	put(10000)
	put(0)
	return b
}

func TestSniffTable(t *testing.T) {
	cases := []struct {
		name   string
		in     []byte
		want   Format
		layout string
	}{
		{"gperftools 64 LE", gperfHeader(8, binary.LittleEndian, 3), Gperftools, "64-bit little-endian"},
		{"gperftools 64 BE", gperfHeader(8, binary.BigEndian, 3), Gperftools, "64-bit big-endian"},
		{"gperftools 32 LE", gperfHeader(4, binary.LittleEndian, 3), Gperftools, "32-bit little-endian"},
		{"gperftools 32 BE", gperfHeader(4, binary.BigEndian, 3), Gperftools, "32-bit big-endian"},
		{"gperftools 64 LE, 5 header words", gperfHeader(8, binary.LittleEndian, 5), Gperftools, "64-bit little-endian"},
		// A version the decoder refuses is still recognised, so that the
		// decoder's error says why (a Java profile is version 1).
		{"gperftools version 1", func() []byte { b := gperfHeader(8, binary.LittleEndian, 3); b[16] = 1; return b }(), Gperftools, "64-bit little-endian"},
		{"bundle", []byte(BundleMagic + "\x01\x00\x00\x00"), Bundle, ""},
		{"otlp json", []byte(` {"resourceProfiles":[{"resource":{}}]}`), PprofExtendedJSON, ""},
		{"otlp proto", []byte{0x0a, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0x78}, PprofExtended, ""},
		{"otlp proto, scope first", []byte{0x0a, 0x04, 0x12, 0x02, 0x0a, 0x00}, PprofExtended, ""},
		{"pprof sample type first", []byte{0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x32, 0x00}, Pprof, ""},
		{"pprof string table only", []byte{0x32, 0x00, 0x32, 0x01, 0x61}, Pprof, ""},
		{"pprof period first", []byte{0x60, 0x0a, 0x32, 0x00}, Pprof, ""},
		{"perf.data", []byte("PERFILE2\x68\x00"), PerfData, ""},
		{"jfr", []byte("FLR\x00\x00\x02"), JFR, ""},
		{"go legacy heap text", []byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n"), LegacyText, "heap profile @ heap/1048576"},
	}
	for _, c := range cases {
		got, err := Sniff(c.in)
		if err != nil || got.Format != c.want || got.Layout != c.layout {
			t.Errorf("%s: Sniff = %+v, %v; want %s %q", c.name, got, err, c.want, c.layout)
		}
	}
}

func TestSniffRejects(t *testing.T) {
	cases := map[string][]byte{
		"text":                     []byte("hello, this is not a profile"),
		"other json":               []byte(`{"traceEvents": []}`),
		"header words 64":          gperfHeader(8, binary.LittleEndian, 64),
		"header words 2":           gperfHeader(8, binary.LittleEndian, 2),
		"zeros":                    make([]byte, 40),
		"elf":                      []byte("\x7fELF\x02\x01\x01"),
		"protobuf of another kind": {0x0a, 0x02, 0x22, 0x00},
	}
	for name, in := range cases {
		got, err := Sniff(in)
		if err == nil {
			t.Errorf("%s: detected %+v", name, got)
			continue
		}
		if !strings.HasPrefix(err.Error(), "unknown format (first bytes: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Sniff(nil); err == nil || err.Error() != "empty input" {
		t.Errorf("empty: %v", err)
	}
}

// Every real fixture is recognised, and so is a prefix of it (truncation
// happens after detection, in the decoder).
func TestSniffFixtures(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/go/*.pb.gz")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if CompressionOf(data) != Gzip {
			t.Fatalf("%s: not seen as gzip", f)
		}
		zr, _ := gzip.NewReader(bytes.NewReader(data))
		raw, _ := io.ReadAll(zr)
		for _, n := range []int{HeadSize, 64, 20} {
			if n > len(raw) {
				continue
			}
			got, err := Sniff(raw[:n])
			if err != nil || got.Format != Pprof {
				t.Errorf("%s first %d bytes: %+v %v", f, n, got, err)
			}
		}
	}
}

func TestCompression(t *testing.T) {
	if CompressionOf([]byte{0x28, 0xb5, 0x2f, 0xfd, 0}) != Zstd || CompressionOf([]byte{0x1f}) != None {
		t.Fatal("compression magic")
	}
}

func FuzzSniff(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/*/*")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data[:min(len(data), HeadSize)])
		}
	}
	f.Add(gperfHeader(4, binary.BigEndian, 3))
	f.Add([]byte(BundleMagic))
	f.Fuzz(func(t *testing.T, head []byte) {
		var res Result
		var err error
		// Sniffing looks at a head of at most HeadSize bytes: what it
		// takes is bounded by a multiple of that.
		if alloc, over := memcheck.Over(sniffAllocBound(len(head)), func() { res, err = Sniff(head) }); over {
			t.Fatalf("allocated %d bytes for a %d-byte head (bound %d)", alloc, len(head), sniffAllocBound(len(head)))
		}
		if err == nil && res.Format == Unknown {
			t.Fatal("no error and no format")
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatal("multi-line error")
		}
	})
}

// sniffAllocBound is what Sniff may allocate for a head of n bytes.
func sniffAllocBound(n int) uint64 { return 64<<10 + 16*uint64(n) }
