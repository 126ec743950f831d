package formats

import (
	"bufio"

	"github.com/pprofx/pprofx/internal/codec/legacytext"
	"github.com/pprofx/pprofx/internal/detect"
)

func init() {
	// google/pprof's parser reads the text whole; the input is bounded by
	// --max-input-size.
	registerReader(detect.LegacyText, func(r *bufio.Reader, in *Input, opts ReadOptions) error {
		data, err := readAll(r, opts.sizeHint)
		if err != nil {
			return err
		}
		p, err := legacytext.Decode(data, legacytext.Options{Warn: opts.Warn})
		if err != nil {
			return err
		}
		in.Items = []Item{{Profile: p}}
		return nil
	})
}
