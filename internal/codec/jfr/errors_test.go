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
	r := newReader(b, int(h.metaOffset))
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

// TestFailedChunkNotCounted: a chunk that jfr-parser fails part-way, after
// reading some of its events, adds none of them to the events read; with
// Salvage the chunks before it are kept and counted alone. The failing
// chunk is wall.jfr.gz whose last profiler.WallClockSample has its
// startTime rewritten as 0 and its int field "samples" as a padded
// varint of six or more bytes, same event size: pprofx reads it as 1,
// jfr-parser refuses a 32-bit value over five bytes.
func TestFailedChunkNotCounted(t *testing.T) {
	good := fixtures(t)["jfr-parser/wall.jfr.gz"]
	bad := append([]byte(nil), good...)
	h := parseHeader(bad)
	if int(h.size) != len(bad) {
		t.Fatalf("wall.jfr.gz: want one chunk, its first is %d of %d bytes", h.size, len(bad))
	}
	m, err := readMetadata(bad, int(h.metaOffset))
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ from, to int }
	var start, samples span
	found := false
	err = walkEvents(m, bad, func(r *reader, cl *class, pos int) error {
		if cl.name != "profiler.WallClockSample" {
			return nil
		}
		for i := range cl.fields {
			f := &cl.fields[i]
			from := r.pos
			if _, err := num(r, f, 1); err != nil {
				return err
			}
			switch f.name {
			case "startTime":
				start = span{from, r.pos}
			case "samples":
				samples = span{from, r.pos}
			}
		}
		found = true
		return nil
	})
	if err != nil || !found || samples.from != start.to && start.to > samples.from {
		t.Fatalf("no profiler.WallClockSample to rewrite (%v)", err)
	}
	// startTime becomes one byte 0; samples takes the bytes freed: 0x81,
	// then 0x80s, then 0x00 (the value 1, not minimal).
	n := start.to - start.from - 1 + samples.to - samples.from
	if n < 6 || n > 9 || start.to > samples.from {
		t.Fatalf("cannot rewrite: %d bytes for samples", n)
	}
	var ev []byte
	ev = append(ev, bad[:start.from]...)
	ev = append(ev, 0)
	ev = append(ev, bad[start.to:samples.from]...)
	ev = append(ev, 0x81)
	for i := 0; i < n-2; i++ {
		ev = append(ev, 0x80)
	}
	ev = append(ev, 0)
	ev = append(ev, bad[samples.to:]...)
	if len(ev) != len(bad) {
		t.Fatalf("rewritten chunk is %d bytes, want %d", len(ev), len(bad))
	}
	bad = ev

	two := append(append([]byte(nil), good...), bad...)
	_, _, err = DecodeBytes(two, Options{})
	if err == nil || !strings.Contains(err.Error(), "chunk 2 at byte "+strconv.Itoa(len(good))+": event at byte ") || !strings.Contains(err.Error(), "jfr-parser") {
		t.Fatalf("error %v, want chunk 2's event named, failed in jfr-parser", err)
	}
	_, alone, err := DecodeBytes(good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, info, err := DecodeBytes(two, Options{Salvage: true, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	if info.Chunks != 1 || len(info.Events) != len(alone.Events) {
		t.Fatalf("salvaged %d chunks, events %v; the first chunk alone: %v", info.Chunks, info.Events, alone.Events)
	}
	for typ, n := range alone.Events {
		if info.Events[typ] != n {
			t.Errorf("%s: %d events read, the first chunk alone has %d", typ, info.Events[typ], n)
		}
	}
}
