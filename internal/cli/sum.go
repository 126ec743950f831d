package cli

import (
	"errors"
	"io"
	"strings"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/sum"
)

// sumRun is `merge --sum`: every profile of the inputs (a bundle's all)
// added into one, written in any output format.
func sumRun(o *MergeOptions) error {
	ios := o.IO
	names, stdin, err := inputNames(ios, "merge", o.Inputs, o.FilesFrom)
	if err != nil {
		return err
	}
	if stdin > 1 || (stdin == 1 && o.FilesFrom == "-") {
		return &UsageError{"standard input can be read only once"}
	}
	to, err := outputFormat(o.To, o.Output)
	if err != nil {
		return err
	}
	if err := refuseTerminal(ios, o.Output, to); err != nil {
		return err
	}
	// Each input is added as it is read, and let go: memory holds the
	// sum and one input.
	x := sum.New(warner(ios, o.Output))
	var addErr error
	for i, name := range names {
		ios.progress("adding", i+1, len(names), name)
		err := mergeInput(o, name, func(e bundle.Entry, p *model.Profile, _ int64) bool {
			addErr = x.Add(e.Name, p)
			return addErr == nil
		})
		if err == nil {
			err = addErr
		}
		if err != nil {
			ios.clearProgress()
			var se *sum.Error
			if errors.As(err, &se) {
				return &FileError{strings.Join(se.Names, ", "), se.Err}
			}
			return &FileError{name, err}
		}
	}
	ios.clearProgress()
	p, err := x.Sum()
	if err != nil {
		return &FileError{o.Output, err}
	}
	items := []formats.Item{{Name: o.Output, Profile: p}}
	wo := writeOptions(ios, o.Output)
	return writeOutput(ios, o.Output, func(w io.Writer) error {
		return formats.Write(w, to, items, wo)
	})
}
