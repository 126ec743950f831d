package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/pprofx/pprofx/internal/fileio/output"
	"github.com/pprofx/pprofx/internal/formats"
)

// writeOutput writes to path ("-": stdout) atomically. Its errors name a
// file: fn's own FileErrors (about an input, say) pass through, any other
// error is about path.
func writeOutput(ios *IOStreams, path string, fn func(w io.Writer) error) error {
	err := output.Write(path, ios.Out, fn)
	var fe *FileError
	var ue *UsageError
	if err == nil || errors.As(err, &fe) || errors.As(err, &ue) || errors.Is(err, errReported) {
		return err
	}
	return &FileError{path, err}
}

// outputFormat is the format to write: --to, else the one the output's
// name says. A name whose extension names no format needs --to: writing
// gzipped pprof to x.json would surprise.
func outputFormat(to, out string) (formats.OutFormat, error) {
	if to != "" {
		f, err := formats.ParseOutFormat(to)
		if err != nil {
			return "", &UsageError{err.Error()}
		}
		return f, nil
	}
	f, ok := formats.OutFormatForPath(out)
	if !ok {
		return "", &UsageError{fmt.Sprintf("%s: %q names no output format (%s); choose one with --to",
			out, filepath.Ext(out), strings.Join(formats.Suffixes(), ", "))}
	}
	return f, nil
}

// writeOptions are the options every command writes a profile to out
// with, so that convert and unpack write the same bytes for the same
// profile and output name.
func writeOptions(ios *IOStreams, out string) formats.WriteOptions {
	return formats.WriteOptions{Warn: warner(ios, out), ScopeVersion: version(),
		Gzip: strings.HasSuffix(strings.ToLower(out), ".gz")}
}

// refuseTerminal refuses to write a binary format to standard output when
// it is a terminal; text (OTLP JSON) may go there.
func refuseTerminal(ios *IOStreams, out string, to formats.OutFormat) error {
	if output.IsStdout(out) && ios.OutIsTerminal && !formats.IsText(to, false) {
		return &UsageError{"refusing to write a binary profile to a terminal: name an output with -o, or pipe it"}
	}
	return nil
}
