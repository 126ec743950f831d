package pprof

import (
	"fmt"
	"io"

	"github.com/pprofx/pprofx/internal/model"
)

// Samples yields a profile's samples in order to fn: each one's stack
// (location indices, leaf first) and values; the slices may be reused.
// A source that has the stack as profile.proto packs it (the uvarints of
// each location index + 1) passes it as packed and a nil stack.
type Samples func(fn func(stack []int32, packed []byte, values []int64) error) error

// EncodeStream writes, as Encode does, the profile whose tables are in p
// (its Samples and Stacks empty) and whose samples, without labels, come
// from samples. The bytes are those Encode writes for the same profile
// with its samples in p, one stack each; they reach w in pieces of about
// 1 MiB, so memory does not grow with the samples.
func EncodeStream(w io.Writer, p *model.Profile, samples Samples, opts EncodeOptions) error {
	if len(p.Samples) > 0 || p.Stacks.Len() > 0 {
		return fmt.Errorf("pprof: EncodeStream: the samples must come from samples alone")
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("pprof: %v", err)
	}
	if m := Unrepresentable(p); m != "" && opts.Warn != nil {
		opts.Warn(m)
	}
	// Raw output goes out in pieces of chunk bytes. Gzipped output waits
	// until it is known whether the encoding reaches ParallelGzipFrom,
	// which chooses the compressor as Encode does.
	const chunk = 1 << 20
	var out io.Writer
	var zw io.WriteCloser
	if opts.Raw {
		out = w
	}
	flushAt := chunk
	if !opts.Raw {
		flushAt = ParallelGzipFrom
	}
	// The buffer starts at the tables' size and 64 KiB of samples, and
	// grows by append up to flushAt: a profile of a few kilobytes does not
	// take megabytes it never writes (whose allocation alone would start a
	// garbage collection), and one whose tables are large (symbolized, with
	// inline frames) is not copied into larger buffers as they are written.
	buf := appendHead(make([]byte, 0, min(flushAt+flushAt/4, tablesSize(p)+64<<10)), p)
	flush := func() error {
		if out == nil {
			var err error
			if zw, err = newGzip(w, len(buf)); err != nil {
				return err
			}
			out, flushAt = zw, chunk
		}
		_, err := out.Write(buf)
		buf = buf[:0]
		return err
	}
	var ids []byte
	nloc := len(p.Locations)
	err := samples(func(stack []int32, packed []byte, values []int64) error {
		if packed == nil {
			for _, l := range stack {
				if l < 0 || int(l) >= nloc {
					return fmt.Errorf("pprof: location %d out of range", l)
				}
			}
			ids = appendPackedIDs(ids[:0], stack)
			packed = ids
		}
		buf = appendSample(buf, packed, values, nil)
		if len(buf) >= flushAt {
			return flush()
		}
		return nil
	})
	if err == nil {
		buf = appendTail(buf, p)
		err = flush()
	}
	if zw != nil {
		if cerr := zw.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
