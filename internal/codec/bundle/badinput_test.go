package bundle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/model"
)

func small(t testing.TB) []byte {
	data, err := bundleOf(handBuilt(0), handBuilt(1))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func open(data []byte) (*Reader, error) { return Open(bytes.NewReader(data), int64(len(data))) }

func TestIndexOutOfRange(t *testing.T) {
	r, err := open(small(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{2, 3, -1} {
		_, err := r.Profile(i)
		if err == nil || !strings.Contains(err.Error(), "out of range (bundle holds 2 profiles, 0 to 1)") {
			t.Errorf("Profile(%d) = %v", i, err)
		}
	}
}

func TestNotABundle(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("x"), []byte("\x1f\x8b\x08\x00 a gzip file, not a bundle at all....................................")} {
		if _, err := open(data); !errors.Is(err, ErrNotBundle) {
			t.Errorf("Open(%q) = %v, want ErrNotBundle", data, err)
		}
	}
}

func TestUnknownVersion(t *testing.T) {
	data := small(t)
	binary.LittleEndian.PutUint32(data[8:], 4)
	_, err := open(data)
	if err == nil || err.Error() != "bundle: unknown version 4 at byte 8 (this pprofx reads versions 1 to 3)" {
		t.Errorf("Open = %v", err)
	}
}

// TestVersion1: a bundle pprofx wrote in version 1 (no attributes of
// mappings or locations) still reads, each profile as the current reader
// reads its source.
func TestVersion1(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "bundle", "v1.ppxb"))
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != 1 {
		t.Fatalf("fixture is version %d", v)
	}
	got := unpackAll(t, data)
	want := decodeFile(t, filepath.Join("..", "..", "..", "testdata", "go", "goroutine.pb.gz"))
	if len(got) != 2 {
		t.Fatalf("%d profiles", len(got))
	}
	if d := diffProfiles(want, got[0]); d != "" {
		t.Error(d)
	}
	if len(got[1].Samples) != 113 {
		t.Errorf("profile 1: %d samples, want 113", len(got[1].Samples))
	}
}

// readAll opens data and reads every profile, returning the first error.
func readAll(data []byte) ([]*model.Profile, error) {
	r, err := open(data)
	if err != nil {
		return nil, err
	}
	var ps []*model.Profile
	for i := 0; i < r.Len(); i++ {
		p, err := r.Profile(i)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

func TestTruncated(t *testing.T) {
	data := small(t)
	for n := 0; n < len(data); n++ {
		_, err := readAll(data[:n])
		if err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(data))
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("truncated to %d: multi-line error %q", n, err)
		}
	}
}

// TestCorrupt flips every bit of a small bundle in turn: reading must fail
// with a one-line error or give back exactly the profiles written (a flip in
// a place no check covers, such as a zstd header bit that does not matter).
func TestCorrupt(t *testing.T) {
	want := []*model.Profile{handBuilt(0), handBuilt(1)}
	data := small(t)
	undetected := 0
	for i := range data {
		for bit := 0; bit < 8; bit++ {
			c := bytes.Clone(data)
			c[i] ^= 1 << bit
			got, err := readAll(c)
			if err != nil {
				if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "bundle: ") {
					t.Fatalf("byte %d bit %d: error %q", i, bit, err)
				}
				continue
			}
			undetected++
			for j := range want {
				if d := diffProfiles(want[j], got[j]); d != "" {
					t.Fatalf("byte %d bit %d: undetected corruption changed profile %d: %s", i, bit, j, d)
				}
			}
		}
	}
	t.Logf("%d of %d bit flips went unnoticed without changing any profile", undetected, 8*len(data))
}

func TestAddInvalid(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	p := handBuilt(0)
	p.Samples[1].Stack = 99
	err := w.Add(Entry{Name: "bad.pb.gz"}, p)
	if err == nil || !strings.Contains(err.Error(), "profile 0 (bad.pb.gz): sample[1].stack: index 99 out of range") {
		t.Errorf("Add = %v", err)
	}
}

// TestMagicMatchesDetect: format detection keys on the same 8 bytes.
func TestMagicMatchesDetect(t *testing.T) {
	if Magic != detect.BundleMagic {
		t.Fatalf("bundle.Magic %q, detect.BundleMagic %q", Magic, detect.BundleMagic)
	}
	data := small(t)
	if res, err := detect.Sniff(data[:min(len(data), detect.HeadSize)]); err != nil || res.Format != detect.Bundle {
		t.Fatalf("detect.Sniff = %v, %v", res, err)
	}
}

// TestVersion2: a bundle pprofx wrote in version 2 (attributes of mappings
// and locations, no units, no typed sample attributes) still reads, each
// profile as the current reader reads its source, except that the eBPF
// profiler's thread.name and thread.id attributes are in it as the labels
// thread.name and thread.id, as the OTLP reader read them then (today it
// reads them as thread and thread_id).
func TestVersion2(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata")
	data, err := os.ReadFile(filepath.Join(dir, "bundle", "v2.ppxb"))
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != 2 {
		t.Fatalf("fixture is version %d", v)
	}
	got := unpackAll(t, data)
	want := []*model.Profile{decodeFile(t, filepath.Join(dir, "go", "goroutine.pb.gz"))}
	src, err := os.ReadFile(filepath.Join(dir, "otlp-dev", "ebpf-v1.9.otlp"))
	if err != nil {
		t.Fatal(err)
	}
	ebpf, err := otlp.Decode(src, otlp.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ebpf {
		for i, k := range p.Strings {
			switch k {
			case "thread":
				p.Strings[i] = "thread.name"
			case "thread_id":
				p.Strings[i] = "thread.id"
			}
		}
	}
	want = append(want, ebpf...)
	if len(got) != len(want) {
		t.Fatalf("%d profiles, want %d", len(got), len(want))
	}
	for i := range want {
		if d := diffProfiles(want[i], got[i]); d != "" {
			t.Errorf("profile %d: %s", i, d)
		}
	}
}

// TestLineWithoutFunction: a line naming no function (OTLP allows one,
// pprof does not) is stored naming a function whose every field is empty,
// with one warning, as the pprof writer does; it never panics.
func TestLineWithoutFunction(t *testing.T) {
	p := model.New()
	p.AddLocation(model.Location{Address: 0x1000, Mapping: model.NoMapping}, model.Line{Function: model.NoFunction, Line: 7})
	p.Stacks.Add([]int32{0})
	p.SampleTypes = []model.ValueType{{}}
	p.Samples = []model.Sample{model.NewSample(0, []int64{3})}
	var buf bytes.Buffer
	var warnings []string
	w := NewWriter(&buf, WriterOptions{Warn: func(m string) { warnings = append(warnings, m) }})
	if err := w.Add(Entry{Name: "a"}, p); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(Entry{Name: "b"}, p); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 {
		t.Errorf("warnings %q, want one", warnings)
	}
	got, err := readAll(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	ln := got[0].LocationLines(0)[0]
	if ln.Function == model.NoFunction || ln.Line != 7 {
		t.Fatalf("line read back as %+v", ln)
	}
	if f := got[0].Functions[ln.Function]; f != (model.Function{}) {
		t.Errorf("function %+v, want every field empty", f)
	}
}

// TestStreamErrorThenBlock: a block whose frame holds more than its
// stated raw size is streamed and fails part way (index-over.ppxb: its
// index block states 123 bytes). The decoder it used, back in the pool,
// must still decompress the next block read (index-after.ppxb's index, in
// one go): it waited forever for its one block decoder, and pprofx
// inspect of the two files hung. FuzzReader found both, in this order.
func TestStreamErrorThenBlock(t *testing.T) {
	var files [][]byte
	for _, name := range []string{"testdata/index-over.ppxb", "testdata/index-after.ppxb"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	want := []string{
		"index block at byte 925: decompresses to more than its 123 bytes",
		"tables block at byte 154: fse decompress returned: unexpected EOF",
	}
	done := make(chan error, 1)
	go func() {
		for range 3 {
			for i, b := range files {
				r, err := OpenLimit(bytes.NewReader(b), int64(len(b)), fuzzLimit(len(b)))
				if err == nil {
					_, err = r.Profile(0)
				}
				if err == nil || !strings.Contains(err.Error(), want[i]) {
					done <- fmt.Errorf("file %d: %v, want %q", i, err, want[i])
					return
				}
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("reading a bundle after a block that failed part way has not ended in 30 s")
	}
}
