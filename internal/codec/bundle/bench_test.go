package bundle

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
)

// The benchmarks run on the corpus of scripts/bench/bundle-corpus.sh (100 files)
// and skip without it.

type corpusData struct {
	files  []string
	raw    [][]byte
	models []*model.Profile
	bundle []byte
}

var corpusCache *corpusData

func loadCorpus(b *testing.B) *corpusData {
	if corpusCache != nil {
		return corpusCache
	}
	c := &corpusData{files: corpusFiles(b)}
	for _, f := range c.files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		c.raw = append(c.raw, data)
		p, err := pprof.Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		c.models = append(c.models, p)
	}
	var err error
	if c.bundle, err = bundleOf(c.models...); err != nil {
		b.Fatal(err)
	}
	corpusCache = c
	return c
}

// BenchmarkParseData is the reference for merge time: google/pprof reading
// the same 100 files.
func BenchmarkParseData(b *testing.B) {
	c := loadCorpus(b)
	for b.Loop() {
		for _, data := range c.raw {
			if _, err := profile.ParseData(data); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkMerge is what `pprofx merge` does with the 100 files once they
// are read: decode each with pprof.Decode and add it; then close.
func BenchmarkMerge(b *testing.B) {
	c := loadCorpus(b)
	b.ReportAllocs()
	for b.Loop() {
		w := NewWriter(io.Discard, WriterOptions{})
		for i, data := range c.raw {
			p, err := pprof.Decode(data)
			if err != nil {
				b.Fatal(err)
			}
			if err := w.Add(Entry{Name: c.files[i], SourceFormat: "pprof"}, p); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite measures the bundle writer alone: 100 decoded profiles in,
// a bundle out.
func BenchmarkWrite(b *testing.B) {
	c := loadCorpus(b)
	b.ReportAllocs()
	for b.Loop() {
		w := NewWriter(io.Discard, WriterOptions{})
		for _, p := range c.models {
			if err := w.Add(Entry{Name: "x"}, p); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnpackOne opens the bundle and reads one profile (the middle
// one), as `pprofx unpack --index` does; BenchmarkUnpackAll reads all 100.
func BenchmarkUnpackOne(b *testing.B) {
	c := loadCorpus(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := Open(bytes.NewReader(c.bundle), int64(len(c.bundle)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Profile(r.Len() / 2); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnpackAll(b *testing.B) {
	c := loadCorpus(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := Open(bytes.NewReader(c.bundle), int64(len(c.bundle)))
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < r.Len(); i++ {
			if _, err := r.Profile(i); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkUnpackOnePprof and BenchmarkUnpackAllPprof also write the
// profiles out as gzipped pprof, as `pprofx unpack` does.
func BenchmarkUnpackOnePprof(b *testing.B) {
	c := loadCorpus(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := Open(bytes.NewReader(c.bundle), int64(len(c.bundle)))
		if err != nil {
			b.Fatal(err)
		}
		p, err := r.Profile(r.Len() / 2)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.Encode(io.Discard, p, pprof.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnpackAllPprof(b *testing.B) {
	c := loadCorpus(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := Open(bytes.NewReader(c.bundle), int64(len(c.bundle)))
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < r.Len(); i++ {
			p, err := r.Profile(i)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.Encode(io.Discard, p, pprof.EncodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDecode is the decoding share of BenchmarkMerge: pprof.Decode of
// the 100 files.
func BenchmarkDecode(b *testing.B) {
	c := loadCorpus(b)
	for b.Loop() {
		for _, data := range c.raw {
			if _, err := pprof.Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	}
}
