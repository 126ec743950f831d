package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/view/summary"
)

// InspectOptions are the inputs of `pprofx inspect`.
type InspectOptions struct {
	IO           *IOStreams
	Files        []string
	JSON         bool
	MaxInputSize int64
	Salvage      bool
	OTLPProto    string
}

// NewCmdInspect builds `pprofx inspect`. runF replaces inspectRun in tests.
func NewCmdInspect(ios *IOStreams, runF func(*InspectOptions) error) *cobra.Command {
	o := &InspectOptions{IO: ios}
	size := byteSize(formats.DefaultMaxInputSize)
	cmd := &cobra.Command{
		Use:   "inspect FILE...",
		Short: "Show a profile's format, sample types, totals and table sizes",
		Long: `Inspect reads each file, detects its format from its content, and shows the
format (for OTLP profiles its dialect: v1development, what collectors speak,
or the older pprofextended; and layout, and compression), each profile's
sample types with their
totals, the number of samples, distinct stacks, locations, functions and
mappings, the label keys, the period, time and duration.

With --json it prints one JSON object per file, one per line, for scripts.
A file that cannot be read is reported on stderr; the others are still shown,
and the exit status is 1.

A gperftools CPU profile is read once, also from a pipe ("-"), and its
distinct stacks are not held in memory: beyond 16 MiB of them, a record
whose stack may have been seen is checked against that stack's first
record, read again from the file, or, from a pipe or a compressed file,
from a copy of the stacks in a temporary file in $TMPDIR (removed at the
end). Memory stays bounded whatever the shape of the stacks.`,
		Example: `  pprofx inspect cpu.pb.gz
  cat testdata/gperftools/le64-100hz.prof | pprofx inspect -
  pprofx inspect --json *.pb.gz | jq '.profiles[0].samples'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			o.MaxInputSize = int64(size)
			if runF != nil {
				return runF(o)
			}
			return inspectRun(o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.JSON, "json", false, "one JSON object per file, one per line")
	f.Var(&size, "max-input-size", "largest input, after decompression, that is read")
	f.BoolVar(&o.Salvage, "salvage", false, "keep what can be kept of a truncated input, with a warning")
	f.StringVar(&o.OTLPProto, "otlp-proto", "", `OTLP v1development input: the proto release of its Sample fields, "1.10" (and later) or "1.9"; by default told from the bytes, and asked for when both readings are valid and differ`)
	return cmd
}

// InspectResult is what inspect --json prints for one file.
type InspectResult struct {
	File        string            `json:"file"`
	Format      string            `json:"format"`
	Compression string            `json:"compression,omitempty"`
	Layout      string            `json:"layout,omitempty"`
	Facts       map[string]string `json:"facts,omitempty"`
	Profiles    []summary.Summary `json:"profiles"`
}

func inspectRun(o *InspectOptions) error {
	ios := o.IO
	failed := false
	for i, name := range o.Files {
		res, err := inspectFile(o, name)
		if err != nil {
			fmt.Fprintf(ios.ErrOut, "pprofx: %s\n", (&FileError{name, err}).Error())
			failed = true
			continue
		}
		if o.JSON {
			b, err := json.Marshal(res)
			if err != nil {
				return err
			}
			fmt.Fprintf(ios.Out, "%s\n", b)
			continue
		}
		if i > 0 {
			fmt.Fprintln(ios.Out)
		}
		printInspect(ios.Out, res)
	}
	if failed {
		return errReported
	}
	return nil
}

// inspectSummary lets a format read only what inspect shows, when that is
// cheaper (gperftools.Tally); the tests turn it off to compare.
var inspectSummary = true

func inspectFile(o *InspectOptions, name string) (*InspectResult, error) {
	in, err := openInput(o.IO, name)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	// A bundle's profiles are summarized one by one as they are read,
	// not all held at once.
	var bundled []summary.Summary
	each := func(it formats.Item) error {
		s := summary.Of(it.Profile)
		if c := it.Counts; c != nil {
			s.Locations, s.Functions = c.Locations, c.Functions
		}
		s.Name = it.Name
		bundled = append(bundled, s)
		return nil
	}
	src, err := formats.Read(in, formats.ReadOptions{MaxInputSize: o.MaxInputSize, Salvage: o.Salvage, Warn: warner(o.IO, name), OTLPProto: o.OTLPProto, Stream: true, Summary: inspectSummary, Each: each})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	res := &InspectResult{File: name, Format: string(src.Format), Compression: string(src.Compression), Layout: src.Layout, Profiles: bundled}
	if len(src.Facts) > 0 {
		res.Facts = map[string]string{}
		for _, f := range src.Facts {
			res.Facts[f[0]] = f[1]
		}
	}
	for _, it := range src.Items {
		var s summary.Summary
		if st := it.Stream; st != nil {
			s = summary.OfStream(st.Tables, st.Len, st.Totals)
		} else {
			s = summary.Of(it.Profile)
		}
		s.Name = it.Name
		res.Profiles = append(res.Profiles, s)
	}
	return res, nil
}

func printInspect(w io.Writer, r *InspectResult) {
	desc := r.Format
	var extra []string
	if r.Layout != "" {
		extra = append(extra, r.Layout)
	}
	if r.Compression != "" {
		extra = append(extra, r.Compression)
	}
	if len(extra) > 0 {
		desc += " (" + strings.Join(extra, ", ") + ")"
	}
	fmt.Fprintf(w, "%s: %s\n", displayName(r.File), desc)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range sortedFacts(r.Facts) {
		fmt.Fprintf(tw, "  %s:\t%s\n", f[0], f[1])
	}
	for i, p := range r.Profiles {
		if len(r.Profiles) > 1 {
			name := p.Name
			if name == "" {
				name = fmt.Sprint("#", i)
			}
			fmt.Fprintf(tw, "profile %d:\t%s\n", i, name)
		}
		for j, st := range p.SampleTypes {
			label := ""
			if j == 0 {
				label = "sample types:"
			}
			def := ""
			if st.Default {
				def = "  (default)"
			}
			fmt.Fprintf(tw, "  %s\t%s/%s\ttotal %s%s\n", label, st.Type, st.Unit, human(st.Total, st.Unit), def)
		}
		fmt.Fprintf(tw, "  samples:\t%d\n", p.Samples)
		fmt.Fprintf(tw, "  stacks:\t%d distinct\n", p.Stacks)
		fmt.Fprintf(tw, "  locations:\t%d\n", p.Locations)
		fmt.Fprintf(tw, "  functions:\t%d\n", p.Functions)
		fmt.Fprintf(tw, "  mappings:\t%d\n", p.Mappings)
		if len(p.LabelKeys) > 0 {
			fmt.Fprintf(tw, "  label keys:\t%s\n", strings.Join(p.LabelKeys, ", "))
		}
		if p.PeriodType != "" || p.Period != 0 {
			fmt.Fprintf(tw, "  period:\t%d %s\n", p.Period, p.PeriodType)
		}
		if p.Time != "" {
			fmt.Fprintf(tw, "  time:\t%s\n", p.Time)
		}
		if p.DurationNanos != 0 {
			fmt.Fprintf(tw, "  duration:\t%s\n", time.Duration(p.DurationNanos))
		}
		for _, c := range p.Comments {
			fmt.Fprintf(tw, "  comment:\t%s\n", c)
		}
	}
	tw.Flush()
}

func sortedFacts(m map[string]string) [][2]string {
	var out [][2]string
	for k, v := range m {
		out = append(out, [2]string{k, v})
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j][0] < out[j-1][0]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// human renders a total with its unit in a readable scale, the exact
// number first: "3980000000 (3.98s)".
func human(v int64, unit string) string {
	exact := fmt.Sprint(v)
	switch unit {
	case "nanoseconds":
		return fmt.Sprintf("%s (%s)", exact, time.Duration(v))
	case "bytes":
		f := float64(v)
		for _, u := range []string{"B", "KiB", "MiB", "GiB", "TiB"} {
			if f < 1024 && f > -1024 || u == "TiB" {
				if u == "B" {
					return exact + " B"
				}
				return fmt.Sprintf("%s (%.2f %s)", exact, f, u)
			}
			f /= 1024
		}
	}
	return exact
}
