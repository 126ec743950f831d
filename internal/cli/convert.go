package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/otlp"
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
	// OTLP output.
	ProfileID    string   // --profile-id HEX; "" = derived from the content
	Resource     []string // --resource KEY=VALUE, repeated
	KeepOriginal bool     // --keep-original: embed a non-pprof source
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
name says (.pb.gz, .pprof: pprof; .pb: pprof-raw; .otlp, .otlp.gz: otlp;
.otlp.json: otlp-json; a further .gz gzips OTLP), or else pprof.

Output formats:
  ` + joinLines(formats.OutFormats(), "\n  ") + `

An input holding several profiles (a bundle, an OTLP file with several
containers) needs --index N, except for OTLP output, which takes them all,
one container each, unless --index picks one.

Nothing the target format can hold is lost; what it cannot hold is named in
one warning on stderr. The output is written atomically: a failed run leaves
an existing OUT untouched.`,
		Example: `  pprofx convert cpu.pb.gz -o cpu.pb
  pprofx convert heap.pb -o heap.pb.gz
  pprofx convert cpu.pb.gz -o cpu.otlp --resource service.name=api
  pprofx convert cpu.otlp -o back.pb.gz
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
	f.StringVar(&o.ProfileID, "profile-id", "", "OTLP output: the profile_id, 32 hex digits (default: derived from the content)")
	f.StringArrayVar(&o.Resource, "resource", nil, "OTLP output: a resource attribute KEY=VALUE, e.g. service.name=api (repeatable)")
	f.BoolVar(&o.KeepOriginal, "keep-original", false, "OTLP output: embed a non-pprof input file as the original_payload")
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
	to, err := outputFormat(o.To, o.Output)
	if err != nil {
		return err
	}
	wo := writeOptions(ios, o.Output)
	wo.KeepOriginal = o.KeepOriginal
	if o.ProfileID != "" {
		id, err := otlp.ParseProfileID(o.ProfileID)
		if err != nil {
			return &UsageError{err.Error()}
		}
		wo.ProfileID = id
	}
	res, err := otlp.ParseResource(o.Resource)
	if err != nil {
		return &UsageError{err.Error()}
	}
	wo.Resource = res
	if err := refuseTerminal(ios, o.Output, to); err != nil {
		return err
	}
	in, err := openInput(ios, o.Input)
	if err != nil {
		return &FileError{o.Input, err}
	}
	defer in.Close()
	warn := warner(ios, o.Input)
	src, err := formats.Read(in, formats.ReadOptions{MaxInputSize: o.MaxInputSize, Salvage: o.Salvage, Warn: warn, KeepOriginal: o.KeepOriginal})
	if err != nil {
		return &FileError{o.Input, err}
	}
	// A format that holds several profiles (OTLP) takes them all, unless
	// --index picks one; any other needs --index for a multi-profile input.
	items := src.Items
	if o.Index >= 0 || len(items) <= 1 || !formats.HoldsMany(to) {
		item, err := pick(src, o.Index)
		if err != nil {
			return &FileError{o.Input, err}
		}
		items = []formats.Item{item}
	}
	err = writeOutput(ios, o.Output, func(w io.Writer) error {
		return formats.Write(w, to, items, wo)
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
