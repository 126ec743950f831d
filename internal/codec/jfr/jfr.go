// Package jfr reads JDK Flight Recorder recordings (JFR 2.x: the JDK 11 and
// later, async-profiler 2.x to 4.x) into pprofx's model: one profile holding
// a sample type pair for each kind of event present, a sample per event
// with its thread as labels and its time as a timestamp.
//
// A recording is a sequence of chunks, each self-contained: its own
// metadata, constant pools, clock (ticks per second) and settings. Decode
// splits the recording into chunks by the sizes in their headers and reads
// one chunk at a time, so that no id of one chunk is ever looked up in
// another's pools. pprofx reads each chunk's metadata once, checking it,
// and hands github.com/grafana/jfr-parser's bindings (parser/types) the
// type map they need to read the events and the thread, class and symbol
// pools, each checked first (library.go). What that library does not keep
// (frame types, bytecode indexes, method descriptors,
// jdk.NativeMethodSample) pprofx reads from the same chunk itself
// (scan.go, pools.go). See docs/jfr.md for the mapping.
package jfr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/pprofx/pprofx/internal/model"
)

// chunkHeaderSize is the size of a chunk header (JFR 2.x).
const chunkHeaderSize = 68

// Magic starts every chunk.
const Magic = "FLR\x00"

// Options control Decode.
type Options struct {
	// Salvage keeps the complete chunks before a cut or broken one, with a
	// warning, instead of failing.
	Salvage bool
	// Warn is told about anything read with a loss or a doubt.
	Warn func(string)
}

// Info describes a decoded recording.
type Info struct {
	Version  string // of the first chunk, e.g. "2.1"
	Chunks   int    // chunks read
	Events   map[string]int
	Salvaged bool
}

// header is a chunk header.
type header struct {
	major, minor   uint16
	size           uint64
	cpOffset       uint64
	metaOffset     uint64
	startNanos     int64
	durationNanos  int64
	startTicks     int64
	ticksPerSecond int64
	features       uint32
}

func parseHeader(b []byte) header {
	be := binary.BigEndian
	return header{
		major:          be.Uint16(b[4:]),
		minor:          be.Uint16(b[6:]),
		size:           be.Uint64(b[8:]),
		cpOffset:       be.Uint64(b[16:]),
		metaOffset:     be.Uint64(b[24:]),
		startNanos:     int64(be.Uint64(b[32:])),
		durationNanos:  int64(be.Uint64(b[40:])),
		startTicks:     int64(be.Uint64(b[48:])),
		ticksPerSecond: int64(be.Uint64(b[56:])),
		features:       be.Uint32(b[64:]),
	}
}

// check says what is wrong with a chunk header, if anything.
func (h header) check() error {
	if h.major != 2 {
		if h.major == 0 && h.minor == 9 || h.major == 1 && h.minor == 0 {
			return fmt.Errorf("JFR version %d.%d (JDK 7 and 8 write 0.9, JDK 9 and 10 write 1.0) is not supported: only 2.x (JDK 11 and later, async-profiler)", h.major, h.minor)
		}
		return fmt.Errorf("JFR version %d.%d is not supported: only 2.x", h.major, h.minor)
	}
	if h.size < chunkHeaderSize || h.size > 1<<40 {
		return fmt.Errorf("chunk size %d in the header is impossible", h.size)
	}
	if h.cpOffset < chunkHeaderSize || h.cpOffset >= h.size || h.metaOffset < chunkHeaderSize || h.metaOffset >= h.size {
		return fmt.Errorf("constant pool offset %d or metadata offset %d is outside the chunk of %d bytes", h.cpOffset, h.metaOffset, h.size)
	}
	if h.ticksPerSecond <= 0 {
		return fmt.Errorf("ticks per second %d in the header is not positive", h.ticksPerSecond)
	}
	return nil
}

// Decode reads a whole recording, chunk by chunk, from r.
func Decode(r io.Reader, opts Options) (*model.Profile, *Info, error) {
	return decode(&readerSource{r: r}, opts)
}

// DecodeBytes reads a whole recording held in memory, without copying it.
func DecodeBytes(b []byte, opts Options) (*model.Profile, *Info, error) {
	return decode(&bytesSource{b: b}, opts)
}

// source gives a recording's chunks one at a time.
type source interface {
	// header reads the next chunk header into hb, as io.ReadFull.
	header(hb []byte) (int, error)
	// body returns the whole chunk (header included) of size bytes whose
	// header was read last; when the input ends first, the bytes it had.
	body(hb []byte, size int64) ([]byte, error)
}

// readerSource reads chunks into one buffer, reused: a chunk is read as
// its bytes arrive, so a size that lies costs no more memory than the
// input holds.
type readerSource struct {
	r   io.Reader
	buf bytes.Buffer
}

func (s *readerSource) header(hb []byte) (int, error) { return io.ReadFull(s.r, hb) }

func (s *readerSource) body(hb []byte, size int64) ([]byte, error) {
	s.buf.Reset()
	s.buf.Write(hb)
	_, err := io.CopyN(&s.buf, s.r, size-int64(len(hb)))
	if err == io.EOF {
		err = nil
	}
	return s.buf.Bytes(), err
}

type bytesSource struct {
	b   []byte
	off int
}

func (s *bytesSource) header(hb []byte) (int, error) {
	n := copy(hb, s.b[s.off:])
	if n == 0 {
		return 0, io.EOF
	}
	if n < len(hb) {
		return n, io.ErrUnexpectedEOF
	}
	return n, nil
}

func (s *bytesSource) body(hb []byte, size int64) ([]byte, error) {
	end := int64(len(s.b))
	if rest := end - int64(s.off); size < rest {
		end = int64(s.off) + size
	}
	c := s.b[s.off:end:end]
	s.off = int(end)
	return c, nil
}

func decode(src source, opts Options) (*model.Profile, *Info, error) {
	d := newDecoder(opts)
	var off int64
	var hb [chunkHeaderSize]byte
	for i := 0; ; i++ {
		n, err := src.header(hb[:])
		if n == 0 && err == io.EOF {
			if i == 0 {
				return nil, nil, errors.New("jfr: empty input")
			}
			break
		}
		fail := func(err error) (*model.Profile, *Info, error) {
			err = fmt.Errorf("jfr: chunk %d at byte %d: %w", i+1, off, err)
			if opts.Salvage && i > 0 {
				d.warn(fmt.Sprintf("%v; kept the %d complete chunks before it (--salvage)", err, i))
				d.info.Salvaged = true
				return d.finish(), &d.info, nil
			}
			return nil, nil, err
		}
		if n >= 4 && string(hb[:4]) != Magic {
			return fail(fmt.Errorf("no chunk magic (want %q, found %q)", Magic, hb[:4]))
		}
		if n >= 8 {
			// An old recording is named by its version even when short.
			h := header{major: binary.BigEndian.Uint16(hb[4:]), minor: binary.BigEndian.Uint16(hb[6:])}
			if h.major != 2 {
				return fail(h.check())
			}
		}
		if err != nil {
			return fail(fmt.Errorf("cut in its header (%d of %d bytes)", n, chunkHeaderSize))
		}
		h := parseHeader(hb[:])
		if err := h.check(); err != nil {
			return fail(err)
		}
		c, err := src.body(hb[:], int64(h.size))
		if err != nil {
			return fail(err)
		}
		if int64(len(c)) < int64(h.size) {
			return fail(fmt.Errorf("cut: its header says %d bytes, the input ends after %d", h.size, len(c)))
		}
		if err := d.chunk(c, h); err != nil {
			return fail(err)
		}
		if i == 0 {
			d.info.Version = fmt.Sprintf("%d.%d", h.major, h.minor)
		}
		d.info.Chunks++
		off += int64(h.size)
	}
	return d.finish(), &d.info, nil
}
