package pprof

import (
	"io"
	"runtime"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/pgzip"
)

// ParallelGzipFrom is the size of raw encoding from which Encode and
// EncodeStream gzip on every core (klauspost/pgzip: blocks of
// gzipBlock bytes, each compressed with the 32 KiB before it as its
// dictionary) rather than in one stream (klauspost/compress/gzip). Both are
// gzip at the default level and deterministic: pgzip cuts the input into
// blocks by their size alone, so the bytes do not depend on the cores,
// the timing or how the input was written. Only profiles whose raw
// encoding reaches this size are gzipped in parallel, and their output is a
// few per mille larger.
const ParallelGzipFrom = 4 << 20

// gzipBlock is pgzip's block size.
const gzipBlock = 1 << 20

// newGzip returns a gzip writer to w, parallel when large.
func newGzip(w io.Writer, large bool) (io.WriteCloser, error) {
	if !large {
		return gzip.NewWriterLevel(w, gzip.DefaultCompression)
	}
	zw, err := pgzip.NewWriterLevel(w, pgzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if err := zw.SetConcurrency(gzipBlock, 2*runtime.GOMAXPROCS(0)); err != nil {
		return nil, err
	}
	return zw, nil
}
