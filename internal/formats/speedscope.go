package formats

import (
	"bufio"
	"io"

	"github.com/pprofx/pprofx/internal/codec/speedscope"
	"github.com/pprofx/pprofx/internal/detect"
)

// OutSpeedscope is speedscope's JSON file format.
const OutSpeedscope OutFormat = "speedscope"

func init() {
	// The JSON is read whole; the input is bounded by --max-input-size.
	// Each profile of the file is an item (--index picks one), but for a
	// file pprofx wrote, whose profiles are one profile's sample types.
	registerReader(detect.Speedscope, func(r *bufio.Reader, in *Input, opts ReadOptions) error {
		data, err := readAll(r, opts.sizeHint)
		if err != nil {
			return err
		}
		ps, err := speedscope.Decode(data, speedscope.ReadOptions{Warn: opts.Warn})
		if err != nil {
			return err
		}
		for _, p := range ps {
			in.Items = append(in.Items, Item{Name: p.Name, Profile: p.Profile})
		}
		return nil
	})
	registerWriter(OutSpeedscope, writer{
		desc:      "speedscope JSON, every sample type (.speedscope.json)",
		stackView: true,
		suffixes:  []string{".speedscope.json"},
		text:      true,
		write: func(w io.Writer, items []Item, opts WriteOptions) error {
			return speedscope.Encode(w, items[0].Profile, speedscope.Options{SampleType: opts.SampleType, Lines: opts.Lines,
				Name: items[0].Name, Exporter: "pprofx " + opts.ScopeVersion, Warn: opts.Warn})
		},
	})
}
