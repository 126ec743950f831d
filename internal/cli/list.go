package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/pprofx/pprofx/internal/formats"
)

// ListOptions are the inputs of `pprofx list`.
type ListOptions struct {
	IO           *IOStreams
	Input        string
	JSON         bool
	MaxInputSize int64
}

// NewCmdList builds `pprofx list`. runF replaces listRun in tests.
func NewCmdList(ios *IOStreams, runF func(*ListOptions) error) *cobra.Command {
	o := &ListOptions{IO: ios}
	size := byteSize(formats.DefaultMaxInputSize)
	cmd := &cobra.Command{
		Use:   "list BUNDLE [--json]",
		Short: "List the profiles of a bundle",
		Long: `List shows, for each profile of a bundle, its index (what 'pprofx unpack
--index' takes), the name it was merged under, the format it was read from,
its sample types, its number of samples and its time. It reads only the
bundle's index.

With --json it prints one JSON object per profile, one per line.`,
		Example: `  pprofx list week.ppxb
  pprofx list --json week.ppxb | jq -r 'select(.sample_types[0] == "alloc_objects/count") | .index'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Input = args[0]
			o.MaxInputSize = int64(size)
			if runF != nil {
				return runF(o)
			}
			return listRun(o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.JSON, "json", false, "one JSON object per profile, one per line")
	f.Var(&size, "max-input-size", "largest bundle read from standard input")
	return cmd
}

// ListEntry is what list --json prints for one profile.
type ListEntry struct {
	Index         int      `json:"index"`
	Name          string   `json:"name"`
	SourceFormat  string   `json:"source_format"`
	SampleTypes   []string `json:"sample_types"`
	Samples       int      `json:"samples"`
	TimeNanos     int64    `json:"time_nanos"`
	Time          string   `json:"time,omitempty"`
	DurationNanos int64    `json:"duration_nanos"`
}

func listRun(o *ListOptions) error {
	ios := o.IO
	r, closeFn, err := openBundle(ios, o.Input, o.MaxInputSize)
	if err != nil {
		return &FileError{o.Input, err}
	}
	defer closeFn()
	tw := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
	if !o.JSON {
		fmt.Fprintln(tw, "INDEX\tNAME\tFORMAT\tSAMPLE TYPES\tSAMPLES\tTIME")
	}
	for i, e := range r.Entries() {
		le := ListEntry{Index: i, Name: e.Name, SourceFormat: e.SourceFormat, SampleTypes: e.SampleTypes,
			Samples: e.Samples, TimeNanos: e.TimeNanos, DurationNanos: e.DurationNanos}
		if le.SampleTypes == nil {
			le.SampleTypes = []string{}
		}
		if e.TimeNanos != 0 {
			le.Time = time.Unix(0, e.TimeNanos).UTC().Format(time.RFC3339Nano)
		}
		if o.JSON {
			b, err := json.Marshal(le)
			if err != nil {
				return err
			}
			fmt.Fprintf(ios.Out, "%s\n", b)
			continue
		}
		name, format, tm := le.Name, le.SourceFormat, le.Time
		if name == "" {
			name = "-"
		}
		if format == "" {
			format = "-"
		}
		if tm == "" {
			tm = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", i, oneLine(name), format, strings.Join(le.SampleTypes, ","), le.Samples, tm)
	}
	return tw.Flush()
}
