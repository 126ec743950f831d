package gperftools

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
)

// streamOutcome renders what Stream returns as outcome renders Decode's:
// the error, or the pprof encoding (raw, through EncodeStream) with the
// Info and the warnings. gz is the gzipped encoding, made only when withGz
// (the fuzz target does without it: gzip's tables cost more than the rest
// of a small input).
func streamOutcome(t *testing.T, r io.Reader, opts Options, withGz bool) (out string, gz []byte) {
	t.Helper()
	var warns []string
	opts.Warn = func(m string) { warns = append(warns, m) }
	s, err := Stream(r, opts, t.TempDir())
	if err != nil {
		return "error: " + err.Error(), nil
	}
	defer s.Close()
	// The samples as frames and as packed ids give the same bytes.
	each := func(packed bool) pprof.Samples {
		return func(fn func([]int32, []byte, []int64) error) error { return s.Each(packed, fn) }
	}
	var raw, raw2, z bytes.Buffer
	if err := pprof.EncodeStream(&raw, s.Profile, each(true), pprof.EncodeOptions{Raw: true}); err != nil {
		t.Fatal(err)
	}
	if err := pprof.EncodeStream(&raw2, s.Profile, each(false), pprof.EncodeOptions{Raw: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw.Bytes(), raw2.Bytes()) {
		t.Fatal("the samples as frames and as packed ids encode differently")
	}
	if withGz {
		if err := pprof.EncodeStream(&z, s.Profile, each(true), pprof.EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("%x\n%+v\n%q", sha256.Sum256(raw.Bytes()), *s.Info, warns), z.Bytes()
}

// withStreamLimits runs fn with Stream's key budget and in-memory spill
// set to these sizes.
func withStreamLimits(keys, spillMem int, fn func()) {
	oldK, oldS := KeyBudget, spillBuf
	defer func() { KeyBudget, spillBuf = oldK, oldS }()
	KeyBudget, spillBuf = keys, spillMem
	fn()
}

// withResolveAfter runs fn with the resolver's goroutine started after n
// stacks.
func withResolveAfter(n int, fn func()) {
	old := resolveAfter
	defer func() { resolveAfter = old }()
	resolveAfter = n
	fn()
}

// TestStreamSameAsDecode checks that Stream, encoded by pprof.EncodeStream,
// gives the bytes Decode encoded by pprof.Encode gives, raw and gzipped,
// with the same Info and warnings, or the same error; whatever its key
// budget (all keys kept, a few, none: every match then read back from the
// spill) and whether its spill stays in memory or goes to a file.
func TestStreamSameAsDecode(t *testing.T) {
	for name, data := range parInputs(t) {
		readers := inputReaders(data)
		for rname, r := range readers {
			for _, salvage := range []bool{false, true} {
				opts := Options{Salvage: salvage}
				want := outcome(t, r(), opts)
				var wantGz []byte
				if p, _, err := Decode(r(), opts); err == nil {
					var b bytes.Buffer
					if err := pprof.Encode(&b, p, pprof.EncodeOptions{}); err != nil {
						t.Fatal(err)
					}
					wantGz = b.Bytes()
				}
				limits := [][3]int{{32 << 20, 4 << 20, 4096}}
				if rname == "unsized" {
					limits = append(limits, [3]int{300, 4 << 20, 0}, [3]int{0, 64, 0}, [3]int{1000, 1, 10}, [3]int{0, 4 << 20, 4096})
				}
				for _, lim := range limits {
					var got string
					var gotGz []byte
					withResolveAfter(lim[2], func() {
						withStreamLimits(lim[0], lim[1], func() { got, gotGz = streamOutcome(t, r(), opts, true) })
					})
					what := fmt.Sprintf("%s, %s reader, salvage %v, keys %d, spill in memory %d, resolver from stack %d", name, rname, salvage, lim[0], lim[1], lim[2])
					if got != want {
						t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
					}
					if !bytes.Equal(gotGz, wantGz) {
						t.Fatalf("%s: gzipped output differs from Encode's", what)
					}
				}
			}
		}
	}
}

// TestStreamRemovesSpill checks that the spill's temporary file is never
// seen in its folder: not while it is used, after Close, or after an
// error.
func TestStreamRemovesSpill(t *testing.T) {
	data := goldenFile(le64)
	dir := t.TempDir()
	withStreamLimits(0, 1, func() {
		s, err := Stream(bytes.NewReader(data), Options{}, dir)
		if err != nil {
			t.Fatal(err)
		}
		// The spill went to a file, which has no name (tempfile): the
		// folder stays empty however the process ends.
		if s.spill.f == nil {
			t.Fatal("nothing spilled to a file")
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("the spill file has a name: %v", ents)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("spill left behind: %v", ents)
		}
		cut := data[:recordStart(t, data, len(data)/2)+5]
		if _, err := Stream(bytes.NewReader(cut), Options{}, dir); err == nil {
			t.Fatal("no error for a cut file")
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("spill left behind after an error: %v", ents)
		}
	})
}
