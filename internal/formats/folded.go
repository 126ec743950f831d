package formats

import (
	"bufio"
	"io"

	"github.com/pprofx/pprofx/internal/codec/folded"
	"github.com/pprofx/pprofx/internal/detect"
)

// OutFolded is folded ("collapsed") stacks.
const OutFolded OutFormat = "folded"

func init() {
	registerReader(detect.Folded, func(r *bufio.Reader, in *Input, opts ReadOptions) error {
		p, err := folded.Decode(r, folded.ReadOptions{SampleType: opts.SampleType})
		if err != nil {
			return err
		}
		in.Items = []Item{{Profile: p}}
		return nil
	})
	registerWriter(OutFolded, writer{
		desc:      "folded stacks, one sample type (.folded, .collapsed)",
		stackView: true,
		suffixes:  []string{".folded", ".collapsed"},
		text:      true,
		write: func(w io.Writer, items []Item, opts WriteOptions) error {
			return folded.Encode(w, items[0].Profile, folded.WriteOptions{SampleType: opts.SampleType, Lines: opts.Lines, Warn: opts.Warn})
		},
	})
}
