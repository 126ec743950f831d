package formats

import (
	"bufio"

	"github.com/pprofx/pprofx/internal/codec/cpuprofile"
	"github.com/pprofx/pprofx/internal/detect"
)

func init() {
	// The JSON is read whole; the input is bounded by --max-input-size.
	registerReader(detect.CPUProfile, func(r *bufio.Reader, in *Input, opts ReadOptions) error {
		data, err := readAll(r, opts.sizeHint)
		if err != nil {
			return err
		}
		p, err := cpuprofile.Decode(data, cpuprofile.Options{Warn: opts.Warn})
		if err != nil {
			return err
		}
		in.Items = []Item{{Profile: p}}
		return nil
	})
}
