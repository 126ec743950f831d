// Package cli holds pprofx's cobra commands. Each command only parses its
// flags into an Options value and calls its run function, which does the
// work through the codec packages; tests call the run functions directly.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pprofx/pprofx/internal/fileio/output"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/memlimit"
)

// IOStreams carries the standard streams, and whether they are terminals.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutIsTerminal: binary output is refused there. ErrIsTerminal:
	// progress is shown only there.
	OutIsTerminal bool
	ErrIsTerminal bool

	status status // the progress line on a terminal
	// process: these are the process's own streams (Execute): the Go
	// runtime's memory limit is set from --max-memory and the others.
	process bool
}

// System returns the process's streams.
func System() *IOStreams { return streamsOf(os.Stdin, os.Stdout, os.Stderr) }

func streamsOf(in, out, errOut *os.File) *IOStreams {
	return &IOStreams{In: in, Out: out, ErrOut: errOut,
		OutIsTerminal: isTerminal(out), ErrIsTerminal: isTerminal(errOut)}
}

// isTerminal reports whether f is a terminal: a character device such as
// /dev/null is not one.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Exit statuses.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// FileError is a failure about one input or output file; it prints as
// "pprofx: FILE: what is wrong".
type FileError struct {
	File string
	Err  error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s: %s", displayName(e.File), oneLine(e.Err.Error()))
}

func (e *FileError) Unwrap() error { return e.Err }

// UsageError is a mistake in how a command was called (exit status 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// errReported says that the run function already printed its errors (one
// line per failed file) and only the exit status is left to set.
var errReported = errors.New("reported")

func displayName(file string) string {
	if file == "-" {
		return "<stdin>"
	}
	return file
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// warner prints each distinct warning about a file once, to stderr.
func warner(ios *IOStreams, file string) func(string) {
	seen := map[string]bool{}
	return func(msg string) {
		if seen[msg] {
			return
		}
		seen[msg] = true
		ios.clearProgress()
		fmt.Fprintf(ios.ErrOut, "pprofx: %s: warning: %s\n", displayName(file), oneLine(msg))
	}
}

// NewRootCmd builds the pprofx command tree over ios.
func NewRootCmd(ios *IOStreams) *cobra.Command { return newRootCmd(ios, "") }

// newRootCmd builds the root command with every subcommand, or with only
// the one named (building all of them, with their flags and help texts,
// is most of a small run's time after start-up).
func newRootCmd(ios *IOStreams, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "pprofx",
		Short: "Convert, inspect, view, merge and unpack profiles",
		Long: `pprofx converts profiles between formats without losing anything the target
can hold, and inspects them. Formats are detected from content, never names:
pprof (gzip or raw), gperftools CPU profiles (any layout), OTLP profiles
(v1development as collectors speak it, and the older pprofextended; protobuf,
JSON, the collector's JSON lines and framed files), pprofx bundles, folded
stacks, the legacy text profiles google/pprof reads (Go debug=1, gperftools
heap, contentionz, threadz, Java), V8 .cpuprofile (node --cpu-prof),
speedscope JSON, and, through gzip or zstd, any of them compressed. It also writes
folded stacks, speedscope JSON and a self-contained HTML flame graph, and
prints pprof's -top table (top); diff compares two profiles as pprof
-diff_base does, and convert, top, push and diff take pprof's filters
(--focus, --hide, ...). merge puts many profiles into one compact
bundle; unpack gives any one of them back exactly; validate checks files
against their format's rules; symbolize turns addresses into functions.
"-" stands for standard input or output wherever a file is named.

Exit status: 0 success, 1 failure (one line per failure on stderr, as
"pprofx: FILE: what is wrong"), 2 usage error.`,
		Example: `  pprofx convert cpu.pb.gz -o cpu.pb
  pprofx convert cpu.prof -o cpu.pb.gz       # a gperftools CPUPROFILE file
  pprofx symbolize cpu.prof --symbols-dir ./build -o cpu.pb.gz
  pprofx convert cpu.pb.gz -o cpu.otlp --resource service.name=api
  pprofx validate cpu.otlp                   # OTLP profiles v1development, by the spec's rules
  pprofx convert cpu.pb.gz -o cpu.html          # flame graph, opens offline
  pprofx top cpu.pb.gz -n 20
  find profiles -name '*.pb.gz' | pprofx merge --files-from - -o all.ppxb
  pprofx unpack all.ppxb --index 2 -o third.pb.gz
  cat heap.pb.gz | pprofx inspect -`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	var maxMemory byteSize
	root.PersistentFlags().Var(&maxMemory, "max-memory", "most memory pprofx may use (e.g. 512MiB, 2GiB); the smallest of this, ulimit -v, the cgroup's memory.max and GOMEMLIMIT wins, and an input that could need more is refused before it is decoded")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		l := memlimit.Detect(int64(maxMemory))
		formats.SetMemory(l)
		if ios.process {
			memlimit.Apply(l)
			memlimit.Track()
		}
		return nil
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &UsageError{err.Error()} })
	root.CompletionOptions.DisableDefaultCmd = true
	for _, sub := range subcommands {
		if only == "" || sub.name == only {
			root.AddCommand(sub.make(ios))
		}
	}
	return root
}

// subcommands are pprofx's commands, by name, in the order help lists them.
var subcommands = []struct {
	name string
	make func(*IOStreams) *cobra.Command
}{
	{"convert", func(ios *IOStreams) *cobra.Command { return NewCmdConvert(ios, nil) }},
	{"inspect", func(ios *IOStreams) *cobra.Command { return NewCmdInspect(ios, nil) }},
	{"version", NewCmdVersion},
	{"merge", func(ios *IOStreams) *cobra.Command { return NewCmdMerge(ios, nil) }},
	{"unpack", func(ios *IOStreams) *cobra.Command { return NewCmdUnpack(ios, nil) }},
	{"list", func(ios *IOStreams) *cobra.Command { return NewCmdList(ios, nil) }},
	{"completion", NewCmdCompletion},
	{"validate", func(ios *IOStreams) *cobra.Command { return NewCmdValidate(ios, nil) }},
	{"symbolize", func(ios *IOStreams) *cobra.Command { return NewCmdSymbolize(ios, nil) }},
	{"top", func(ios *IOStreams) *cobra.Command { return NewCmdTop(ios, nil) }},
	{"diff", func(ios *IOStreams) *cobra.Command { return NewCmdDiff(ios, nil) }},
	{"push", func(ios *IOStreams) *cobra.Command { return NewCmdPush(ios, nil) }},
}

// commandNamed is the name of the subcommand args run, when their first
// word names one; "" otherwise (help, completion's __complete, a flag, a
// mistyped name: these need every command).
func commandNamed(args []string) string {
	if len(args) == 0 {
		return ""
	}
	for _, sub := range subcommands {
		if sub.name == args[0] {
			return sub.name
		}
	}
	return ""
}

// Main runs pprofx with args (without the program name) and returns the
// exit status.
func Main(args []string, ios *IOStreams) int {
	root := newRootCmd(ios, commandNamed(args))
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, errReported) {
		return ExitFail
	}
	var fe *FileError
	if errors.As(err, &fe) {
		fmt.Fprintf(ios.ErrOut, "pprofx: %s\n", fe.Error())
		return ExitFail
	}
	var ue *UsageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintf(ios.ErrOut, "pprofx: %s\nRun '%s --help' for usage.\n", oneLine(err.Error()), cmd.CommandPath())
		return ExitUsage
	}
	fmt.Fprintf(ios.ErrOut, "pprofx: %s\n", oneLine(err.Error()))
	return ExitFail
}

// isCobraUsage recognises the errors cobra itself returns for a command
// line it cannot take (unknown command, wrong number of arguments).
func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "unknown flag", "unknown shorthand", "flag needs", "invalid argument"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// Execute runs pprofx on the process's arguments and streams.
func Execute() int {
	// A temporary output file is removed on SIGINT, SIGTERM and SIGHUP.
	output.HandleSignals()
	startGC()
	ios := System()
	ios.process = true
	return Main(os.Args[1:], ios)
}

// unwrapPathErr strips the file names that os errors carry ("mkdir
// ro/sub: permission denied", "rename .x.tmp x: ..."): a FileError names
// the file the user gave, once.
func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// openInput opens a named input, "-" being ios.In.
func openInput(ios *IOStreams, name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(ios.In), nil
	}
	f, err := os.Open(name)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, errors.New("is a directory")
	}
	return f, nil
}
