package gperftools

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"testing/iotest"
	"time"

	"github.com/pprofx/pprofx/internal/codec/pprof"
)

// outcome renders everything Decode returns: the error, or the profile's
// pprof encoding with the Info and the warnings.
func outcome(t *testing.T, r io.Reader, opts Options) string {
	t.Helper()
	var warns []string
	opts.Warn = func(m string) { warns = append(warns, m) }
	p, info, err := Decode(r, opts)
	if err != nil {
		return "error: " + err.Error()
	}
	var out bytes.Buffer
	if err := pprof.Encode(&out, p, pprof.EncodeOptions{Raw: true}); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x\n%+v\n%q", sha256.Sum256(out.Bytes()), *info, warns)
}

// withPar runs fn with the records read in parallel from offset threshold,
// in batch buffers of bufSize bytes, or sequentially when threshold is -1.
func withPar(threshold int64, bufSize int, fn func()) {
	oldT, oldB := parThreshold, parBufSize
	defer func() { parThreshold, parBufSize = oldT, oldB }()
	parThreshold, parBufSize = threshold, bufSize
	if threshold < 0 {
		parThreshold = math.MaxInt64
	}
	fn()
}

// checkGoroutines fails if goroutines started since base do not end soon.
func checkGoroutines(t *testing.T, base int, what string) {
	t.Helper()
	for i := 0; runtime.NumGoroutine() > base; i++ {
		if i == 200 {
			t.Fatalf("%s: %d goroutines left running, %d before", what, runtime.NumGoroutine(), base)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// parInputs are files for the parallel reading: the fixtures, the golden
// synthetic files, and variants of one that is bad in ways the sequential
// loop reports (cut, bad records, overflow, a record longer than a batch).
func parInputs(t *testing.T) map[string][]byte {
	in := map[string][]byte{}
	names, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "gperftools", "*.prof"))
	if err != nil || len(names) == 0 {
		t.Fatalf("fixtures: %v %v", names, err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		in[filepath.Base(n)] = b
	}
	for _, l := range layouts {
		in["golden "+l.String()] = goldenFile(l)
	}
	g := goldenFile(le64)
	body := g[:recordStart(t, g, len(g))] // header and records, no trailer
	mid := recordStart(t, body, len(body)/2)
	for _, cut := range []int{len(body) - 3, len(body) / 3, mid + 5, mid + 13, mid + 20} {
		in[fmt.Sprintf("golden cut at %d", cut)] = body[:cut:cut]
	}
	insert := func(name string, f *file) {
		b := append(append(append([]byte(nil), body[:mid]...), f.buf...), body[mid:]...)
		in[name] = append(b, newFile(le64).trailer().buf...)
	}
	insert("num_pcs 0 in the middle", newFile(le64).slots(1, 0))
	insert("count 0 in the middle", newFile(le64).slots(0, 2, 5, 6))
	insert("num_pcs too large in the middle", newFile(le64).slots(1, maxPCs+1))
	insert("num_pcs past the end in the middle", newFile(le64).slots(1, 1<<20))
	insert("trailer in the middle", newFile(le64).trailer())
	long := make([]uint64, 3000)
	for i := range long {
		long[i] = 0x400000 + uint64(i)*16
	}
	insert("long record in the middle", newFile(le64).rec(2, long...))
	// Stack x reaches the largest count exactly, then overflows; so does
	// y, whose second record is of another raw stack, equal once adjusted.
	const period = math.MaxInt64 / 1000 / 100 // µs; about 100 samples fit
	m := uint64(math.MaxInt64 / (int64(period) * 1000))
	x := []uint64{0x400000 + 7*16, 0x500000 + 3*16}
	of := newFile(le64).header(period)
	for i := uint64(0); i < 400; i++ {
		of.rec(1, 0x400000+i%150*16, 0x500000+i%7*16, 0x600000)
		switch i {
		case 100:
			of.rec(m-1, x...).rec(m-1, 0x10, 0)
		case 250:
			of.rec(1, x...)
		}
	}
	end := func(f *file) []byte { return append(append([]byte(nil), of.buf...), f.buf...) }
	in["count reaching the limit"] = end(newFile(le64).rec(1, 0x10, 1).rec(1, 0x20))
	in["count overflowing"] = end(newFile(le64).rec(1, x...).rec(1, 0x20))
	in["count overflowing once adjusted"] = end(newFile(le64).rec(2, 0x10, 1).rec(1, 0x20))
	adj := newFile(le64).header(10000)
	for i := uint64(0); i < 2000; i++ {
		adj.rec(1+i%2, 0x400000+i%300*16, i%2, 0x500000+i%5*16)
	}
	in["equal once adjusted"] = adj.buf
	return in
}

// recordStart returns the offset of the first record starting at or after
// off in a 64-bit little-endian file, or of its trailer.
func recordStart(t *testing.T, b []byte, off int) int {
	p := 40
	for p < off && le64.slot(b[p:]) != 0 {
		p += 16 + 8*int(le64.slot(b[p+8:]))
	}
	if p >= len(b) {
		t.Fatal("no record")
	}
	return p
}

// inputReaders gives data to a decoder two ways: as a reader whose size is
// known (bytes.Reader), and as one that is not and returns short reads.
func inputReaders(data []byte) map[string]func() io.Reader {
	return map[string]func() io.Reader{
		"sized":   func() io.Reader { return bytes.NewReader(data) },
		"unsized": func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
	}
}

// TestParallelSameAsSequential checks that reading records in parallel, from
// any offset and with any batch size, returns what the sequential loop does:
// the same profile, Info and warnings, or the same error; and that no
// goroutine is left running, on the error paths too.
func TestParallelSameAsSequential(t *testing.T) {
	boom := errors.New("boom")
	for name, data := range parInputs(t) {
		readers := inputReaders(data)
		readers["read error"] = func() io.Reader {
			return io.MultiReader(bytes.NewReader(data[:len(data)*2/3]), iotest.ErrReader(boom))
		}
		for rname, r := range readers {
			for _, salvage := range []bool{false, true} {
				opts := Options{Salvage: salvage}
				var want string
				withPar(-1, 0, func() { want = outcome(t, r(), opts) })
				for _, th := range []int64{0, 100, 5000} {
					for _, bs := range []int{64, 1000, 4096, 1 << 16} {
						base := runtime.NumGoroutine()
						var got string
						withPar(th, bs, func() { got = outcome(t, r(), opts) })
						what := fmt.Sprintf("%s, %s reader, salvage %v, from byte %d, batches of %d", name, rname, salvage, th, bs)
						checkGoroutines(t, base, what)
						if got != want {
							t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
						}
					}
				}
			}
		}
	}
}
