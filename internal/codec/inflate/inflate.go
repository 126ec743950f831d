// Package inflate inflates a gzipped input held in memory, for the decoders
// that take bytes rather than a stream (pprofextended.Decode, otlp.Decode); the
// command line takes compression off in internal/formats, as the bytes
// arrive, and these get plain bytes.
package inflate

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// Gzip returns data inflated when it is gzipped (at most limit bytes),
// else data itself. Errors start with name ("otlp: gzip: ..."). A size
// trailer past the limit, and a gzip inside the gzip, are refused before
// the rest is inflated.
func Gzip(data []byte, limit int64, name string) ([]byte, error) {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data, nil
	}
	// The trailer holds the size modulo 2^32: at least that much follows,
	// or the data is corrupt.
	if len(data) >= 18 {
		if n := int64(binary.LittleEndian.Uint32(data[len(data)-4:])); n > limit {
			return nil, fmt.Errorf("%s: gzip: decompressed data over %d bytes (its size trailer says %d)", name, limit, n)
		}
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: gzip: %v", name, err)
	}
	var head [2]byte
	n, err := io.ReadFull(zr, head[:])
	if err == nil && head[0] == 0x1f && head[1] == 0x8b {
		return nil, fmt.Errorf("%s: gzip inside gzip: the input is compressed twice", name)
	}
	raw, err := io.ReadAll(io.LimitReader(io.MultiReader(bytes.NewReader(head[:n]), zr), limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: gzip: %v", name, err)
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("%s: gzip: decompressed data over %d bytes", name, limit)
	}
	return raw, nil
}
