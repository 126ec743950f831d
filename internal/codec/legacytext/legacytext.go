// Package legacytext reads the legacy text profiles google/pprof reads:
// gperftools heap (heapprofile, heap_v2) and growth, contentionz, threadz,
// Go's debug=1 text (heap, goroutine, threadcreate, mutex, block) and the
// Java heapz/contentionz text.
//
// The profile is google/pprof's own reading of the bytes
// (github.com/google/pprof/profile.ParseData), so its semantics are
// pprof's: addresses one before the return address (except threadz'
// leaves), heap samples unsampled with the rate in the header, contention
// cycles in nanoseconds, the bytes label. To that reading it adds what the
// text says and pprof leaves out:
//
//   - Go debug=1's "#\t0x… func+0x… file:line" comments become the
//     functions, files and lines of the locations at those addresses
//     (several lines at one address: the inlined calls, innermost first);
//   - the "# labels: {…}" comments of a goroutine profile become the
//     sample's labels;
//   - threadz' thread names and ids become the labels thread and
//     thread_id of the samples they were counted in.
package legacytext

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
)

// MaxLines bounds the lines of an input: google/pprof's reading holds the
// whole text and every sample; beyond it the input is refused.
const MaxLines = 50_000_000

// maxLocate bounds the inputs whose error is located by reading them again
// (a binary search over their lines).
const maxLocate = 64 << 20

// Options control Decode.
type Options struct {
	// Warn is told about what is read with a doubt.
	Warn func(string)
}

// What google/pprof's reading may take, counted before it starts: its
// profile holds a sample in about 750 bytes (slices of values and
// locations, a map of numeric labels) and a location of its own in about
// 170; the profile is then written as pprof and read into the model.
// Every line is counted as a sample, every "0x" as a location of its
// own: 42 times a crafted heap line of 18 bytes ("1: 1 [1: 1] @ 0x1"),
// 5 to 20 times real profiles' lines of many frames.
const (
	perLine    = 800
	perAddress = 170
)

// Decode reads a legacy text profile. A large text of one record a line
// is read a run of records at a time (see chunks.go); any other text
// whole.
func Decode(data []byte, opts Options) (*model.Profile, error) {
	n := bytes.Count(data, []byte("\n"))
	if n > MaxLines {
		return nil, fmt.Errorf("legacy text: %d lines, more than the %d this reader takes", n, MaxLines)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, fmt.Errorf("legacy text: byte %d: a NUL byte: not text", i)
	}
	warn := onceEach(opts.Warn)
	if l, ok := splitRuns(data, chunkBytes); ok {
		p, err := decodeRuns(data, l, warn)
		if err != errDisagree {
			if err == nil {
				warnCut(data, warn)
			}
			return p, err
		}
	}
	need := perLine*int64(n+1) + perAddress*int64(bytes.Count(data, []byte("0x"))) + 4*int64(len(data))
	if err := model.CheckAvailable("legacy text", need, int64(len(data)), fmt.Sprintf("google/pprof's reading of %d lines", n+1)); err != nil {
		return nil, err
	}
	p, err := decodeText(data, nil, warn)
	if err != nil {
		if perr, ok := err.(parseError); ok {
			return nil, locate(data, perr.err)
		}
		return nil, err
	}
	warnCut(data, warn)
	return p, nil
}

// parseError is google/pprof's refusal of a text, which names no line.
type parseError struct{ err error }

func (e parseError) Error() string { return e.err.Error() }

// decodeText is google/pprof's reading of a text, with what enrich adds
// (frames as enrich takes them), in the model.
func decodeText(data []byte, frames map[uint64][]goFrame, warn func(string)) (*model.Profile, error) {
	p, err := parse(data)
	if err != nil {
		return nil, parseError{err}
	}
	enrich(p, data, frames, warn)
	var buf bytes.Buffer
	if err := p.WriteUncompressed(&buf); err != nil {
		return nil, fmt.Errorf("legacy text: %v", err)
	}
	return pprof.DecodeRaw(buf.Bytes())
}

// warnCut tells of a text whose last line has no line break.
func warnCut(data []byte, warn func(string)) {
	if len(data) > 0 && data[len(data)-1] != '\n' && warn != nil {
		warn(fmt.Sprintf("legacy text: line %d has no line break: the input may be cut short", bytes.Count(data, []byte("\n"))+1))
	}
}

// onceEach passes each distinct warning on once: the runs of a large
// text are each enriched as a whole text is.
func onceEach(warn func(string)) func(string) {
	if warn == nil {
		return nil
	}
	seen := map[string]bool{}
	return func(s string) {
		if !seen[s] {
			seen[s] = true
			warn(s)
		}
	}
}

// enrich adds to google/pprof's reading what the text says and the
// reading leaves out. frames are the Go frame comments of the whole text
// data is a run of (goFrames), or nil to read them from data.
func enrich(p *profile.Profile, data []byte, frames map[uint64][]goFrame, warn func(string)) {
	if frames == nil && bytes.Contains(data, []byte("\n#\t0x")) {
		frames = goFrames(data)
	}
	addGoFrames(p, frames)
	if bytes.Contains(data, []byte("\n#\t0x")) {
		if err := addGoLabels(p, data); err != nil && warn != nil {
			warn("legacy text: labels left out: " + err.Error())
		}
	}
	if isThreadz(data) {
		if err := addThreadNames(p, data); err != nil && warn != nil {
			warn("legacy text: thread names left out: " + err.Error())
		}
	}
}

// parse is google/pprof's reading, with a panic of its parser turned into
// an error.
func parse(data []byte) (p *profile.Profile, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("google/pprof's parser failed: %v", r)
		}
	}()
	return profile.ParseData(data)
}

// locate turns google/pprof's error, which names no place, into one that
// names the first line at which it fails.
func locate(data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "parsing profile: ")
	n, line, ok := failingLine(data, msg, 0)
	if !ok {
		return fmt.Errorf("legacy text: google/pprof does not read it: %s", msg)
	}
	return lineError(n, msg, line)
}

func lineError(n int, msg, line string) error {
	return fmt.Errorf("legacy text: line %d: google/pprof does not read it (%s): %.80q", n, msg, line)
}

// failingLine finds the shortest run of whole lines from the start of data
// that google/pprof refuses with msg, and returns the number and text of
// its last line. The search assumes that every shorter run of lines reads,
// which blank lines before a header break (alone they are refused as no
// profile): when the first from lines (a run's header lines, in a text
// read in runs) read, the search starts after them.
func failingLine(data []byte, msg string, from int) (int, string, bool) {
	var ends []int // ends[i]: offset after line i+1
	for off := 0; off < len(data); {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			off = len(data)
		} else {
			off += i + 1
		}
		ends = append(ends, off)
	}
	fails := func(n int) bool {
		_, err := parse(data[:ends[n-1]])
		return err != nil
	}
	lo, hi := 1, len(ends)
	if hi == 0 || len(data) > maxLocate || !fails(hi) {
		return 0, "", false
	}
	if from > 0 && from < hi && !fails(from) {
		lo = from + 1
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	// The search assumes that once a line is refused every longer run is:
	// the line found must fail as the whole input does.
	if _, err := parse(data[:ends[lo-1]]); err == nil || strings.TrimPrefix(err.Error(), "parsing profile: ") != msg {
		return 0, "", false
	}
	line := string(bytes.TrimRight(data[max(0, ends[lo-1]-200):ends[lo-1]], "\r\n"))
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	return lo, line, true
}
