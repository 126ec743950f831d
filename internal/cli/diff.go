package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/diff"
	"github.com/pprofx/pprofx/internal/view/flamegraph"
)

// DiffOptions are the inputs of `pprofx diff`.
type DiffOptions struct {
	IO           *IOStreams
	Base, New    string
	Output       string
	To           string
	Subtract     bool
	Normalize    bool
	SampleType   string
	Lines        bool
	MaxInputSize int64
	Salvage      bool
	Filters      FilterFlags
}

// NewCmdDiff builds `pprofx diff`. runF replaces diffRun in tests.
func NewCmdDiff(ios *IOStreams, runF func(*DiffOptions) error) *cobra.Command {
	o := &DiffOptions{IO: ios}
	size := byteSize(formats.DefaultMaxInputSize)
	cmd := &cobra.Command{
		Use:   "diff BASE NEW -o OUT [--subtract] [--normalize]",
		Short: "Compare two profiles as pprof -diff_base does",
		Long: `Diff reads two profiles, in any format pprofx reads, and writes NEW minus
BASE as google/pprof writes it with pprof -proto -diff_base=BASE NEW: the two
merged, BASE's values negated and its samples labelled pprof::base=true,
equal stacks with equal labels summed, samples whose values are all zero
dropped. Sample types are matched by name (those both have are kept, in
NEW's order, in the finer unit); the period types must match; a binary
loaded at another address in BASE is matched to NEW's mapping of it and
BASE's addresses moved. No shared sample type is an error naming both files.

--subtract is pprof's -base: BASE is subtracted without the label, so that
equal stacks cancel. --normalize is pprof's -normalize: NEW is first scaled,
sample by sample, to BASE's total of each sample type (both must have the
same sample types).

The output is any format pprofx writes, by --to or the output's name: .pb.gz
(what pprof writes), OTLP, folded stacks (negative values), speedscope, or
.html: a differential flame graph, one self-contained page whose frames are
sized by NEW and coloured by the change from BASE (red grew, blue shrank),
with both totals, search, zoom and the sample type selector. A frame only in
BASE has no width there, and --subtract does not change the page.

Filters apply to the merged profile, as pprof applies them (so to both). The
time window (--from, --until) cuts each input first, by its own start.
` + filterHelp,
		Example: `  pprofx diff testdata/corpus/cpu-00.pb.gz testdata/corpus/cpu-01.pb.gz -o cpu-diff.pb.gz
  pprofx diff testdata/corpus/heap-00.pb.gz testdata/corpus/heap-01.pb.gz -o heap-diff.speedscope.json
  pprofx diff testdata/corpus/cpu-00.pb.gz testdata/corpus/cpu-01.pb.gz -o - --to folded --subtract
  pprofx diff testdata/corpus/cpu-00.pb.gz testdata/corpus/cpu-01.pb.gz -o cpu-diff.html
  pprofx diff testdata/gperftools/le64-100hz.prof testdata/gperftools/le64-hot.prof -o gperf-diff.pb.gz --normalize
  pprofx diff testdata/corpus/cpu-00.pb.gz testdata/corpus/cpu-01.pb.gz -o sha.pb.gz --focus sha256
  pprofx diff testdata/jfr/cpu.jfr testdata/jfr/cpu-profile.jfr -o - --to folded --until 500ms --sample-type cpu | head -3`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Base, o.New = args[0], args[1]
			o.MaxInputSize = int64(size)
			if runF != nil {
				return runF(o)
			}
			return diffRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "-", `output file ("-": standard output)`)
	f.StringVar(&o.To, "to", "", "output format (default: from the output name)")
	f.BoolVar(&o.Subtract, "subtract", false, "pprof's -base: subtract BASE without labelling its samples, so that equal stacks cancel")
	f.BoolVar(&o.Normalize, "normalize", false, "pprof's -normalize: scale NEW to BASE's total of each sample type first")
	f.StringVar(&o.SampleType, "sample-type", "", "folded output: the sample type written; speedscope, HTML: the one shown first")
	f.BoolVar(&o.Lines, "lines", false, "folded, speedscope, HTML output: frames as \"function file:line\"")
	f.Var(&size, "max-input-size", "largest input, after decompression, that is read")
	f.BoolVar(&o.Salvage, "salvage", false, "keep what can be kept of a truncated input, with a warning")
	o.Filters.register(f)
	return cmd
}

// readOne reads the one profile of a file (a file holding several is an
// error).
func readOne(ios *IOStreams, name string, maxSize int64, salvage bool) (*model.Profile, error) {
	in, err := openInput(ios, name)
	if err != nil {
		return nil, &FileError{name, err}
	}
	defer in.Close()
	src, err := formats.Read(in, formats.ReadOptions{MaxInputSize: maxSize, Salvage: salvage, Warn: warner(ios, name)})
	if err != nil {
		return nil, &FileError{name, err}
	}
	defer src.Close()
	item, err := pick(src, -1)
	if err != nil {
		return nil, &FileError{name, err}
	}
	return item.Profile, nil
}

// diffProfiles reads BASE and NEW, cuts both to the time window of ff,
// and returns NEW minus BASE.
func diffProfiles(ios *IOStreams, base, newName string, do diff.Options, maxSize int64, salvage bool, ff *FilterFlags) (*model.Profile, error) {
	if base == "-" && newName == "-" {
		return nil, &UsageError{"BASE and NEW cannot both be standard input"}
	}
	pb, err := readOne(ios, base, maxSize, salvage)
	if err != nil {
		return nil, err
	}
	pn, err := readOne(ios, newName, maxSize, salvage)
	if err != nil {
		return nil, err
	}
	if err := ff.cut(pb, base, warner(ios, base)); err != nil {
		return nil, err
	}
	if err := ff.cut(pn, newName, warner(ios, newName)); err != nil {
		return nil, err
	}
	d, err := diff.Diff(pb, pn, do, warner(ios, newName))
	if err != nil {
		var nc *diff.NoCommonTypeError
		if errors.As(err, &nc) {
			return nil, &FileError{displayName(base) + ", " + displayName(newName), err}
		}
		return nil, &FileError{displayName(base) + ", " + displayName(newName), fmt.Errorf("cannot compare: %v", err)}
	}
	return d, nil
}

func diffRun(o *DiffOptions) error {
	ios := o.IO
	if err := o.Filters.compile(); err != nil {
		return err
	}
	to, err := outputFormat(o.To, o.Output)
	if err != nil {
		return err
	}
	if err := refuseTerminal(ios, o.Output, to); err != nil {
		return err
	}
	html := to == formats.OutHTML
	// The differential flame graph tells BASE's samples by their label,
	// so it is made from -diff_base's profile; -base's would have
	// cancelled them, and the page is the same either way.
	do := diff.Options{Subtract: o.Subtract && !html, Normalize: o.Normalize}
	d, err := diffProfiles(ios, o.Base, o.New, do, o.MaxInputSize, o.Salvage, &o.Filters)
	if err != nil {
		return err
	}
	items := []formats.Item{{Name: o.New, Profile: d}}
	o.Filters.apply(items, warner(ios, o.New))
	if html {
		fo := flamegraph.Options{SampleType: o.SampleType, Lines: o.Lines, Warn: warner(ios, o.Output),
			Base: diff.BaseSamples(d), BaseName: displayName(o.Base), NewName: displayName(o.New),
			Title: "pprofx diff " + displayName(o.Base) + " " + displayName(o.New)}
		return writeOutput(ios, o.Output, func(w io.Writer) error {
			return flamegraph.Encode(w, d, fo)
		})
	}
	wo := writeOptions(ios, o.Output)
	wo.SampleType, wo.Lines = o.SampleType, o.Lines
	return writeOutput(ios, o.Output, func(w io.Writer) error {
		return formats.Write(w, to, items, wo)
	})
}
