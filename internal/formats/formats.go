// Package formats reads any input pprofx understands, by detecting its
// format from its content, and writes a profile in a named format. It is
// the one place that knows which codec serves which format.
package formats

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/pprof"
)

// DefaultMaxInputSize is the default bound on how many (decompressed)
// bytes of one input are read.
const DefaultMaxInputSize = 2 << 30

// ReadOptions control Read.
type ReadOptions struct {
	// MaxInputSize bounds the bytes read from the input after
	// decompression; 0 means DefaultMaxInputSize.
	MaxInputSize int64
	// Salvage keeps what can be kept of a truncated input, with a warning.
	Salvage bool
	// Warn is told about anything read with a loss or a doubt.
	Warn func(msg string)
	// KeepOriginal puts the input's own bytes, as given, into each
	// profile's OriginalPayload when the input is not pprof (OTLP's
	// original_payload, for --keep-original).
	KeepOriginal bool
}

// Item is one profile of an input (an OTLP file or a bundle holds several).
type Item struct {
	Name    string
	Profile *model.Profile
}

// Input is a decoded input.
type Input struct {
	Format      detect.Format
	Compression detect.Compression
	Layout      string
	// Facts about the input beyond its profiles, for inspect: name, value.
	Facts [][2]string
	Items []Item
}

// Describe names the format, its layout and compression, e.g.
// "pprof (gzip)".
func (in *Input) Describe() string {
	return describe(in.Format, in.Compression, in.Layout)
}

func describe(f detect.Format, c detect.Compression, layout string) string {
	var extra []string
	if layout != "" {
		extra = append(extra, layout)
	}
	if c != detect.None {
		extra = append(extra, string(c))
	}
	if len(extra) == 0 {
		return string(f)
	}
	return fmt.Sprintf("%s (%s)", f, strings.Join(extra, ", "))
}

// Names of the formats, as users write them.
var formatTitles = map[detect.Format]string{
	detect.Pprof:        "pprof profile",
	detect.Gperftools:   "gperftools CPU profile",
	detect.OTLP:         "OTLP profiles (protobuf)",
	detect.OTLPJSON:     "OTLP profiles (JSON)",
	detect.OTLPDev:      "OTLP profiles (v1development)",
	detect.OTLPDevJSON:  "OTLP profiles (v1development)",
	detect.Bundle:       "pprofx bundle",
	detect.GoLegacyText: "Go legacy text profile",
	detect.PerfData:     "Linux perf.data",
	detect.JFR:          "Java Flight Recorder file",
}

type limitedReader struct {
	r    io.Reader
	left int64
	max  int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more than allowed tells "too big" from "exactly the limit".
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("input is larger than the limit of %d bytes (--max-input-size)", l.max)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// Read detects the format of r (named name in messages) and decodes it.
func Read(r io.Reader, opts ReadOptions) (*Input, error) {
	max := opts.MaxInputSize
	if max <= 0 {
		max = DefaultMaxInputSize
	}
	var orig bytes.Buffer
	if opts.KeepOriginal {
		r = io.TeeReader(&limitedReader{r: r, left: max, max: max}, &orig)
	}
	br := getBufio(r)
	defer bufioPool.Put(br)
	head, _ := br.Peek(detect.HeadSize)
	in := &Input{Compression: detect.CompressionOf(head)}
	var body io.Reader = br
	switch in.Compression {
	case detect.Gzip:
		zr, err := pprof.NewGzipReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %v", err)
		}
		defer pprof.PutGzipReader(zr)
		body = zr
	case detect.Zstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(max)))
		if err != nil {
			return nil, fmt.Errorf("zstd: %v", err)
		}
		defer zr.Close()
		body = zr
	}
	lr := &limitedReader{r: body, left: max, max: max}
	inner := getBufio(lr)
	defer bufioPool.Put(inner)
	head, err := inner.Peek(detect.HeadSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, compressionErr(in.Compression, err)
	}
	res, err := detect.Sniff(head)
	if err != nil {
		return nil, err
	}
	in.Format, in.Layout = res.Format, res.Layout
	read, ok := readers[res.Format]
	if !ok {
		return nil, fmt.Errorf("detected %s, not supported yet", titled(res))
	}
	if err := read(inner, in, opts); err != nil {
		return nil, compressionErr(in.Compression, err)
	}
	if opts.KeepOriginal && in.Format != detect.Pprof {
		// The whole source, as it was given, goes into the profiles.
		if _, err := io.Copy(io.Discard, inner); err != nil {
			return nil, compressionErr(in.Compression, err)
		}
		for _, it := range in.Items {
			it.Profile.OriginalPayload = orig.Bytes()
			it.Profile.OriginalPayloadFormat = originalFormatName(in)
		}
	}
	return in, nil
}

// originalFormatName names a source format for OTLP's
// original_payload_format.
func originalFormatName(in *Input) string {
	switch in.Format {
	case detect.Gperftools:
		return "gperftools-cpu"
	}
	return string(in.Format)
}

// A reader decodes the (decompressed) input r into in.Items, and may add
// in.Facts. It is registered for a format with registerReader, from the
// file of this package that belongs to that format.
type reader func(r *bufio.Reader, in *Input, opts ReadOptions) error

var readers = map[detect.Format]reader{}

func registerReader(f detect.Format, r reader) { readers[f] = r }

// readAll reads the rest of r, which is bounded by --max-input-size.
func readAll(r io.Reader) ([]byte, error) { return io.ReadAll(r) }

// Readers and buffers are reused across the inputs of one run (merge
// reads hundreds).
var (
	bufioPool  sync.Pool
	bufferPool sync.Pool
)

func getBufio(r io.Reader) *bufio.Reader {
	if br, ok := bufioPool.Get().(*bufio.Reader); ok {
		br.Reset(r)
		return br
	}
	return bufio.NewReaderSize(r, 1<<16)
}

// withBuffer reads the rest of r into a pooled buffer and calls fn with
// its bytes, which fn must not keep.
func withBuffer(r io.Reader, fn func(data []byte) error) error {
	buf, _ := bufferPool.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	defer func() {
		if buf.Cap() <= 64<<20 {
			bufferPool.Put(buf)
		}
	}()
	if _, err := buf.ReadFrom(r); err != nil {
		return err
	}
	return fn(buf.Bytes())
}

func titled(res detect.Result) string {
	t := formatTitles[res.Format]
	if res.Layout != "" {
		t += " (" + res.Layout + ")"
	}
	return t
}

func compressionErr(c detect.Compression, err error) error {
	// The decompressors' own errors already start with their name
	// ("gzip: invalid checksum"): name the compression once.
	if msg := err.Error(); c != detect.None && !strings.Contains(msg, "--max-input-size") &&
		!strings.HasPrefix(msg, string(c)+": ") {
		return fmt.Errorf("%s: %v", c, err)
	}
	return err
}

// OutFormat names an output format.
type OutFormat string

// writer describes one output format.
type writer struct {
	desc string
	// suffixes of output names that choose this format (lower case).
	suffixes []string
	write    func(w io.Writer, items []Item, opts WriteOptions) error
	// multi: the format holds several profiles in one file.
	multi bool
	// text: the format is text (ending with a newline) unless gzipped.
	text bool
}

var writers = map[OutFormat]writer{}

func registerWriter(f OutFormat, w writer) { writers[f] = w }

// OutFormats lists the output format names with a line on each.
func OutFormats() []string {
	var out []string
	for f, w := range writers {
		out = append(out, fmt.Sprintf("%-10s %s", f, w.desc))
	}
	sort.Strings(out)
	return out
}

// ParseOutFormat checks a --to value.
func ParseOutFormat(s string) (OutFormat, error) {
	f := OutFormat(s)
	if _, ok := writers[f]; !ok {
		var names []string
		for f := range writers {
			names = append(names, string(f))
		}
		sort.Strings(names)
		return "", fmt.Errorf("unknown output format %q (one of: %s)", s, strings.Join(names, ", "))
	}
	return f, nil
}

// OutFormatForPath picks the output format from an output file name, by
// the longest registered suffix that matches. A name without an extension
// (and "-") is pprof. ok is false when the name has an extension that
// names no output format (x.json, x.txt): the caller asks for --to.
func OutFormatForPath(path string) (f OutFormat, ok bool) {
	if path == "-" {
		return OutPprof, true
	}
	base := strings.ToLower(filepath.Base(path))
	best, bestLen := OutPprof, 0
	for f, w := range writers {
		for _, suf := range w.suffixes {
			if strings.HasSuffix(base, suf) && len(suf) > bestLen {
				best, bestLen = f, len(suf)
			}
		}
	}
	if bestLen == 0 && strings.LastIndexByte(base, '.') > 0 {
		return "", false
	}
	return best, true
}

// Suffix is the file name suffix of format f (the first it registered,
// which OutFormatForPath maps back to f): ".pb.gz", ".otlp.json", ...
func Suffix(f OutFormat) string {
	if w, ok := writers[f]; ok && len(w.suffixes) > 0 {
		return w.suffixes[0]
	}
	return "." + string(f)
}

// Suffixes lists every file name suffix an output format registered.
func Suffixes() []string {
	var out []string
	for _, w := range writers {
		out = append(out, w.suffixes...)
	}
	sort.Strings(out)
	return out
}

// IsText reports whether format f, gzipped or not, is text (which may go
// to a terminal).
func IsText(f OutFormat, gzip bool) bool { return writers[f].text && !gzip }

// WriteOptions control Write. Fields a format does not use are ignored.
type WriteOptions struct {
	Warn func(msg string)
	// OTLP container options.
	ProfileID    []byte
	Resource     []model.Attribute
	KeepOriginal bool
	ScopeVersion string // version of the writer's instrumentation scope (pprofx's)
	// Gzip asks formats that are not gzipped by nature (OTLP) to gzip
	// their output: the output name ends in .gz.
	Gzip bool
}

// HoldsMany reports whether format f holds several profiles in one file.
func HoldsMany(f OutFormat) bool { return writers[f].multi }

// Write encodes items (one profile, unless the format holds several) in
// format f to w.
func Write(w io.Writer, f OutFormat, items []Item, opts WriteOptions) error {
	wr, ok := writers[f]
	if !ok {
		return fmt.Errorf("unknown output format %q", f)
	}
	if len(items) != 1 && !wr.multi {
		return fmt.Errorf("%s holds one profile, not %d", f, len(items))
	}
	return wr.write(w, items, opts)
}
