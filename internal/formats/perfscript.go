package formats

import (
	"bufio"

	"github.com/pprofx/pprofx/internal/codec/perfscript"
	"github.com/pprofx/pprofx/internal/detect"
)

func init() {
	formatTitles[detect.PerfScript] = "perf script text"
	registerReader(detect.PerfScript, func(r *bufio.Reader, in *Input, opts ReadOptions) error {
		p, err := perfscript.Decode(r, perfscript.Options{Warn: opts.Warn})
		if err != nil {
			return err
		}
		in.Items = []Item{{Profile: p}}
		return nil
	})
}
