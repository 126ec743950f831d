package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pprofx/pprofx/internal/formats"
)

// ConvertOptions are the inputs of `pprofx convert`.
type ConvertOptions struct {
	IO           *IOStreams
	Input        string
	Output       string
	To           string // output format; "" = from the output name
	Index        int    // which profile of a multi-profile input; -1 = not given
	MaxInputSize int64
	Salvage      bool
}

// NewCmdConvert builds `pprofx convert`. runF replaces convertRun in tests.
func NewCmdConvert(ios *IOStreams, runF func(*ConvertOptions) error) *cobra.Command {
	o := &ConvertOptions{IO: ios}
	size := byteSize(formats.DefaultMaxInputSize)
	cmd := &cobra.Command{
		Use:   "convert IN -o OUT [--to FORMAT]",
		Short: "Convert a profile to another format",
		Long: `Convert reads one profile, whatever its format (detected from its content),
and writes it in the output format: --to FORMAT, or else the one the output's
name says (.pb.gz, .pprof: pprof; .pb: pprof-raw), or else pprof.

Output formats:
  ` + joinLines(formats.OutFormats(), "\n  ") + `

Nothing the target format can hold is lost; what it cannot hold is named in
one warning on stderr. The output is written atomically: a failed run leaves
an existing OUT untouched.`,
		Example: `  pprofx convert cpu.pb.gz -o cpu.pb
  pprofx convert heap.pb -o heap.pb.gz
  curl -s localhost:6060/debug/pprof/profile | pprofx convert - -o - --to pprof-raw | wc -c`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Input = args[0]
			o.MaxInputSize = int64(size)
			if runF != nil {
				return runF(o)
			}
			return convertRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "-", `output file ("-": standard output)`)
	f.StringVar(&o.To, "to", "", "output format (default: from the output name)")
	f.IntVar(&o.Index, "index", -1, "which profile to convert, when the input holds several (0-based)")
	f.Var(&size, "max-input-size", "largest input, after decompression, that is read")
	f.BoolVar(&o.Salvage, "salvage", false, "keep what can be kept of a truncated input, with a warning")
	return cmd
}

func joinLines(ls []string, sep string) string {
	out := ""
	for i, l := range ls {
		if i > 0 {
			out += sep
		}
		out += l
	}
	return out
}

func convertRun(o *ConvertOptions) error {
	ios := o.IO
	to := formats.OutFormatForPath(o.Output)
	if o.To != "" {
		f, err := formats.ParseOutFormat(o.To)
		if err != nil {
			return &UsageError{err.Error()}
		}
		to = f
	}
	if o.Output == "-" && ios.OutIsTerminal {
		return &UsageError{"refusing to write a binary profile to a terminal: name an output with -o, or pipe it"}
	}
	in, err := openInput(ios, o.Input)
	if err != nil {
		return &FileError{o.Input, err}
	}
	defer in.Close()
	warn := warner(ios, o.Input)
	src, err := formats.Read(in, formats.ReadOptions{MaxInputSize: o.MaxInputSize, Salvage: o.Salvage, Warn: warn})
	if err != nil {
		return &FileError{o.Input, err}
	}
	item, err := pick(src, o.Index)
	if err != nil {
		return &FileError{o.Input, err}
	}
	err = writeOutput(ios, o.Output, func(w io.Writer) error {
		return formats.Write(w, to, []formats.Item{item}, formats.WriteOptions{Warn: warner(ios, o.Output)})
	})
	if err != nil {
		return &FileError{o.Output, err}
	}
	return nil
}

// pick chooses the profile to work on from an input that may hold several.
func pick(src *formats.Input, index int) (formats.Item, error) {
	n := len(src.Items)
	switch {
	case n == 0:
		return formats.Item{}, fmt.Errorf("holds no profile")
	case index < 0 && n == 1:
		return src.Items[0], nil
	case index < 0:
		return formats.Item{}, fmt.Errorf("holds %d profiles: choose one with --index 0..%d", n, n-1)
	case index >= n:
		return formats.Item{}, fmt.Errorf("--index %d out of range: it holds %d profile(s), 0..%d", index, n, n-1)
	}
	return src.Items[index], nil
}
