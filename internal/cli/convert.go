package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/view/callstacks"
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
	MaxExpansion int64    // --max-expansion: output at most this many times the input
	OTLPProto    string   // --otlp-proto 1.9: Sample layout of a v1development input
	Sym          SymbolizeFlags
	// Stack views (folded, speedscope, HTML) and folded input.
	SampleType string // --sample-type: the value a one-type output holds; folded input's TYPE/UNIT
	Lines      bool   // --lines: frames as "function file:line"
	Filters    FilterFlags
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
.otlp.json: otlp-json; .jsonl: otlp-jsonl; a further .gz gzips OTLP;
.folded, .collapsed: folded; .speedscope.json: speedscope; .html: html), or
else pprof. otlp, otlp-json, otlp-jsonl and otlp-framed are OTLP profiles
v1development (opentelemetry-proto v1.11.0), what collectors take today;
pprofextended and pprofextended-json are the OTEP's older v1experimental.

Output formats:
  ` + joinLines(formats.OutFormats(), "\n  ") + `

Folded stacks hold one sample type: --sample-type picks it (a type name such
as inuse_space, type/unit, or an index; default: the profile's default sample
type, else the last, as pprof picks it). speedscope and HTML hold every type;
--sample-type picks the one shown first. --lines names frames
"function file:line". Folded input (flamegraph.pl, async-profiler collapsed)
is detected; --sample-type TYPE/UNIT names its values (default samples/count).
perf script text is detected too, from a file or a pipe ("perf script |
pprofx convert - -o cpu.pb.gz"): each event gives EVENT_sample/count and,
where perf prints a period, EVENT_event in the event's unit; the command,
pid, tid and CPU become labels (docs/perf-script.md).

An input holding several profiles (a bundle, an OTLP file with several
containers) needs --index N, except for OTLP output, which takes them all,
one container each, unless --index picks one.

Nothing the target format can hold is lost; what it cannot hold is named in
one warning on stderr. The output is written atomically: a failed run leaves
an existing OUT untouched.

A gperftools CPU profile converted to pprof or to binary OTLP (otlp,
otlp-framed, pprofextended; gzipped or not) is streamed: it is read once,
also from a pipe ("-"), its distinct stacks' frames go, beyond a few MiB, to
a temporary file in $TMPDIR (removed at the end), and the samples are
written from there, so memory stays bounded whatever the shape of the
stacks. OTLP output also sorts the stacks in runs spilled to temporary files
in $TMPDIR and reads them back (about the output's size on disk, for a
moment). Converted to OTLP JSON, or with --keep-original, it is decoded
whole. A filter (below) reads the input whole.
` + filterHelp,
		Example: `  pprofx convert cpu.pb.gz -o cpu.pb
  pprofx convert heap.pb -o heap.pb.gz
  pprofx convert testdata/go/cpu.pb.gz -o cpu.html
  pprofx convert testdata/go/heap.pb.gz -o heap.folded --sample-type inuse_space
  pprofx convert testdata/folded/perf-gzip.folded -o perf.pb.gz --sample-type cpu/nanoseconds
  pprofx convert testdata/go/cpu.pb.gz -o cpu.speedscope.json
  pprofx convert testdata/cpuprofile/node-work.cpuprofile -o node.pb.gz  # node --cpu-prof
  pprofx convert testdata/legacy/go-goroutine.txt -o goroutine.pb.gz     # Go debug=1 text
  pprofx convert testdata/speedscope/two-sampled.speedscope.json --index 1 -o two.folded
  cat testdata/perf/multi.txt | pprofx convert - -o perf.pb.gz
  pprofx convert testdata/perf/dwarf.txt -o perf.folded
  pprofx convert cpu.pb.gz -o cpu.otlp --resource service.name=api
  pprofx convert cpu.otlp -o back.pb.gz
  pprofx convert heap.pb.gz -o heap.jsonl            # a collector fileexporter file
  pprofx convert cpu.pb.gz -o cpu.pe --to pprofextended
  pprofx convert cpu.pb.gz -o - --to otlp-json | head -c 300
  pprofx convert cpu.prof -o cpu.pb.gz --symbols-dir ./build   # gperftools, symbolized
  pprofx convert cpu.prof -o cpu.otlp --symbolize=none          # addresses, with build ids
  cat cpu.prof | pprofx convert - -o - --to pprof-raw | wc -c
  cat cpu.prof | pprofx convert - -o cpu.otlp.gz --symbolize=none  # streamed; stacks sorted in $TMPDIR
  pprofx convert testdata/go/cpu.pb.gz -o sha.pb.gz --focus sha256 --hide '^runtime\.'
  pprofx convert testdata/jfr/cpu.jfr -o first-half.pb.gz --until 750ms
  pprofx convert testdata/go/heap.pb.gz -o big.folded --tagfocus bytes=1kb:`,
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
	o.Index = -1
	f.Var((*indexFlag)(&o.Index), "index", "which profile to convert, when the input holds several (0-based)")
	f.Var(&size, "max-input-size", "largest input, after decompression, that is read")
	f.BoolVar(&o.Salvage, "salvage", false, "keep what can be kept of a truncated input, with a warning")
	f.StringVar(&o.ProfileID, "profile-id", "", "OTLP output: the profile_id, 32 hex digits (default: derived from the content)")
	f.StringArrayVar(&o.Resource, "resource", nil, "OTLP output: a resource attribute KEY=VALUE, e.g. service.name=api (repeatable)")
	f.BoolVar(&o.KeepOriginal, "keep-original", false, "OTLP output: embed a non-pprof input file as the original_payload")
	f.Int64Var(&o.MaxExpansion, "max-expansion", formats.DefaultMaxExpansion, "largest output, as a multiple of the (decompressed) input's size: pprof repeats a stack shared by many samples in each")
	f.StringVar(&o.OTLPProto, "otlp-proto", "", `OTLP v1development input: the proto release of its Sample fields, "1.10" (and later) or "1.9"; by default told from the bytes, and asked for when both readings are valid and differ`)
	o.Sym.register(f, "auto")
	o.Sym.OnlyBare = true
	f.StringVar(&o.SampleType, "sample-type", "", "folded output: the sample type written (default: the profile's default, as pprof picks it); folded input: its TYPE/UNIT (default samples/count)")
	f.BoolVar(&o.Lines, "lines", false, "folded, speedscope, HTML output: frames as \"function file:line\"")
	o.Filters.register(f)
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
	if err := o.Filters.compile(); err != nil {
		return err
	}
	to, err := outputFormat(o.To, o.Output)
	if err != nil {
		return err
	}
	wo := writeOptions(ios, o.Output)
	wo.KeepOriginal = o.KeepOriginal
	wo.SampleType, wo.Lines = o.SampleType, o.Lines
	if o.ProfileID != "" {
		id, err := pprofextended.ParseProfileID(o.ProfileID)
		if err != nil {
			return &UsageError{err.Error()}
		}
		wo.ProfileID = id
	}
	if _, err := otlp.ParseSampleLayout(o.OTLPProto); err != nil {
		return &UsageError{err.Error()}
	}
	res, err := pprofextended.ParseResource(o.Resource)
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
	// pprof and binary OTLP output take a gperftools profile's samples as
	// they are read back from a temporary file, rather than its whole model.
	stream := formats.TakesStream(to) && !o.KeepOriginal && !o.Filters.active()
	src, err := formats.Read(in, formats.ReadOptions{MaxInputSize: o.MaxInputSize, Salvage: o.Salvage, Warn: warn, KeepOriginal: o.KeepOriginal,
		OTLPProto: o.OTLPProto, SampleType: o.SampleType, Stream: stream, Release: true})
	if err != nil {
		return &FileError{o.Input, err}
	}
	defer src.Close()
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
	// --sample-type names one of the input's sample types (except for a
	// folded input, whose type it gives): a wrong name is the input's
	// error, found before anything is written.
	if o.SampleType != "" && src.Format != detect.Folded {
		for _, it := range items {
			if it.Profile == nil {
				continue
			}
			if _, err := callstacks.SampleIndex(it.Profile, o.SampleType); err != nil {
				return &FileError{o.Input, err}
			}
		}
	}
	o.Sym.apply(src, items, warn)
	if err := o.Filters.cutAll(items, o.Input, warn); err != nil {
		return err
	}
	o.Filters.apply(items, warn)
	if err := formats.CheckExpansion(to, items, src.Size, o.MaxExpansion); err != nil {
		return &FileError{o.Input, err}
	}
	return writeOutput(ios, o.Output, func(w io.Writer) error {
		return formats.Write(w, to, items, wo)
	})
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
