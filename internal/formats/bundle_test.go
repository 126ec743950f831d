package formats

import (
	"bytes"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/testutil/synth"
)

// A bundle file summarized (inspect: Stream, Summary, Each) is read in
// place, block by block, not whole: it gives the profiles the bundle's
// bytes read whole give, and leaves the file's blocks unread.
func TestBundleSummarizedInPlace(t *testing.T) {
	buf, name := noisyBundle(t)
	read := func(r io.Reader) []Item {
		var items []Item
		_, err := Read(r, ReadOptions{Stream: true, Summary: true, Each: func(it Item) error {
			items = append(items, it)
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		return items
	}
	whole := read(bytes.NewReader(buf.Bytes()))
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inPlace := read(f)
	if len(whole) != 2 || !reflect.DeepEqual(whole, inPlace) {
		t.Fatalf("read in place: %d profiles, differing from the %d of the bundle read whole", len(inPlace), len(whole))
	}
	if pos, _ := f.Seek(0, io.SeekCurrent); pos > 1<<20 {
		t.Errorf("the file was read to byte %d of %d, as if whole", pos, buf.Len())
	}
}

// noisyBundle writes a bundle of two profiles, each with a comment of 1
// MiB that zstd cannot shrink, to a file; it returns its bytes and the
// file's name.
func noisyBundle(t *testing.T) (*bytes.Buffer, string) {
	var buf bytes.Buffer
	w := bundle.NewWriter(&buf, bundle.WriterOptions{})
	rng := rand.New(rand.NewSource(1))
	for i := range 2 {
		b := synth.Locations(3)
		noise := make([]byte, 1<<20)
		rng.Read(noise)
		b.P.Comments = []int32{b.String(string(noise))}
		if err := w.Add(bundle.Entry{Name: string(rune('a' + i))}, b.P); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "two.ppxb")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return &buf, name
}

// A bundle file read whole (convert, not a summary) is read in place as
// well, block by block, not copied into memory first: the profiles are
// those of the bytes read whole, and the file is read by its blocks'
// offsets, its own offset left where detection left it; its size is the
// file's (convert's --max-expansion counts it).
func TestBundleReadInPlace(t *testing.T) {
	buf, name := noisyBundle(t)
	whole, err := Read(bytes.NewReader(buf.Bytes()), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inPlace, err := Read(f, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Items) != 2 || !reflect.DeepEqual(whole.Items, inPlace.Items) {
		t.Fatalf("read in place: %d profiles, differing from the %d of the bundle read whole", len(inPlace.Items), len(whole.Items))
	}
	if inPlace.Size != int64(buf.Len()) || whole.Size != inPlace.Size {
		t.Errorf("input size %d read in place, %d read whole, want the file's %d", inPlace.Size, whole.Size, buf.Len())
	}
	if pos, _ := f.Seek(0, io.SeekCurrent); pos > 1<<20 {
		t.Errorf("the file was read to byte %d of %d, as if whole", pos, buf.Len())
	}
}
