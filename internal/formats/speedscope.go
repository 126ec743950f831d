package formats

import (
	"io"

	"github.com/pprofx/pprofx/internal/codec/speedscope"
)

// OutSpeedscope is speedscope's JSON file format.
const OutSpeedscope OutFormat = "speedscope"

func init() {
	registerWriter(OutSpeedscope, writer{
		desc:     "speedscope JSON, every sample type (.speedscope.json)",
		suffixes: []string{".speedscope.json"},
		text:     true,
		write: func(w io.Writer, items []Item, opts WriteOptions) error {
			return speedscope.Encode(w, items[0].Profile, speedscope.Options{SampleType: opts.SampleType, Lines: opts.Lines,
				Name: items[0].Name, Exporter: "pprofx " + opts.ScopeVersion, Warn: opts.Warn})
		},
	})
}
