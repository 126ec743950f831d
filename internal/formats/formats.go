// Package formats reads any input pprofx understands, by detecting its
// format from its content, and writes a profile in a named format. It is
// the one place that knows which codec serves which format.
package formats

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/detect"
	"github.com/pprofx/pprofx/internal/memlimit"
	"github.com/pprofx/pprofx/internal/model"
)

// DefaultMaxInputSize is the default bound on how many (decompressed)
// bytes of one input are read.
const DefaultMaxInputSize = 2 << 30

// ReadOptions control Read.
type ReadOptions struct {
	// MaxInputSize bounds the bytes read from the input after
	// decompression; 0 means DefaultMaxInputSize.
	MaxInputSize int64
	// Memory is the memory the run may use (memlimit.Detect): an input
	// whose decompressed size says it could need more
	// (memlimit.Bound) is refused before it is decoded, or as soon as
	// more of it was read than fits when its size is not known.
	Memory memlimit.Limit
	// Salvage keeps what can be kept of a truncated input, with a warning.
	Salvage bool
	// OTLPProto is the opentelemetry-proto release whose Sample field
	// numbers an OTLP v1development input uses: "" or "1.10" (and later),
	// or "1.9".
	OTLPProto string
	// Validate asks a reader that can to check the input against its
	// format's rules and report every finding in Input.Findings instead
	// of failing at the first (OTLP v1development); the profiles are read
	// only when no MUST rule fails.
	Validate bool
	// Warn is told about anything read with a loss or a doubt.
	Warn func(msg string)
	// sizeHint is the input's decompressed size when a file says it (its
	// size, or gzip's trailer), bounded by the limit and by what the
	// compressed bytes can expand to; 0 when unknown.
	sizeHint int64
	// KeepOriginal puts the input's own bytes, as given, into each
	// profile's OriginalPayload when the input is not pprof (OTLP's
	// original_payload, for --keep-original).
	KeepOriginal bool
	// SampleType names the values of an input that does not name them
	// (folded stacks): "type/unit".
	SampleType string
	// Stream lets a format that can (gperftools) give its profile as an
	// Item.Stream, its samples read back one at a time rather than held:
	// for inspect and the outputs TakesStream names (pprof, binary OTLP),
	// whose memory then does not grow with the distinct stacks' frames.
	// The caller closes the stream.
	Stream bool
	// Summary, with Stream, says the caller only summarizes the profile
	// (inspect): a format may then give a Stream whose Samples fail and
	// whose Tables' locations are in another order, if that is cheaper
	// (gperftools.Tally).
	Summary bool
	// Release hands a large input's buffer back to the system once it
	// is decoded (see releaseInput), for a caller that then builds an
	// output as large (convert, push). A caller that builds nothing
	// after it (inspect, validate), or reads inputs one after the other
	// (merge: the next input reuses the buffer's memory), would only pay
	// for it.
	Release bool
	// Each, when set, is given the profiles of a bundle one at a time,
	// as each is read, and they are not kept in Input.Items: a caller
	// that looks at each once (inspect) holds one profile at a time, not
	// all of them. Other formats' profiles are in Items as always.
	Each func(Item) error
	// input is the input as it is, from its first byte, when it can be
	// read at any offset (a regular file, not compressed), for Summary and
	// for a bundle, whose blocks are then read where they are rather than
	// from a copy of the file; inputSize is its size.
	input     io.ReaderAt
	inputSize int64
}

// processMemory is the memory the process may use, for reads whose
// options name none (SetMemory).
var processMemory atomic.Pointer[memlimit.Limit]

// SetMemory sets the memory limit every Read, and every bundle a caller
// opens, is held to unless its options name one (the command line's: see
// memlimit.Detect).
func SetMemory(l memlimit.Limit) {
	processMemory.Store(&l)
	// The decoders' counts are held to what is left past the headroom.
	avail := int64(0)
	if l.Known() {
		avail = max(l.Avail-memlimit.Headroom, 1)
	}
	model.SetMemoryAvailable(avail)
	model.SetMemoryInUse(memlimit.InUse, l.Base)
	model.SetMachineMemory(l.Machine)
}

// Memory is the limit SetMemory set (none before).
func Memory() memlimit.Limit {
	if l := processMemory.Load(); l != nil {
		return *l
	}
	return memlimit.Limit{}
}

// memory is the memory limit in force for a read.
func (o ReadOptions) memory() memlimit.Limit {
	if o.Memory.Known() {
		return o.Memory
	}
	return Memory()
}

// limit is the --max-input-size in force.
func (o ReadOptions) limit() int64 {
	if o.MaxInputSize <= 0 {
		return DefaultMaxInputSize
	}
	return o.MaxInputSize
}

// Stream is a profile whose samples are not held in memory.
type Stream struct {
	// Tables holds the profile's tables and fields; its Samples and Stacks
	// are empty.
	Tables *model.Profile
	// Samples yields the samples in order; every call yields them again
	// (the OTLP writers go through them more than once).
	Samples pprof.Samples
	// Len is the number of samples, each of a distinct stack.
	Len int
	// Totals are the sums of the samples' values, per sample type.
	Totals []int64
	// Close releases what the stream holds (a temporary file).
	Close func() error
}

// Item is one profile of an input (an OTLP file or a bundle holds several).
type Item struct {
	Name    string
	Profile *model.Profile
	// Stream, when ReadOptions.Stream was set and the format can, holds the
	// profile in place of Profile, which is then nil.
	Stream *Stream
	// Counts, set for a bundle's profile read for a summary (Summary,
	// with Each), are the sizes of its location and function tables,
	// which Profile then leaves empty, each of its stacks empty too
	// (bundle.Reader.Hollow).
	Counts *bundle.Counts
}

// Input is a decoded input.
type Input struct {
	Format      detect.Format
	Compression detect.Compression
	Layout      string
	// Size is how many (decompressed) bytes of the input were read (the
	// file's size, for a file read in place).
	Size int64
	// Facts about the input beyond its profiles, for inspect: name, value.
	Facts [][2]string
	// Findings of ReadOptions.Validate.
	Findings []otlp.Finding
	Items    []Item
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
	detect.Pprof:             "pprof profile",
	detect.Gperftools:        "gperftools CPU profile",
	detect.PprofExtended:     "OTLP profiles (pprofextended, v1experimental; protobuf)",
	detect.PprofExtendedJSON: "OTLP profiles (pprofextended, v1experimental; JSON)",
	detect.OTLP:              "OTLP profiles (v1development; protobuf)",
	detect.OTLPJSON:          "OTLP profiles (v1development; JSON)",
	detect.Bundle:            "pprofx bundle",
	detect.LegacyText:        "legacy text profile",
	detect.Speedscope:        "speedscope JSON",
	detect.CPUProfile:        "V8 CPU profile (.cpuprofile)",
	detect.TraceEventJSON:    "Chrome trace-event JSON",
	detect.StackprofJSON:     "stackprof JSON (Ruby)",
	detect.FirefoxProfile:    "Firefox profiler JSON",
	detect.PerfData:          "Linux perf.data",
	detect.JFR:               "Java Flight Recorder file",
	detect.Folded:            "folded stacks",
}

type limitedReader struct {
	r    io.Reader
	left int64
	max  int64
	// tooLarge, when set, is the error for an input past max (the memory
	// limit's, when it is lower than --max-input-size).
	tooLarge error
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more than allowed tells "too big" from "exactly the limit".
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			if l.tooLarge != nil {
				return 0, l.tooLarge
			}
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

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
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
	cr := &countingReader{r: r}
	br := getBufio(cr)
	defer bufioPool.Put(br)
	head, _ := br.Peek(detect.HeadSize)
	in := &Input{Compression: detect.CompressionOf(head)}
	var body io.Reader = br
	switch in.Compression {
	case detect.Gzip:
		zr, err := pprof.NewGzipReader(br)
		if err != nil {
			return nil, &DecompressError{detect.Gzip, err}
		}
		defer pprof.PutGzipReader(zr)
		body = &decompressor{newGzipMembers(zr, br), detect.Gzip}
	case detect.Zstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(max)))
		if err != nil {
			return nil, &DecompressError{detect.Zstd, err}
		}
		defer zr.Close()
		body = &decompressor{zr, detect.Zstd}
	}
	var declared int64
	opts.sizeHint, declared = sizeHint(r, in.Compression, max)
	if declared > max {
		// Gzip's trailer holds the size modulo 2^32 (of the last member):
		// the data is at least that long, or corrupt. Either way it is
		// refused now, not after max bytes were inflated.
		return nil, fmt.Errorf("%s: cut short or too large: its size trailer says %d bytes, more than the limit of %d bytes (--max-input-size)", in.Compression, declared, max)
	}
	known := knownSize(r, in.Compression, declared, head)
	lr := &limitedReader{r: body, left: max, max: max}
	inner := getBufio(lr)
	defer bufioPool.Put(inner)
	// A compressed stream that ends early says at which byte.
	readErr := func(err error) error {
		if in.Compression != detect.None && errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s: truncated at byte %d (the compressed stream ends there, %d bytes decompressed)", in.Compression, cr.n, lr.max-lr.left)
		}
		return err
	}
	head, err := inner.Peek(detect.HeadSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, readErr(err)
	}
	if in.Compression != detect.None {
		if inner := detect.CompressionOf(head); inner != detect.None {
			return nil, fmt.Errorf("%s inside %s: the input is compressed twice; pprofx takes off one layer (decompress it once first)", inner, in.Compression)
		}
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
	// What the input can need in memory, from the size it declares, is
	// compared with what the run has before it is decoded (only its first
	// bytes were read, to detect its format); an input whose size is not
	// known is cut off once past what fits. A format read as it streams
	// holds far less than its input and is not held to it.
	if mem := opts.memory(); !streamsInput[res.Format] {
		if known > 0 {
			if err := mem.Check("", known); err != nil {
				return nil, err
			}
		}
		if fit := mem.MaxInput(); fit < lr.max && lr.max-lr.left <= fit {
			lr.left, lr.max, lr.tooLarge = fit-(lr.max-lr.left), fit, mem.TooLarge()
		}
	}
	if (opts.Summary || readsInPlace[in.Format]) && in.Compression == detect.None && !opts.KeepOriginal {
		opts.input, opts.inputSize = readerAt(r, cr.n)
	}
	// The run's memory target grows by the input's bound, before it is
	// decoded when its size is known, else once it was read. A bundle's
	// reader counts each block as it decompresses it, and the file itself
	// when it holds it whole.
	reserve := in.Format != detect.Bundle
	if known > 0 && reserve {
		memlimit.Reserve(known)
	}
	if err := read(inner, in, opts); err != nil {
		return nil, readErr(err)
	}
	in.Size = lr.max - lr.left
	if opts.input != nil && opts.inputSize > in.Size {
		// Read in place, at its blocks' offsets: the file's size, not
		// what was read through r to detect its format.
		in.Size = opts.inputSize
	}
	if known <= 0 && reserve {
		memlimit.Reserve(in.Size)
	}
	if opts.Release {
		releaseInput(in.Size)
	}
	if opts.KeepOriginal && in.Format != detect.Pprof {
		// The whole source, as it was given, goes into the profiles.
		if _, err := io.Copy(io.Discard, inner); err != nil {
			return nil, err
		}
		for _, it := range in.Items {
			it.Profile.OriginalPayload = orig.Bytes()
			it.Profile.OriginalPayloadFormat = originalFormatName(in)
		}
	}
	return in, nil
}

// releaseAt is the decompressed size from which an input's buffer, dead
// once it is decoded (the pool keeps those of maxPooled bytes at most), is
// handed back to the operating system before anything else is done.
const releaseAt = maxPooled + 1

// releaseInput returns the memory of a decoded input of n bytes to the
// operating system. Without it, what the input took stays counted in the
// heap until the next collection, whose goal (twice the heap then) the
// output's buffers reach only after they have grown the process by as much
// again: converting one sample of 100M location ids (a 95 MiB input, a
// 191 MiB model) would peak at the input, the model and the output
// together.
func releaseInput(n int64) {
	if n >= releaseAt {
		debug.FreeOSMemory()
	}
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

// streamsInput names the formats whose reader's memory does not grow with
// the input's size but with what it holds (gperftools: the distinct
// stacks, the mappings), which the memory limit's cut-off by size does not
// apply to.
var streamsInput = map[detect.Format]bool{detect.Gperftools: true}

// readsInPlace names the formats whose reader reads a regular file where
// it lies (ReadOptions.input), whoever the caller, not only for a summary:
// registered by the format's own file (bundles: block by block).
var readsInPlace = map[detect.Format]bool{}

func registerReader(f detect.Format, r reader) { readers[f] = r }

// sizeHint returns the decompressed size a file input declares: its own
// size, or for gzip the trailer's (modulo 2^32, and only when deflate's
// 1032:1 at most can reach it from the file's size), or 0. It is never
// more than the limit, and it only sizes the first buffer. declared is
// gzip's trailer, whatever it says.
// readerAt returns r as an io.ReaderAt from the first byte read from it,
// consumed bytes ago, and the size from there, when it is a regular file;
// else nil.
func readerAt(r io.Reader, consumed int64) (io.ReaderAt, int64) {
	f, ok := r.(*os.File)
	if !ok {
		return nil, 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, 0
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil || pos < consumed || st.Size() < pos-consumed {
		return nil, 0
	}
	return io.NewSectionReader(f, pos-consumed, math.MaxInt64-(pos-consumed)), st.Size() - (pos - consumed)
}

// knownSize is the decompressed size an input declares before it is
// read: a regular file's size, gzip's trailer (declared), or the content
// size of a zstd frame's header (head: the compressed input's first bytes);
// 0 when unknown.
func knownSize(r io.Reader, c detect.Compression, declared int64, head []byte) int64 {
	switch c {
	case detect.Gzip:
		return declared
	case detect.Zstd:
		var h zstd.Header
		if err := h.Decode(head); err == nil && h.HasFCS && h.FrameContentSize <= math.MaxInt64/8 {
			return int64(h.FrameContentSize)
		}
		return 0
	}
	f, ok := r.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

func sizeHint(r io.Reader, c detect.Compression, limit int64) (hint, declared int64) {
	f, ok := r.(interface {
		io.ReaderAt
		Stat() (os.FileInfo, error)
	})
	if !ok {
		return 0, 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0, 0
	}
	size := st.Size()
	var n int64
	switch c {
	case detect.None:
		n = size
	case detect.Gzip:
		var t [4]byte
		if size < 18 {
			return 0, 0
		}
		if _, err := f.ReadAt(t[:], size-4); err != nil {
			return 0, 0
		}
		n = int64(binary.LittleEndian.Uint32(t[:]))
		declared = n
		if n > 1032*size {
			return 0, declared
		}
	}
	if n > limit {
		return 0, declared
	}
	return n, declared
}

// mappedBytes counts the bytes newChunk took outside the Go heap, which
// runtime.MemStats does not see.
var mappedBytes atomic.Int64

// MappedBytes is how many bytes of input chunks were taken outside the Go
// heap so far (given back as soon as they were copied): the tests of
// memory bounds add it to what runtime.MemStats counts.
func MappedBytes() int64 { return mappedBytes.Load() }

// ReadAll reads all of r, at most limit bytes (more is the
// --max-input-size error, at the first byte over), into one slice of the
// size read, taking that size once and a chunk (see readChunks).
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	return readChunks(&limitedReader{r: r, left: limit, max: limit}, nil, 0)
}

// readAll reads the rest of r, which is bounded by --max-input-size, into
// a buffer of hint bytes (plus one, to see the end) when hint is known.
func readAll(r io.Reader, hint int64) ([]byte, error) {
	return readChunks(r, nil, hint)
}

// readChunks reads the rest of r into first's room and then into chunks
// that grow with what was read (never past maxChunk), and joins them into
// one slice of exactly the size read. The chunks are given back as they
// are copied (newChunk), so memory is the data once plus a chunk, and an
// input cut off by --max-input-size fails as soon as it is over, never
// after a buffer was doubled past the limit. hint, when not 0, is the size
// the input declares (see sizeHint): once hintAfter bytes were read (and
// passed whatever checks r makes as they arrive), one buffer of that size
// takes them and the rest, so that no join is needed; an input refused in
// its first bytes never takes it.
func readChunks(r io.Reader, first []byte, hint int64) ([]byte, error) {
	buf := first[:0]
	if cap(buf) == 0 {
		buf = make([]byte, 0, min(max(hint+1, 4096), minChunk))
	}
	var full [][]byte
	var mapped [][]byte // the chunks to give back, once copied or on error
	defer func() {
		for _, c := range mapped {
			freeChunk(c)
		}
	}()
	total := 0
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(buf) < cap(buf) {
			continue
		}
		if read := int64(total + len(buf)); hint >= read && read >= hintAfter {
			big := make([]byte, 0, hint+1)
			for _, c := range full {
				big = append(big, c...)
			}
			buf = append(big, buf...)
			for _, c := range mapped {
				freeChunk(c)
			}
			full, mapped, total, hint = nil, nil, 0, 0
			continue
		}
		full = append(full, buf)
		total += len(buf)
		var m bool
		if buf, m = newChunk(min(max(total, minChunk), maxChunk)); m {
			mapped = append(mapped, buf)
		}
	}
	if len(full) == 0 {
		return buf, nil
	}
	out := make([]byte, 0, total+len(buf))
	for _, c := range append(full, buf) {
		out = append(out, c...)
		if len(mapped) > 0 && cap(c) > 0 && &c[:1][0] == &mapped[0][:1][0] {
			freeChunk(mapped[0])
			mapped = mapped[1:]
		}
	}
	return out, nil
}

const (
	hintAfter = 4 << 20
	minChunk  = 64 << 10
	maxChunk  = 64 << 20
	maxPooled = 64 << 20
)

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
// its bytes, which fn must not keep unless keep is set: a buffer larger
// than the pool takes is fn's.
func withBuffer(r io.Reader, hint int64, fn func(data []byte, keep bool) error) error {
	var first []byte
	if bp, ok := bufferPool.Get().(*[]byte); ok {
		first = *bp
	}
	data, err := readChunks(r, first, hint)
	if err != nil {
		return err
	}
	pool := cap(data) <= maxPooled
	if pool {
		defer bufferPool.Put(&data)
	}
	return fn(data, !pool)
}

func titled(res detect.Result) string {
	t := formatTitles[res.Format]
	if res.Layout != "" {
		t += " (" + res.Layout + ")"
	}
	return t
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
	// stackView: the format names each stack's frames (folded, speedscope,
	// HTML: internal/view/callstacks), and writes its text as it is made.
	stackView bool
	// memPerByte is what any other writer may take per byte the profiles
	// hold in memory (model.Profile.MemSize): its own tables and the
	// output it holds before it goes out (TestWriteMemoryWithinCheck
	// measures it). compressMem, when set, is what its compressor holds
	// besides, for a profile that holds that many bytes.
	memPerByte  float64
	compressMem func(size int64) int64
	// memOf, when set, counts what the writer may take for p instead.
	memOf func(p *model.Profile) int64
}

var writers = map[OutFormat]writer{}

func registerWriter(f OutFormat, w writer) { writers[f] = w }

// OutFormats lists the output format names with a line on each.
func OutFormats() []string {
	var out []string
	for f, w := range writers {
		out = append(out, fmt.Sprintf("%-11s %s", f, w.desc))
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
	// SampleType picks the value written by formats that hold one sample
	// type (folded); "" is the profile's default, as pprof chooses it.
	SampleType string
	// Lines names frames "function file:line" in stack views (folded,
	// speedscope, HTML).
	Lines bool
}

// DefaultMaxExpansion bounds how many times its input's size an output
// may grow to (--max-expansion).
const DefaultMaxExpansion = 1024

// CheckExpansion refuses to write items in format f when the output would
// be more than factor times the input's size (inputSize decompressed bytes;
// at least 64 KiB is allowed for). Only pprof can expand so: it has no
// stack sharing, so a sample repeats every location id of its stack, where
// OTLP and bundles share one stack among many samples. It counts before
// anything is written.
func CheckExpansion(f OutFormat, items []Item, inputSize, factor int64) error {
	if f != OutPprof && f != OutPprofRaw {
		return nil
	}
	if factor <= 0 {
		factor = DefaultMaxExpansion
	}
	limit := factor * max(inputSize, 64<<10)
	var ids int64
	for _, it := range items {
		p := it.Profile
		if p == nil {
			// A stream (gperftools) holds every frame in its input.
			continue
		}
		for i := range p.Samples {
			st := p.Samples[i].Stack
			ids += int64(p.Stacks.StackLen(int(st)))
		}
		if ids > limit {
			return fmt.Errorf("the pprof output would repeat %d or more location ids over %d samples (pprof has no stack sharing): more than %d times the %d-byte input; refused before writing (--max-expansion raises the limit)",
				ids, len(p.Samples), factor, inputSize)
		}
	}
	return nil
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
	for _, it := range items {
		if it.Stream != nil && !TakesStream(f) {
			return fmt.Errorf("internal error: %s cannot be written from a stream", f)
		}
	}
	if err := checkWriteMemory(f, items); err != nil {
		return err
	}
	return wr.write(w, items, opts)
}

// What the writers that are not stack views may take per byte a profile
// holds in memory. pprof's writes its tables and samples as it encodes
// them, holding a chunk of output: with the compressor's blocks of two
// cores, 0.26 of the wide profile (200k samples, 600k locations), 0.85 of
// a smaller generated one, up to 2 times a profile of a few MiB (which
// the slack of TestWriteMemoryWithinCheck covers); the blocks, which grow
// with the cores, are counted apart (pprof.GzipMemory, of a raw encoding
// no larger than the profile in memory). OTLP's and pprofextended's
// count their own (otlp.EncodeMemory, pprofextended.EncodeMemory).
const (
	pprofMemPerByte = 1
	otlpMemPerByte  = otlp.WholeMemPerByte
)

// viewMemPerFrame is what a stack view takes per frame of the profile's
// stacks, beyond the profile's size: the frames of its stacks of names,
// as 4-byte name numbers (a profile of fewer than 65,537 locations keeps
// a frame in 2). Its text goes out as it is made.
const viewMemPerFrame = 4

// memory is what writing p in the format may take, beyond p.
func (w *writer) memory(p *model.Profile) int64 {
	if w.stackView {
		return p.MemSize() + viewMemPerFrame*int64(p.Stacks.NumFrames())
	}
	if w.memOf != nil {
		return w.memOf(p)
	}
	size := p.MemSize()
	n := int64(w.memPerByte * float64(size))
	if w.compressMem != nil {
		n += w.compressMem(size)
	}
	return n
}

// checkWriteMemory refuses to write items when that would take more than
// the memory limit leaves now, once they were read: a profile that fit
// the limit as it was decoded is refused in one line rather than left to
// run out of memory as it is written.
func checkWriteMemory(f OutFormat, items []Item) error {
	w := writers[f]
	var size, need int64
	for _, it := range items {
		if it.Profile != nil {
			size += it.Profile.MemSize()
			need += w.memory(it.Profile)
		}
	}
	what := fmt.Sprintf("writing a profile that holds %s", model.HumanBytes(size))
	if len(items) > 1 {
		what = fmt.Sprintf("writing %d profiles that hold %s", len(items), model.HumanBytes(size))
	}
	return model.CheckAvailableNow(string(f), need, what)
}

// TakesStream reports whether format f can be written from an Item.Stream.
func TakesStream(f OutFormat) bool {
	return f == OutPprof || f == OutPprofRaw || f == OutOTLP || f == OutOTLPFramed || f == OutPprofExtended
}

// Close releases what the items' streams hold.
func (in *Input) Close() error {
	var err error
	for _, it := range in.Items {
		if it.Stream != nil && it.Stream.Close != nil {
			if cerr := it.Stream.Close(); err == nil {
				err = cerr
			}
		}
	}
	return err
}
