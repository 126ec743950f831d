package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/memlimit"
	"github.com/pprofx/pprofx/internal/model"
)

// MergeOptions are the inputs of `pprofx merge`.
type MergeOptions struct {
	IO           *IOStreams
	Inputs       []string
	FilesFrom    string // file of input names, one per line; "-" = stdin; "" = none
	Output       string
	MaxInputSize int64
	Salvage      bool
	Level        int    // zstd level of the shared tables, 1..4; 0 = the default (3)
	Sum          bool   // add the profiles into one (merge --sum)
	To           string // --sum: the output format; "" = from the output's name
}

// NewCmdMerge builds `pprofx merge`. runF replaces mergeRun in tests.
func NewCmdMerge(ios *IOStreams, runF func(*MergeOptions) error) *cobra.Command {
	o := &MergeOptions{IO: ios}
	size := byteSize(formats.DefaultMaxInputSize)
	cmd := &cobra.Command{
		Use:   "merge FILE... -o BUNDLE | merge --sum FILE... -o OUT",
		Short: "Merge profiles into a bundle, each one recoverable, or add them into one",
		Long: `Merge writes the input profiles, whatever their formats and sample types, into
one bundle: strings, functions, mappings, locations, stacks, label sets and
unchanged samples are stored once for all of them, so a bundle is a fraction
of the summed inputs. Each profile keeps its name (as given here) and comes
back exactly with 'pprofx unpack': samples in order, labels, comments,
mapping build ids and flags, everything google/pprof reads.

A bundle given as an input is flattened into its profiles, so merging is
associative: merge(merge(a, b), c) is byte for byte merge(a, b, c), and
bundles can be built as a tree. The same inputs in the same order give the
same bytes. Inputs are read one at a time; memory holds the shared tables,
not the profiles.

--files-from FILE reads more input names from FILE, one per line ("-":
standard input). The bundle is written atomically: a failed run leaves an
existing output untouched.

--sum adds the profiles (every profile of a bundle given) into one profile
instead, as google/pprof's profile.Merge does (what pprof -proto a b c
writes when their sample types are the same): equal samples (same
locations, labels and link) have their values added; a binary loaded at
other addresses is matched and addresses moved; headers combined (the
earliest time, durations added, the largest period, comments once). Sample
types are matched by name: the sum has every type any input has, in the
order first seen, and an input without a type counts zero for it (pprof
would keep only the types all share). Units of one family go to the finest;
period types must be the same. A sample with timestamps (OTLP, JFR) stays
a sample of its own, its times kept. Each input is added as it is read:
memory holds the sum and one input. The output is any format, by --to or
the output's name.`,
		Example: `  pprofx merge cpu-1.pb.gz cpu-2.pb.gz heap.pb.gz -o profiles.ppxb
  find profiles -name '*.pb.gz' | sort | pprofx merge --files-from - -o day.ppxb
  pprofx merge day1.ppxb day2.ppxb -o week.ppxb
  pprofx merge --sum testdata/corpus/cpu-00.pb.gz testdata/corpus/cpu-01.pb.gz -o cpu-sum.pb.gz
  ls testdata/corpus/heap-*.pb.gz | pprofx merge --sum --files-from - -o - --to folded | head -3`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Inputs = args
			o.MaxInputSize = int64(size)
			if o.Level < 0 || o.Level > 4 {
				return &UsageError{fmt.Sprintf("--level %d: want 1 (fastest) to 4 (smallest)", o.Level)}
			}
			if !cmd.Flags().Changed("output") {
				return &UsageError{"merge needs an output: -o BUNDLE (\"-\": standard output)"}
			}
			if !o.Sum && cmd.Flags().Changed("to") {
				return &UsageError{"--to: merge writes a bundle; --to chooses the output format of merge --sum"}
			}
			if o.Sum && cmd.Flags().Changed("level") {
				return &UsageError{"--level: merge --sum writes no bundle"}
			}
			if runF != nil {
				return runF(o)
			}
			if o.Sum {
				return sumRun(o)
			}
			return mergeRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "", `bundle (with --sum: profile) to write ("-": standard output)`)
	f.BoolVar(&o.Sum, "sum", false, "add the profiles into one profile (as pprof -proto a b does) instead of a bundle")
	f.StringVar(&o.To, "to", "", "with --sum: output format (default: from the output name)")
	f.StringVar(&o.FilesFrom, "files-from", "", `read input names from this file, one per line ("-": standard input)`)
	f.IntVar(&o.Level, "level", 0, "zstd level of the shared tables: 1 fastest ... 4 smallest (default 3)")
	f.Var(&size, "max-input-size", "largest input, after decompression, that is read")
	f.BoolVar(&o.Salvage, "salvage", false, "keep what can be kept of a truncated input, with a warning")
	return cmd
}

func mergeRun(o *MergeOptions) error {
	ios := o.IO
	names, stdin, err := inputNames(ios, "merge", o.Inputs, o.FilesFrom)
	if err != nil {
		return err
	}
	if stdin > 1 || (stdin == 1 && o.FilesFrom == "-") {
		return &UsageError{"standard input can be read only once"}
	}
	if o.Output == "-" && ios.OutIsTerminal {
		return &UsageError{"refusing to write a binary bundle to a terminal: name an output with -o, or pipe it"}
	}
	return writeOutput(ios, o.Output, func(w io.Writer) error {
		bw := bundle.NewWriter(w, bundle.WriterOptions{Level: o.Level, Warn: warner(ios, o.Output)})
		// Inputs are read and decoded one ahead of the writer, on another
		// goroutine, so decoding and compressing overlap; the order, and so
		// the bytes, stay the same. The channel holds none: two profiles
		// at most are in memory, the one added and the one decoded next;
		// after a large one that takes more than the memory bound grants
		// its input (decodeAheadMax), only the one added.
		profiles := make(chan mergeItem)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			defer close(profiles)
			defer ios.clearProgress()
			for i, name := range names {
				ios.progress("merging", i+1, len(names), name)
				err := mergeInput(o, name, func(e bundle.Entry, p *model.Profile, raw int64) bool {
					it := mergeItem{name: name, entry: e, p: p}
					if size := p.MemSize(); size > decodeAheadMax && size > memlimit.PerByte*raw {
						it.added = make(chan struct{})
					}
					select {
					case profiles <- it:
					case <-stop:
						return false
					}
					if it.added != nil {
						select {
						case <-it.added:
						case <-stop:
							return false
						}
					}
					return true
				})
				if err != nil {
					select {
					case profiles <- mergeItem{name: name, err: err}:
					case <-stop:
					}
					return
				}
			}
		}()
		for it := range profiles {
			if it.err != nil {
				return &FileError{it.name, it.err}
			}
			if err := bw.Add(it.entry, it.p); err != nil {
				return &FileError{it.name, err}
			}
			if it.added != nil {
				close(it.added)
			}
		}
		if err := bw.Close(); err != nil {
			return &FileError{o.Output, err}
		}
		return nil
	})
}

// mergeItem is one decoded profile on its way to the bundle writer, or
// the error that ends the inputs.
type mergeItem struct {
	name  string
	entry bundle.Entry
	p     *model.Profile
	err   error
	added chan struct{} // closed once p is added, when the next waits for it
}

// decodeAheadMax is the largest profile (model.Profile.MemSize) merge
// always decodes the next input beside. A larger one that takes more than
// the memory bound grants its input (memlimit.PerByte bytes a byte read,
// decompressed) is added before the next input is decoded: two such at
// once would be further over it (the bundle of 1M functions and locations
// merged with itself: 294 to 305 MiB of peak RSS instead of 373 to 387,
// in 3.7 to 4.1 s against 3.5 to 3.9). Others, however large, are decoded
// one ahead, as the overlap saves time (the wide profile merged with
// itself, 5 runs each: 4.6 to 6.0 s, and 6.1 to 7.4 one at a time).
const decodeAheadMax = 16 << 20

// readNames reads input names, one per line; blank lines are skipped.
func readNames(ios *IOStreams, from string) ([]string, error) {
	in, err := openInput(ios, from)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	var names []string
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if n := strings.TrimRight(sc.Text(), "\r"); strings.TrimSpace(n) != "" {
			names = append(names, n)
		}
	}
	return names, sc.Err()
}

// mergeInput reads one input and passes its profiles to add, in order,
// until add returns false, each with raw, what it was read from
// decompresses to (a bundle profile's blocks; an input's bytes). A bundle
// file is read profile by profile, keeping each one's name and source
// format (so merging bundles is associative); any other input goes
// through format detection.
func mergeInput(o *MergeOptions, name string, add func(e bundle.Entry, p *model.Profile, raw int64) bool) error {
	fromBundle := func(r *bundle.Reader) error {
		for i := 0; i < r.Len(); i++ {
			read := r.Profile
			if i == r.Len()-1 {
				read = r.ProfileLast // the tables are released as it is read
			}
			p, err := read(i)
			if err != nil {
				return err
			}
			if !add(r.Entry(i), p, r.RawSize(i)) {
				return nil
			}
		}
		return nil
	}
	if name != "-" {
		if f, size, ok := openBundleFile(name); ok {
			defer f.Close()
			r, err := bundle.OpenLimit(f, size, o.MaxInputSize)
			if err == nil {
				r.LimitMemory(formats.Memory())
			}
			if err != nil {
				return err
			}
			return fromBundle(r)
		}
	}
	in, err := openInput(o.IO, name)
	if err != nil {
		return err
	}
	defer in.Close()
	var src io.Reader = in
	if name == "-" {
		// Standard input cannot be read at random: a bundle there is read
		// into memory first; anything else is read as it comes.
		br := bufio.NewReader(in)
		if head, _ := br.Peek(len(bundle.Magic)); bundle.IsBundle(head) {
			data, err := formats.ReadAll(br, o.MaxInputSize)
			if err != nil {
				return err
			}
			r, err := bundle.OpenLimit(bytes.NewReader(data), int64(len(data)), o.MaxInputSize)
			if err == nil {
				r.LimitMemory(formats.Memory())
			}
			if err != nil {
				return err
			}
			return fromBundle(r)
		}
		src = br
	}
	got, err := formats.Read(src, formats.ReadOptions{MaxInputSize: o.MaxInputSize, Salvage: o.Salvage, Warn: warner(o.IO, name)})
	if err != nil {
		return err
	}
	for i, it := range got.Items {
		e := bundle.Entry{Name: name, SourceFormat: string(got.Format)}
		switch {
		case got.Format == detect.Bundle && it.Name != "":
			// A profile of a compressed bundle keeps its own name.
			e.Name = it.Name
		case len(got.Items) > 1:
			e.Name = fmt.Sprintf("%s#%d", name, i)
		}
		if !add(e, it.Profile, got.Size) {
			return nil
		}
	}
	return nil
}

// openBundleFile opens name if it is a regular file that begins with the
// bundle magic.
func openBundleFile(name string) (*os.File, int64, bool) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, false
	}
	st, err := f.Stat()
	var head [len(bundle.Magic)]byte
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, false
	}
	if n, _ := f.ReadAt(head[:], 0); !bundle.IsBundle(head[:n]) {
		f.Close()
		return nil, 0, false
	}
	return f, st.Size(), true
}

// inputNames is the inputs of merge or push: those named, then those of
// --files-from, and how many of them are "-" (standard input).
func inputNames(ios *IOStreams, cmd string, inputs []string, filesFrom string) (names []string, stdin int, err error) {
	names = append([]string(nil), inputs...)
	if filesFrom != "" {
		more, err := readNames(ios, filesFrom)
		if err != nil {
			return nil, 0, &FileError{filesFrom, err}
		}
		names = append(names, more...)
	}
	if len(names) == 0 {
		return nil, 0, &UsageError{cmd + " needs at least one input (FILE... or --files-from)"}
	}
	for _, n := range names {
		if n == "-" {
			stdin++
		}
	}
	return names, stdin, nil
}
