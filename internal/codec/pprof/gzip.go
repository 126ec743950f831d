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

// GzipMemory is about what gzipping n bytes of raw encoding may hold at
// once: the blocks pgzip compresses side by side (two a core, each its
// input and output, and a share of the compressors'; measured, a block
// in flight takes 0.4 to 0.65 MB), never more than the encoding has.
func GzipMemory(n int64) int64 {
	if n < ParallelGzipFrom {
		return 1 << 20 // one compressor's tables
	}
	blocks := min(int64(2*runtime.GOMAXPROCS(0)), (n+gzipBlock-1)/gzipBlock)
	return blocks * gzipBlock
}

// smallGzip is the size of raw encoding below which a profile, written in
// one piece, is gzipped without a history (klauspost's stateless mode):
// the default level's hash tables, some 1 MB, took ~100 page faults to
// compress a few kilobytes, more than the compressing itself. Such a file
// comes out up to ~8 % larger (the symbolized cprog fixture: 3,385 bytes
// against 3,134).
const smallGzip = 16 << 10

// newGzip returns a gzip writer to w for n bytes of raw encoding (for
// EncodeStream: its first piece, the whole profile when it is small):
// parallel when large, stateless when small.
func newGzip(w io.Writer, n int) (io.WriteCloser, error) {
	if n < smallGzip {
		return gzip.NewWriterLevel(w, gzip.StatelessCompression)
	}
	if n < ParallelGzipFrom {
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
