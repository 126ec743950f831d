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
	pc := newPieces(w, opts.Raw, tablesSize(p)+64<<10)
	pc.buf = appendHead(pc.buf, p)
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
		var err error
		pc.buf, err = pc.next(appendSample(pc.buf, packed, values, nil))
		return err
	})
	if err == nil {
		pc.buf, err = appendTail(pc.buf, p, pc.next)
	}
	return pc.close(err)
}
