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
	var in []sum.Input
	for i, name := range names {
		ios.progress("reading", i+1, len(names), name)
		err := mergeInput(o, name, func(e bundle.Entry, p *model.Profile, _ int64) bool {
			in = append(in, sum.Input{Name: e.Name, Profile: p})
			return true
		})
		if err != nil {
			ios.clearProgress()
			return &FileError{name, err}
		}
	}
	ios.clearProgress()
	p, err := sum.Sum(in, warner(ios, o.Output))
	if err != nil {
		var se *sum.Error
		if errors.As(err, &se) {
			return &FileError{strings.Join(se.Names, ", "), se.Err}
		}
		return &FileError{o.Output, err}
	}
	items := []formats.Item{{Name: o.Output, Profile: p}}
	wo := writeOptions(ios, o.Output)
	return writeOutput(ios, o.Output, func(w io.Writer) error {
		return formats.Write(w, to, items, wo)
	})
}
