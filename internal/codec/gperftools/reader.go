package gperftools

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// bufSize is the read buffer. Records (at most 64 PCs as gperftools writes
// them) are read from it without copying; a longer one is copied out.
const bufSize = 256 << 10

// minBufSize is the smallest read buffer: fill never needs more.
const minBufSize = 1024

// reader reads an io.Reader through a fixed buffer and counts the bytes it
// has consumed, so errors can name a byte offset.
type reader struct {
	r      io.Reader
	buf    []byte
	lo, hi int
	off    int64 // file offset of buf[lo]
	err    error // first error from r, io.EOF included
	long   []byte
	size   int64 // bytes r had left at the start, when known; else -1
}

func newReader(r io.Reader) *reader {
	size := sizeOf(r)
	n := bufSize
	if size >= 0 && size < bufSize {
		// A small input needs no large buffer, but it must still hold
		// the largest header (2+63 slots of 8 bytes).
		n = max(int(size), minBufSize)
	}
	return &reader{r: r, buf: make([]byte, n), size: size}
}

// sizeOf returns how many bytes r has left, when it can tell without reading.
func sizeOf(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }: // bytes.Reader, bytes.Buffer, strings.Reader
		return int64(v.Len())
	case *os.File:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		cur, err := v.Seek(0, io.SeekCurrent)
		if err != nil || cur > fi.Size() {
			return -1
		}
		return fi.Size() - cur
	}
	return -1
}

// remaining reports how many bytes are left from the current offset, when known.
func (rd *reader) remaining() (int64, bool) {
	if rd.size < 0 {
		return 0, false
	}
	return rd.size - rd.off, true
}

// fill tries to have n bytes (n <= len(rd.buf)) buffered and returns how many
// are, which is less than n only at the end of the input or on an error.
func (rd *reader) fill(n int) int {
	n = min(n, len(rd.buf))
	if rd.hi-rd.lo >= n {
		return n
	}
	if rd.lo > 0 {
		rd.hi = copy(rd.buf, rd.buf[rd.lo:rd.hi])
		rd.lo = 0
	}
	rd.readUntil(n)
	return min(n, rd.hi-rd.lo)
}

// readUntil reads into rd.buf[rd.hi:] until rd.hi reaches n or the
// underlying reader fails, ends or makes no progress (recorded in rd.err).
func (rd *reader) readUntil(n int) {
	for empty := 0; rd.hi < n && rd.err == nil; {
		m, err := rd.r.Read(rd.buf[rd.hi:])
		rd.hi += m
		if err != nil {
			rd.err = err
		} else if m == 0 {
			if empty++; empty > 100 {
				rd.err = io.ErrNoProgress
			}
		}
	}
}

// readErr returns the error of the underlying reader, other than io.EOF,
// naming the offset it was reading at.
func (rd *reader) readErr() error {
	if rd.err == nil || rd.err == io.EOF {
		return nil
	}
	return fmt.Errorf("reading at byte %d: %w", rd.off+int64(rd.hi-rd.lo), rd.err)
}

// peek returns the next n buffered bytes; fill(n) must have returned n.
func (rd *reader) peek(n int) []byte { return rd.buf[rd.lo : rd.lo+n] }

// skip consumes n buffered bytes.
func (rd *reader) skip(n int) {
	rd.lo += n
	rd.off += int64(n)
}

// read consumes up to n bytes and returns them with their count; fewer than
// n only at the end of the input or on an error. The slice is valid until
// the next call. Memory grows with the bytes actually read, never with n.
func (rd *reader) read(n int) ([]byte, int) {
	if n <= len(rd.buf) {
		got := rd.fill(n)
		b := rd.buf[rd.lo : rd.lo+got]
		rd.skip(got)
		return b, got
	}
	rd.long = rd.long[:0]
	for len(rd.long) < n {
		got := rd.fill(min(n-len(rd.long), len(rd.buf)))
		if got == 0 {
			break
		}
		rd.long = append(rd.long, rd.buf[rd.lo:rd.lo+got]...)
		rd.skip(got)
	}
	return rd.long, len(rd.long)
}

var errLineTooLong = errors.New("line too long")

// errNoNewline comes with the last line of the input when no "\n" ends it.
var errNoNewline = errors.New("last line has no newline")

// line returns the next line without its "\n" (and "\r"), io.EOF at the end;
// a last line that no "\n" ends comes with errNoNewline.
// A line longer than the buffer is skipped and reported as errLineTooLong.
func (rd *reader) line() ([]byte, error) {
	for scanned := 0; ; {
		for i := rd.lo + scanned; i < rd.hi; i++ {
			if rd.buf[i] == '\n' {
				l := rd.buf[rd.lo:i]
				rd.skip(i + 1 - rd.lo)
				return trimCR(l), nil
			}
		}
		scanned = rd.hi - rd.lo
		if rd.err != nil {
			if err := rd.readErr(); err != nil {
				return nil, err
			}
			if scanned == 0 {
				return nil, io.EOF
			}
			l := rd.buf[rd.lo:rd.hi]
			rd.skip(scanned)
			return trimCR(l), errNoNewline
		}
		if scanned == len(rd.buf) {
			// Drop the start of an over-long line, then the rest of it.
			rd.skip(scanned)
			for {
				if rd.fill(1) == 0 {
					if err := rd.readErr(); err != nil {
						return nil, err
					}
					return nil, errLineTooLong
				}
				for i := rd.lo; i < rd.hi; i++ {
					if rd.buf[i] == '\n' {
						rd.skip(i + 1 - rd.lo)
						return nil, errLineTooLong
					}
				}
				rd.skip(rd.hi - rd.lo)
			}
		}
		rd.fill(scanned + 1)
	}
}

func trimCR(l []byte) []byte {
	if n := len(l); n > 0 && l[n-1] == '\r' {
		return l[:n-1]
	}
	return l
}
