// Package perfscript reads the text that `perf script` prints (Linux perf)
// into a profile: one sample per perf sample, its call chain as the stack,
// its command, process, thread and CPU as labels, one pair of sample types
// per event.
//
// The input is read line by line (bufio), so memory grows with the
// profile, never with the text: a sample's lines are held only until its
// end. docs/perf-script.md says what is read and how it maps.
package perfscript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
)

// MaxLine is the longest line read (a Java frame of a deep inline chain
// can be long); a longer one is refused with its line number.
const MaxLine = 16 << 20

// Label keys, as google/perf_data_converter names them for the same
// fields of perf.data (pprof's own perf converter).
const (
	LabelPID        = "pid"
	LabelTID        = "tid"
	LabelCPU        = "cpu"
	LabelThreadComm = "thread_comm"
	LabelTimestamp  = "timestamp_ns"
)

// Options control Decode.
type Options struct {
	// Warn is told once of what is read with a doubt.
	Warn func(string)
}

// Decode reads perf script text from r. An error names the line, after
// "perf script: ".
func Decode(r io.Reader, opts Options) (*model.Profile, error) {
	p, err := decode(r, opts)
	if err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	return p, nil
}

func decode(r io.Reader, opts Options) (*model.Profile, error) {
	d := newDecoder(opts)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	for sc.Scan() {
		d.lineNo++
		if err := d.line(sc.Bytes()); err != nil {
			return nil, fmt.Errorf("line %d: %w", d.lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", d.lineNo+1, MaxLine)
		}
		return nil, err
	}
	// The last sample needs no blank line after it.
	if err := d.endSample(); err != nil {
		return nil, fmt.Errorf("line %d: %w", d.lineNo, err)
	}
	return d.finish()
}

// Sniff reports whether head (the first bytes of an input) is perf script
// text: after any '#' comment lines (--header), a sample line (command,
// thread id, optional CPU, time, optional period, event name ending in
// ':') followed by a call chain frame or another sample line; or a first
// line that is a whole sample with its frame on it (no call graph).
func Sniff(head []byte) bool {
	for _, c := range head {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	rest := head
	lines := 0
	var prevHeader bool
	for len(rest) > 0 && lines < 64 {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			// The last, maybe cut, line decides only if it is the
			// whole input.
			if len(head) >= 4096 {
				return false
			}
			nl = len(rest)
		}
		ln := bytes.TrimRight(rest[:nl], "\r")
		rest = rest[min(nl+1, len(rest)):]
		lines++
		switch {
		case len(ln) == 0:
			continue
		case ln[0] == '#':
			if prevHeader {
				return false
			}
			continue
		case (ln[0] == ' ' || ln[0] == '\t') && prevHeader:
			_, ok := parseFrame(bytes.TrimLeft(ln, " \t"))
			return ok
		}
		var h header
		if !parseHeader(ln, &h) || !h.hasEvent {
			if prevHeader {
				// Unindented frames (old perf versions).
				_, ok := parseFrame(ln)
				return ok
			}
			return false
		}
		if h.frame != nil {
			return true
		}
		if prevHeader {
			return true // samples with no call chain
		}
		prevHeader = true
	}
	return false
}

// lineError is an error about the current line, quoting it.
func lineError(what string, ln []byte) error {
	s := string(ln)
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return fmt.Errorf("%s: %q", what, strings.TrimSpace(s))
}
