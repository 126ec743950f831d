package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/formats"
)

// ValidateOptions are the inputs of `pprofx validate`.
type ValidateOptions struct {
	IO           *IOStreams
	Files        []string
	MaxInputSize int64
	OTLPProto    string
	Quiet        bool
}

// NewCmdValidate builds `pprofx validate`. runF replaces validateRun in tests.
func NewCmdValidate(ios *IOStreams, runF func(*ValidateOptions) error) *cobra.Command {
	o := &ValidateOptions{IO: ios}
	size := byteSize(formats.DefaultMaxInputSize)
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check files against their format's rules, naming each violation",
		Long: `Validate reads each file, detects its format, and checks it against the rules
of its format. For OTLP profiles v1development (binary, JSON, JSON lines or
the collector's framed files) every MUST of the spec and the proto is checked
and every violation named by its field path, e.g.

  resource_profiles[0].scope_profiles[0].profiles[1].samples[12].stack_index: 9000 beyond stack_table (412)

The rules: every index in range and not negative; every dictionary table
present with its zero entry first; a sample has values or timestamps, as
many of each when it has both; attribute keys unique per referrer; a
function names something; original_payload and its format set together;
profile ids of 16 bytes, not all zero; trace ids of 16 and span ids of 8
bytes. SHOULDs are warnings: timestamps outside the profile's time range,
samples of different shapes, mappings without a build id attribute. Data in
the other Sample layout (proto v1.9 against v1.10+) is read as such, told
from the bytes; a field whose wire type the schema contradicts is a warning
(an error in a Sample when the layout is told).

Other formats are checked by reading them: what pprofx cannot read is the
error. Findings go to standard output, one per line, "FILE: error: PATH:
WHAT" (or "warning"); then one line per file. The exit status is 1 when any
file breaks a MUST rule or cannot be read.`,
		Example: `  pprofx validate testdata/go/cpu.pb.gz
  pprofx convert testdata/go/heap.pb.gz -o /tmp/heap.otlp && pprofx validate /tmp/heap.otlp
  pprofx validate -q testdata/otlp-dev/cpu.framed testdata/otlp-dev/cpu.otlp.json
  pprofx validate --otlp-proto 1.9 /tmp/heap.otlp   # a v1.10 file read as v1.9: named as such, exit 1
  pprofx validate testdata/otlp-dev/ebpf-v1.9.otlp  # the eBPF profiler's v1.9 layout, told from the bytes`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			o.MaxInputSize = int64(size)
			if _, err := otlp.ParseSampleLayout(o.OTLPProto); err != nil {
				return &UsageError{err.Error()}
			}
			if runF != nil {
				return runF(o)
			}
			return validateRun(o)
		},
	}
	f := cmd.Flags()
	f.Var(&size, "max-input-size", "largest input, after decompression, that is read")
	f.StringVar(&o.OTLPProto, "otlp-proto", "", `OTLP v1development input: the proto release of its Sample fields, "1.10" (and later) or "1.9"; by default told from the bytes, and asked for when both readings are valid and differ`)
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "print only errors (no warnings, no per-file line)")
	return cmd
}

func validateRun(o *ValidateOptions) error {
	ios := o.IO
	failed := false
	for _, name := range o.Files {
		shown := displayName(name)
		in, err := openInput(ios, name)
		if err != nil {
			fmt.Fprintf(ios.ErrOut, "pprofx: %s\n", (&FileError{name, err}).Error())
			failed = true
			continue
		}
		src, err := formats.Read(in, formats.ReadOptions{MaxInputSize: o.MaxInputSize, OTLPProto: o.OTLPProto, Validate: true,
			Warn: func(string) {}})
		in.Close()
		if err != nil {
			fmt.Fprintf(ios.Out, "%s: error: %s\n", shown, oneLine(err.Error()))
			if !o.Quiet {
				fmt.Fprintf(ios.Out, "%s: invalid\n", shown)
			}
			failed = true
			continue
		}
		nerr, nwarn := 0, 0
		for _, f := range src.Findings {
			if f.Severity == otlp.Must {
				nerr++
			} else {
				nwarn++
				if o.Quiet {
					continue
				}
			}
			fmt.Fprintf(ios.Out, "%s: %s: %s: %s\n", shown, f.Severity, f.Path, oneLine(f.Msg))
		}
		if nerr > 0 {
			failed = true
		}
		if o.Quiet {
			continue
		}
		switch {
		case nerr > 0:
			fmt.Fprintf(ios.Out, "%s: %s: invalid: %d errors, %d warnings\n", shown, src.Describe(), nerr, nwarn)
		case nwarn > 0:
			fmt.Fprintf(ios.Out, "%s: %s: valid, %d warnings\n", shown, src.Describe(), nwarn)
		default:
			fmt.Fprintf(ios.Out, "%s: %s: valid\n", shown, src.Describe())
		}
	}
	if failed {
		return errReported
	}
	return nil
}
