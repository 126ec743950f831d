package jfr

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
)

// TestCut: a recording cut mid-chunk fails in one line naming the chunk,
// its offset and the sizes; with Salvage the complete chunks are kept.
func TestCut(t *testing.T) {
	b := fixtures(t)["chunks.jfr"]
	first := int(parseHeader(b).size)
	second := int(parseHeader(b[first:]).size)
	cut := b[:first+second+100]
	_, _, err := DecodeBytes(cut, Options{})
	if err == nil {
		t.Fatal("a cut recording decoded")
	}
	want := "jfr: chunk 3 at byte " + strconv.Itoa(first+second) + ": cut: its header says "
	if msg := err.Error(); !strings.HasPrefix(msg, want) || strings.Contains(msg, "\n") {
		t.Fatalf("error %q, want one line starting %q", msg, want)
	}
	var warned []string
	p, info, err := DecodeBytes(cut, Options{Salvage: true, Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if info.Chunks != 2 || !info.Salvaged || len(warned) != 1 || !strings.Contains(warned[0], "kept the 2 complete chunks") {
		t.Fatalf("salvage: %d chunks, salvaged %v, warnings %q", info.Chunks, info.Salvaged, warned)
	}
	whole, _, err := DecodeBytes(b[:first+second], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Samples) != len(whole.Samples) || len(p.Samples) == 0 {
		t.Fatalf("salvaged %d samples, the two complete chunks hold %d", len(p.Samples), len(whole.Samples))
	}
	// Cut in the first chunk's header: no chunk to keep.
	if _, _, err := DecodeBytes(b[:30], Options{Salvage: true}); err == nil || !strings.Contains(err.Error(), "chunk 1 at byte 0: cut in its header (30 of 68 bytes)") {
		t.Fatalf("header cut: %v", err)
	}
}

// TestOldVersions: JDK 7/8 (0.9) and 9/10 (1.0) recordings are refused
// in one line naming the version.
func TestOldVersions(t *testing.T) {
	b := append([]byte(nil), fixtures(t)["cpu.jfr"]...)
	for _, v := range [][2]uint16{{0, 9}, {1, 0}, {3, 0}} {
		binary.BigEndian.PutUint16(b[4:], v[0])
		binary.BigEndian.PutUint16(b[6:], v[1])
		_, _, err := DecodeBytes(b, Options{})
		want := "JFR version " + strconv.Itoa(int(v[0])) + "." + strconv.Itoa(int(v[1])) + " is not supported"
		if v[0] < 2 {
			want = "JFR version " + strconv.Itoa(int(v[0])) + "." + strconv.Itoa(int(v[1])) + " (JDK 7 and 8"
		}
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("version %d.%d: %v, want %q", v[0], v[1], err, want)
		}
	}
}

// TestHugeCounts: counts that ask for more than the chunk holds are refused
// before anything is allocated from them.
func TestHugeCounts(t *testing.T) {
	b := append([]byte(nil), fixtures(t)["cpu.jfr"]...)
	h := parseHeader(b)
	// The metadata event's string count: after size, type, start,
	// duration and id (varints). Overwrite with 0xffffffff.
	r := &reader{b: b, pos: int(h.metaOffset)}
	for i := 0; i < 5; i++ {
		if _, err := r.varlong(); err != nil {
			t.Fatal(err)
		}
	}
	copy(b[r.pos:], []byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	_, _, err := DecodeBytes(b, Options{})
	if err == nil || !strings.Contains(err.Error(), "metadata string count 4294967295") {
		t.Fatalf("got %v", err)
	}
}

// TestPprofValid: google/pprof parses every recording's pprof output and
// finds it valid.
func TestPprofValid(t *testing.T) {
	for name, b := range fixtures(t) {
		p, _, err := DecodeBytes(b, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var buf bytes.Buffer
		if err := pprof.Encode(&buf, p, pprof.EncodeOptions{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		gp, err := profile.Parse(&buf)
		if err != nil {
			t.Fatalf("%s: google/pprof: %v", name, err)
		}
		if err := gp.CheckValid(); err != nil {
			t.Fatalf("%s: google/pprof: %v", name, err)
		}
		if len(gp.Sample) != len(p.Samples) || len(gp.SampleType) != len(p.SampleTypes) {
			t.Fatalf("%s: google/pprof reads %d samples of %d types, want %d of %d", name, len(gp.Sample), len(gp.SampleType), len(p.Samples), len(p.SampleTypes))
		}
	}
}
