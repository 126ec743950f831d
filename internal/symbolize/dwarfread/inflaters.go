package dwarfread

import (
	"bytes"
	stdflate "compress/flate"
	"fmt"
	"io"

	"github.com/klauspost/compress/flate"
)

// An inflater decodes a raw DEFLATE stream (RFC 1951) into a buffer that
// has the whole decompressed size, as far as asked: a lazily read section
// (lazySection) is inflated only up to the bytes it needs, and resumed
// from there when it needs more.
type inflater interface {
	// inflate decodes until the first to bytes of the buffer are written
	// (or all of it, if to is past its end), and returns how many are.
	// After an error it returns the same error again.
	inflate(to int) (int, error)
}

// inflaters are the DEFLATE decoders a lazy section can use, by name:
// this package's own (inflate.go), and the streaming readers of
// github.com/klauspost/compress/flate and of the standard library.
// BenchmarkInflaters and BenchmarkSymbolizeInflaters compare them.
var inflaters = map[string]func(in, out []byte) inflater{
	"pprofx": func(in, out []byte) inflater { return &ownInflater{in: in, out: out} },
	"klauspost": func(in, out []byte) inflater {
		return &streamInflater{r: flate.NewReader(bytes.NewReader(in)), out: out}
	},
	"stdlib": func(in, out []byte) inflater {
		return &streamInflater{r: stdflate.NewReader(bytes.NewReader(in)), out: out}
	},
}

// newInflater makes the inflater lazy sections use.
var newInflater = inflaters["pprofx"]

// streamInflater inflates with a streaming DEFLATE reader, into out.
type streamInflater struct {
	r   io.ReadCloser
	out []byte
	n   int
	err error
}

func (s *streamInflater) inflate(to int) (int, error) {
	to = min(to, len(s.out))
	if s.n >= to || s.err != nil {
		return s.n, s.err
	}
	k, err := io.ReadFull(s.r, s.out[s.n:to])
	s.n += k
	if err != nil {
		s.err = fmt.Errorf("%w (%v)", errInflate, err)
	}
	if s.n == len(s.out) || s.err != nil {
		s.r.Close()
	}
	return s.n, s.err
}
