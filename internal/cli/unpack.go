package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/fileio/output"
	"github.com/pprofx/pprofx/internal/formats"
)

// UnpackOptions are the inputs of `pprofx unpack`.
type UnpackOptions struct {
	IO           *IOStreams
	Input        string
	Index        int // -1: not given
	All          bool
	Output       string // a file, "-", or with All a directory
	To           string // output format; "" = from the output name (pprof for --all)
	MaxInputSize int64
}

// NewCmdUnpack builds `pprofx unpack`. runF replaces unpackRun in tests.
func NewCmdUnpack(ios *IOStreams, runF func(*UnpackOptions) error) *cobra.Command {
	o := &UnpackOptions{IO: ios}
	size := byteSize(formats.DefaultMaxInputSize)
	cmd := &cobra.Command{
		Use:   "unpack BUNDLE (--index N [-o OUT] | --all -o DIR) [--to FORMAT]",
		Short: "Take profiles back out of a bundle, exactly as they went in",
		Long: `Unpack writes one profile of a bundle (--index N, 0-based, as 'pprofx list'
numbers them) or all of them (--all, into the directory -o DIR, created if
needed, as INDEX-NAME.SUFFIX files: the index zero-padded to the width of
the count, the name it was merged under, the suffix of the output format).
Unpacking one profile reads only the bundle's index, its shared tables and
that profile's own section; it writes what 'pprofx convert BUNDLE --index N'
writes.

The output format is --to FORMAT, or else the one the output's name says, or
else pprof (gzipped). A profile comes back as it went in: pprof tools read
it exactly as they read the original, samples in order.

Output formats:
  ` + joinLines(formats.OutFormats(), "\n  "),
		Example: `  pprofx unpack week.ppxb --index 2 -o monday-heap.pb.gz
  pprofx unpack week.ppxb --index 0 -o first.pb.gz && go tool pprof -top first.pb.gz
  pprofx unpack week.ppxb --all -o week/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Input = args[0]
			o.MaxInputSize = int64(size)
			if o.All == (o.Index >= 0) || (!o.All && cmd.Flags().Changed("index") && o.Index < 0) {
				return &UsageError{"unpack needs exactly one of --index N (N >= 0) and --all"}
			}
			if o.All && (!cmd.Flags().Changed("output") || output.IsStdout(o.Output)) {
				// "-" is standard output everywhere, never a folder of that name.
				return &UsageError{"unpack --all needs an output directory: -o DIR (\"-\", standard output, cannot hold several files)"}
			}
			if runF != nil {
				return runF(o)
			}
			return unpackRun(o)
		},
	}
	f := cmd.Flags()
	o.Index = -1
	f.Var((*indexFlag)(&o.Index), "index", "which profile to unpack (0-based)")
	f.BoolVar(&o.All, "all", false, "unpack every profile into the directory given with -o")
	f.StringVarP(&o.Output, "output", "o", "-", `output file ("-": standard output), or directory with --all`)
	f.StringVar(&o.To, "to", "", "output format (default: from the output name, else pprof)")
	f.Var(&size, "max-input-size", "largest bundle read from standard input, and most one profile of a bundle may expand to (decompressed, in memory)")
	return cmd
}

// openBundle opens a bundle for random access: a file directly, standard
// input by reading it into memory.
func openBundle(ios *IOStreams, name string, max int64) (*bundle.Reader, func(), error) {
	if name == "-" {
		// Its head says whether it is a bundle before the rest is read.
		br := bufio.NewReaderSize(ios.In, 64)
		head, _ := br.Peek(64)
		if !bundle.IsBundle(head) {
			_, err := openBundleReader(bytes.NewReader(head), int64(len(head)), max)
			return nil, nil, err
		}
		data, err := formats.ReadAll(br, max)
		if err != nil {
			return nil, nil, err
		}
		r, err := openBundleReader(bytes.NewReader(data), int64(len(data)), max)
		return r, func() {}, err
	}
	in, err := openInput(ios, name)
	if err != nil {
		return nil, nil, err
	}
	f := in.(*os.File)
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	r, err := openBundleReader(f, st.Size(), max)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, func() { f.Close() }, nil
}

func openBundleReader(ra io.ReaderAt, size, limit int64) (*bundle.Reader, error) {
	r, err := bundle.OpenLimit(ra, size, limit)
	if err == nil {
		r.LimitMemory(formats.Memory())
	}
	if err == bundle.ErrNotBundle {
		var head [64]byte
		n, _ := ra.ReadAt(head[:min(int64(len(head)), size)], 0)
		if res, err := sniffName(head[:n]); err == nil {
			return nil, fmt.Errorf("not a pprofx bundle: it is a %s", res)
		}
		return nil, fmt.Errorf("not a pprofx bundle")
	}
	return r, err
}

func unpackRun(o *UnpackOptions) error {
	ios := o.IO
	to := formats.OutPprof // --all: pprof unless --to
	if !o.All || o.To != "" {
		f, err := outputFormat(o.To, o.Output)
		if err != nil {
			return err
		}
		to = f
	}
	if !o.All {
		if err := refuseTerminal(ios, o.Output, to); err != nil {
			return err
		}
	}
	r, closeFn, err := openBundle(ios, o.Input, o.MaxInputSize)
	if err != nil {
		return &FileError{o.Input, err}
	}
	defer closeFn()
	if !o.All {
		return unpackOne(o, r, o.Index, o.Output, to)
	}
	if err := os.MkdirAll(o.Output, 0o755); err != nil {
		return &FileError{o.Output, unwrapPathErr(err)}
	}
	// Every profile is written to a temporary file first; only when all of
	// them are written are they renamed into place, so a bundle that fails
	// halfway leaves the folder as it was. A name that cannot be replaced
	// (a directory, a device) is found before anything is written.
	width := len(fmt.Sprint(r.Len()))
	type done struct{ tmp, final string }
	var written []done
	ok := false
	defer func() {
		if !ok {
			for _, d := range written {
				output.RemoveTemp(d.tmp)
			}
		}
	}()
	finals := make([]string, r.Len())
	for i := range finals {
		final, err := output.Resolve(filepath.Join(o.Output, outName(r.Entry(i).Name, i, width, to)))
		if err == nil {
			err = output.CheckReplaceable(final)
		}
		if err != nil {
			return &FileError{final, err}
		}
		finals[i] = final
	}
	defer o.IO.clearProgress()
	for i, final := range finals {
		o.IO.progress("unpacking", i+1, r.Len(), filepath.Base(final))
		tmp, err := output.CreateTemp(final)
		if err != nil {
			return &FileError{o.Output, unwrapPathErr(err)}
		}
		bw := bufio.NewWriterSize(tmp, 1<<16)
		err = unpackTo(o, r, i, bw, to, final, i == len(finals)-1)
		if err == nil {
			err = bw.Flush()
		}
		if err == nil {
			// The mode convert gives a new file (0666 less the umask).
			if cerr := tmp.Chmod(output.NewFileMode(final)); cerr != nil {
				err = &FileError{final, unwrapPathErr(cerr)}
			}
		}
		if err == nil {
			if serr := output.SyncFile(tmp.File); serr != nil {
				err = &FileError{final, serr}
			}
		}
		// Complete: it gets its name beside final (until then, on Linux,
		// it has none, and a kill leaves nothing of it).
		if err == nil {
			if lerr := tmp.Link(); lerr != nil {
				err = &FileError{final, lerr}
			}
		}
		if cerr := tmp.Close(); err == nil && cerr != nil {
			err = &FileError{final, unwrapPathErr(cerr)}
		}
		if tmp.Name() != "" {
			written = append(written, done{tmp.Name(), final})
		}
		if err != nil {
			return err
		}
	}
	for k, d := range written {
		if err := output.Rename(d.tmp, d.final); err != nil {
			// Not one of the checks above foresaw this (a permission
			// changed meanwhile): what was renamed stays, the rest is
			// removed, and the error says how far it got.
			for _, rest := range written[k+1:] {
				output.RemoveTemp(rest.tmp)
			}
			ok = true
			return &FileError{d.final, fmt.Errorf("%v (%d of %d files were already in place)", err, k, len(written))}
		}
	}
	ok = true
	// The renames are made durable once per folder.
	synced := map[string]bool{}
	for _, d := range written {
		if dir := filepath.Dir(d.final); !synced[dir] {
			synced[dir] = true
			if err := output.SyncDirOf(d.final); err != nil {
				return &FileError{d.final, err}
			}
		}
	}
	return nil
}

func unpackOne(o *UnpackOptions, r *bundle.Reader, i int, out string, to formats.OutFormat) error {
	return writeOutput(o.IO, out, func(w io.Writer) error { return unpackTo(o, r, i, w, to, out, true) })
}

// unpackTo writes profile i of r to w in format to; out names w in errors.
// last: no other profile is read from r after it (its shared tables are
// released as it is read, not held while it is written).
func unpackTo(o *UnpackOptions, r *bundle.Reader, i int, w io.Writer, to formats.OutFormat, out string, last bool) error {
	read := r.Profile
	if last {
		read = r.ProfileLast
	}
	p, err := read(i)
	if err != nil {
		return &FileError{o.Input, err}
	}
	item := formats.Item{Name: r.Entry(i).Name, Profile: p}
	if err := formats.Write(w, to, []formats.Item{item}, writeOptions(o.IO, out)); err != nil {
		return &FileError{out, err}
	}
	return nil
}

// outName names profile i of a bundle in an --all directory: its index,
// then the base of the name it was merged under without a profile suffix,
// then the suffix of the output format.
func outName(name string, i, width int, to formats.OutFormat) string {
	base := filepath.Base(strings.ReplaceAll(name, "\\", "/"))
	if base == "." || base == "/" || base == ".." {
		base = ""
	}
	lower := strings.ToLower(base)
	sufs := append(formats.Suffixes(), ".gz", ".prof", ".ppxb", ".json")
	sort.Slice(sufs, func(i, j int) bool { return len(sufs[i]) > len(sufs[j]) }) // longest first
	for _, suf := range sufs {
		if strings.HasSuffix(lower, suf) {
			base = base[:len(base)-len(suf)]
			break
		}
	}
	base = strings.Map(func(r rune) rune {
		if r < ' ' || r == '/' || r == 0x7f {
			return '_'
		}
		return r
	}, base)
	ext := formats.Suffix(to) // the suffix convert reads the format from
	s := fmt.Sprintf("%0*d", width, i)
	if base != "" {
		s += "-" + base
	}
	return s + ext
}

// sniffName says what head looks like, for the error about an input that
// is not a bundle.
func sniffName(head []byte) (string, error) {
	if c := detect.CompressionOf(head); c != detect.None {
		return string(c) + "-compressed file", nil
	}
	res, err := detect.Sniff(head)
	if err != nil {
		return "", err
	}
	return string(res.Format) + " file", nil
}
