package cli

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/symbolize"
)

// SymbolizeFlags are the symbolization flags convert and symbolize share.
type SymbolizeFlags struct {
	Mode  modeFlag // --symbolize auto|local|none|off
	Dirs  []string // --symbols-dir, repeated
	Force bool     // --force: re-symbolize mappings that have functions
	// Env is PPROF_BINARY_PATH (read by the command; tests set it).
	Env string
	// DebugRoots replaces /usr/lib/debug (tests).
	DebugRoots []string
	// OnlyBare: unless --symbolize is given, symbolize only inputs whose
	// format holds no symbols (gperftools), so that converting pprof or
	// OTLP stays exact (convert); the symbolize command does any input.
	OnlyBare bool
	flag     *pflag.Flag
}

func (s *SymbolizeFlags) register(f *pflag.FlagSet, defMode string) {
	s.Env = os.Getenv("PPROF_BINARY_PATH")
	s.Mode = modeFlag(defMode)
	defer func() { s.flag = f.Lookup("symbolize") }()
	f.Var(&s.Mode, "symbolize", "auto: symbolize from the binaries found (convert: gperftools inputs only, unless this flag is given); local: and warn for each mapping that is not; none: only fill in build ids; off: look at no binary")
	f.StringArrayVar(&s.Dirs, "symbols-dir", nil, "a directory to look for binaries and debug files in, before their recorded path (repeatable; PPROF_BINARY_PATH is searched after)")
}

// modeFlag is --symbolize's value, checked when it is set.
type modeFlag string

func (m *modeFlag) String() string { return string(*m) }
func (m *modeFlag) Type() string   { return "mode" }
func (m *modeFlag) Set(s string) error {
	if _, err := symbolize.ParseMode(s); err != nil {
		return err
	}
	*m = modeFlag(s)
	return nil
}

// apply symbolizes every profile of items (read from src) in place.
func (s *SymbolizeFlags) apply(src *formats.Input, items []formats.Item, warn func(string)) {
	if s.OnlyBare && src.Format != detect.Gperftools && (s.flag == nil || !s.flag.Changed) {
		return
	}
	mode, _ := symbolize.ParseMode(string(s.Mode))
	sy := symbolize.New(symbolize.Options{Mode: mode, Dirs: symbolize.SearchDirs(s.Dirs, s.Env),
		DebugRoots: s.DebugRoots, Force: s.Force, Warn: warn})
	defer sy.Close()
	for _, it := range items {
		p := it.Profile
		if p == nil && it.Stream != nil {
			// A streamed profile's tables are all there; its samples,
			// which symbolization does not touch, come later.
			p = it.Stream.Tables
		}
		if p != nil {
			sy.Symbolize(p)
		}
	}
}

// NewCmdSymbolize builds `pprofx symbolize`, a convert that symbolizes
// with warnings (--symbolize=local) by default.
func NewCmdSymbolize(ios *IOStreams, runF func(*ConvertOptions) error) *cobra.Command {
	o := &ConvertOptions{IO: ios}
	size := byteSize(formats.DefaultMaxInputSize)
	cmd := &cobra.Command{
		Use:   "symbolize IN -o OUT [--symbols-dir DIR]...",
		Short: "Give a profile's addresses functions, files, lines and inline frames from local binaries",
		Long: `Symbolize reads a profile in any format pprofx reads, finds the ELF binary
of each mapping, and replaces raw addresses with functions (demangled C++
names, the mangled one kept as the system name), files, lines, columns and
inline frames from the binary's DWARF; without DWARF, from a separate debug
file, Go's line table, or the symbol table. Every mapping whose binary is
found gets its build id. No external tools are run.

A mapping's binary is looked for in each --symbols-dir (by the mapping's
path and by its base name; DIR/BUILDID/NAME too), then in each entry of
PPROF_BINARY_PATH, then at the path the profile recorded, then by build id
under DIR/.build-id and /usr/lib/debug/.build-id. Separate debug files are
found by build id and by .gnu_debuglink. A binary is used only if it is the
one profiled: the same build id, or, where the profile has none (gperftools
records none), load segments that fit the mapping's offset and size. A
binary that does not match is named in a warning and not used.

Mappings that already have functions are left alone unless --force.
The output format is chosen as convert chooses it (--to, the output's name,
else pprof). convert does the same, by default (--symbolize=auto) to
gperftools profiles only: a pprof or OTLP input is converted exactly as it
is unless convert is given --symbolize.`,
		Example: `  pprofx symbolize cpu.prof -o cpu.pb.gz
  pprofx symbolize cpu.prof -o cpu.pb.gz --symbols-dir ./build --symbols-dir /srv/debug
  PPROF_BINARY_PATH=./build pprofx symbolize unsymbolized.pb.gz -o symbolized.pb.gz
  pprofx symbolize testdata/symbolize/cxxprog.prof --symbols-dir testdata/symbolize/bin -o /tmp/cxx.pb.gz`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Input = args[0]
			o.Index = -1
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
	f.Var(&size, "max-input-size", "largest input, after decompression, that is read")
	o.Sym.register(f, "local")
	f.BoolVar(&o.Sym.Force, "force", false, "symbolize mappings that already have functions again")
	return cmd
}
