package cli

import (
	"github.com/spf13/cobra"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/diff"
	"github.com/pprofx/pprofx/internal/view/top"
)

// TopOptions are the inputs of `pprofx top`.
type TopOptions struct {
	IO           *IOStreams
	Input        string
	N            int
	Cum          bool
	SampleType   string
	Index        int
	MaxInputSize int64
	Salvage      bool
	DiffBase     string // --diff-base BASE: the table of NEW minus BASE
	Subtract     bool   // --subtract: pprof's -base
	Normalize    bool   // --normalize
	Filters      FilterFlags
}

// NewCmdTop builds `pprofx top`. runF replaces topRun in tests.
func NewCmdTop(ios *IOStreams, runF func(*TopOptions) error) *cobra.Command {
	o := &TopOptions{IO: ios}
	size := byteSize(formats.DefaultMaxInputSize)
	cmd := &cobra.Command{
		Use:   "top FILE [-n N] [--cum] [--sample-type TYPE]",
		Short: "Show the functions with the most flat or cumulative value, like pprof -top",
		Long: `Top reads one profile, in any format pprofx reads, and prints the table of
pprof -top: for each function, its flat value (samples where it is the leaf),
flat%, sum% (running total of flat%), its cumulative value (samples it is
anywhere in) and cum%. The numbers, the order, the units and the inline marks
are the ones google/pprof prints for the same profile and sample type (with
-nodefraction=0: pprofx drops no rows unless -n says so).

--sample-type picks the value (a type name such as inuse_space, a
type/unit pair, or an index); the default is the profile's default sample
type, else the last, as pprof chooses. Frames without a function name are
shown as [binary], as pprof shows them.

--diff-base BASE prints pprof -top -diff_base=BASE FILE: the table of FILE
minus BASE (see pprofx diff), with --subtract (pprof's -base) and
--normalize as diff takes them. Percentages of a table with negative values
are of the sum of absolute values, as pprof's.
` + filterHelp,
		Example: `  pprofx top testdata/go/cpu.pb.gz
  pprofx top testdata/go/heap.pb.gz -n 10 --sample-type inuse_space
  pprofx top testdata/go/cpu.pb.gz --cum -n 5
  pprofx top testdata/gperftools/le64-100hz.prof --sample-type samples
  pprofx top --diff-base testdata/corpus/cpu-00.pb.gz testdata/corpus/cpu-01.pb.gz -n 10
  pprofx top testdata/go/cpu.pb.gz --focus sha256 --hide '^runtime\.'
  pprofx top testdata/jfr/cpu.jfr --sample-type cpu --from 500ms --until 1s -n 5`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Input = args[0]
			o.MaxInputSize = int64(size)
			if o.N < 0 {
				return &UsageError{"-n must be 0 (all rows) or more"}
			}
			if runF != nil {
				return runF(o)
			}
			return topRun(o)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.N, "n", "n", 0, "show the first N rows (0: all)")
	f.BoolVar(&o.Cum, "cum", false, "sort by cumulative value")
	f.StringVar(&o.SampleType, "sample-type", "", "the sample type shown (default: the profile's default, as pprof picks it)")
	f.IntVar(&o.Index, "index", -1, "which profile, when the input holds several (0-based)")
	f.Var(&size, "max-input-size", "largest input, after decompression, that is read")
	f.BoolVar(&o.Salvage, "salvage", false, "keep what can be kept of a truncated input, with a warning")
	f.StringVar(&o.DiffBase, "diff-base", "", "print the table of FILE minus this profile, as pprof -diff_base")
	f.BoolVar(&o.Subtract, "subtract", false, "with --diff-base: pprof's -base (equal stacks cancel)")
	f.BoolVar(&o.Normalize, "normalize", false, "with --diff-base: scale FILE to the base's totals first")
	o.Filters.register(f)
	return cmd
}

func topRun(o *TopOptions) error {
	ios := o.IO
	if err := o.Filters.compile(); err != nil {
		return err
	}
	if o.DiffBase == "" && (o.Subtract || o.Normalize) {
		return &UsageError{"--subtract and --normalize go with --diff-base"}
	}
	if o.DiffBase != "" {
		if o.Index >= 0 {
			return &UsageError{"--index does not go with --diff-base"}
		}
		d, err := diffProfiles(ios, o.DiffBase, o.Input, diff.Options{Subtract: o.Subtract, Normalize: o.Normalize}, o.MaxInputSize, o.Salvage, &o.Filters)
		if err != nil {
			return err
		}
		return o.table(d)
	}
	in, err := openInput(ios, o.Input)
	if err != nil {
		return &FileError{o.Input, err}
	}
	defer in.Close()
	src, err := formats.Read(in, formats.ReadOptions{MaxInputSize: o.MaxInputSize, Salvage: o.Salvage, Warn: warner(ios, o.Input)})
	if err != nil {
		return &FileError{o.Input, err}
	}
	item, err := pick(src, o.Index)
	if err != nil {
		return &FileError{o.Input, err}
	}
	if err := o.Filters.cut(item.Profile, o.Input, warner(ios, o.Input)); err != nil {
		return err
	}
	return o.table(item.Profile)
}

// table filters p and prints its table; percentages are of the total
// before filtering, as pprof's.
func (o *TopOptions) table(p *model.Profile) error {
	total, err := top.TotalOf(p, o.SampleType)
	if err != nil {
		return &FileError{o.Input, err}
	}
	o.Filters.apply([]formats.Item{{Profile: p}}, warner(o.IO, o.Input))
	tab, err := top.Compute(p, top.Options{SampleType: o.SampleType, Cum: o.Cum, EdgeFraction: top.DefaultEdgeFraction, Total: &total})
	if err != nil {
		return &FileError{o.Input, err}
	}
	return top.Write(o.IO.Out, tab, o.N)
}
