package formats

import (
	"io"

	"github.com/pprofx/pprofx/internal/view/flamegraph"
)

// OutHTML is a self-contained HTML flame graph.
const OutHTML OutFormat = "html"

func init() {
	registerWriter(OutHTML, writer{
		desc:      "self-contained HTML flame graph, every sample type (.html)",
		stackView: true,
		suffixes:  []string{".html", ".htm"},
		text:      true,
		write: func(w io.Writer, items []Item, opts WriteOptions) error {
			return flamegraph.Encode(w, items[0].Profile, flamegraph.Options{SampleType: opts.SampleType, Lines: opts.Lines,
				Title: items[0].Name, Warn: opts.Warn})
		},
	})
}
