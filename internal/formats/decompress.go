package formats

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/pprofx/pprofx/internal/detect"
)

// DecompressError is a failure of the decompressor, not of the content:
// only these errors are named after the compression ("gzip: unexpected
// EOF"); a content error inside a gzip file is the content's own
// ("pprof: no string table").
type DecompressError struct {
	Compression detect.Compression
	Err         error
}

func (e *DecompressError) Error() string {
	msg := e.Err.Error()
	if strings.HasPrefix(msg, string(e.Compression)+": ") {
		return msg // the decompressor named itself
	}
	return string(e.Compression) + ": " + msg
}

func (e *DecompressError) Unwrap() error { return e.Err }

// errTrailing: what follows a gzip member is neither the end of the input
// nor another member.
var errTrailing = errors.New("trailing bytes after the end of the gzip stream")

// decompressor marks the errors of the reader r of compression c.
type decompressor struct {
	r io.Reader
	c detect.Compression
}

func (d *decompressor) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		var de *DecompressError
		if !errors.As(err, &de) {
			err = &DecompressError{d.c, err}
		}
	}
	return n, err
}

// gzipMembers reads the gzip members of src one after another, as gzip(1)
// does, and fails with errTrailing when bytes that start no member follow
// one (Go's multistream reader calls that "invalid header" or "unexpected
// EOF").
type gzipMembers struct {
	zr  *gzip.Reader
	src *bufio.Reader
}

func newGzipMembers(zr *gzip.Reader, src *bufio.Reader) *gzipMembers {
	zr.Multistream(false)
	return &gzipMembers{zr, src}
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		if err != io.EOF {
			return n, err
		}
		// The end of a member: the end of the input, another member, or
		// trailing bytes.
		head, perr := g.src.Peek(2)
		switch {
		case len(head) == 0 && perr == io.EOF:
			return n, io.EOF
		case len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b:
			if err := g.zr.Reset(g.src); err != nil {
				return n, err
			}
			g.zr.Multistream(false)
			if n > 0 {
				return n, nil
			}
		case perr != nil && perr != io.EOF:
			return n, perr
		default:
			return n, &DecompressError{detect.Gzip, errTrailing}
		}
	}
}
