package cli

import (
	"io"

	"github.com/pprofx/pprofx/internal/output"
)

// writeOutput writes to path ("-": stdout) atomically.
func writeOutput(ios *IOStreams, path string, fn func(w io.Writer) error) error {
	return output.Write(path, ios.Out, fn)
}
