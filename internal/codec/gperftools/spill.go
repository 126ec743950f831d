package gperftools

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"slices"

	"github.com/pprofx/pprofx/internal/fileio/tempfile"
)

// spill holds the frames of Stream's distinct stacks in order, each as the
// uvarints of its location indices + 1 (as profile.proto packs location
// ids) after the uvarint of their bytes:
// the last bytes in memory (buf, at most spillBuf), the rest in a
// temporary file made when buf first fills.
type spill struct {
	dir     string
	f       *tempfile.File
	buf     []byte
	flushed int64   // bytes in the file; buf starts at this offset
	index   []int64 // offset of stack i*spillEvery
	n       int     // stacks
	err     error
	scratch []byte
}

// spillEvery is how many stacks share one entry of the index.
const spillEvery = 64

// spillBuf is how many bytes the spill keeps in memory (a variable for
// the tests).
var spillBuf = 4 << 20

func (s *spill) add(frames []int32) error {
	if s.err != nil {
		return s.err
	}
	// As record does, but the uvarints go straight into buf, after
	// their length: no copy through scratch.
	n := 0
	for _, l := range frames {
		n += (bits.Len64(uint64(l)+1|1) + 6) / 7
	}
	if s.n%spillEvery == 0 {
		s.index = append(grow(s.index, 1), s.flushed+int64(len(s.buf)))
	}
	s.n++
	if s.buf == nil {
		s.buf = make([]byte, 0, min(spillBuf, 64<<10))
	}
	b := slices.Grow(s.buf, binary.MaxVarintLen64+n)
	b = binary.AppendUvarint(b, uint64(n))
	for _, l := range frames {
		b = binary.AppendUvarint(b, uint64(l)+1)
	}
	s.buf = b
	if len(s.buf) >= spillBuf {
		return s.flush()
	}
	return nil
}

// addKey adds a canonical key (Tally's spill holds keys, not frames): a
// byte 1 and the key's compact form when le64 and compactable, else a
// byte 0 and the key.
func (s *spill) addKey(key []byte, le64 bool) error {
	if s.err != nil {
		return s.err
	}
	b := s.scratch[:0]
	if le64 && compactable(key) {
		b = appendCompact(append(b, 1), key)
	} else {
		b = append(append(b, 0), key...)
	}
	s.scratch = b
	return s.record(b)
}

// record adds b as the next record, after the uvarint of its length.
func (s *spill) record(b []byte) error {
	if s.n%spillEvery == 0 {
		s.index = append(grow(s.index, 1), s.flushed+int64(len(s.buf)))
	}
	s.n++
	if s.buf == nil {
		s.buf = make([]byte, 0, min(spillBuf, 64<<10))
	}
	s.buf = binary.AppendUvarint(s.buf, uint64(len(b)))
	s.buf = append(s.buf, b...)
	if len(s.buf) >= spillBuf {
		return s.flush()
	}
	return nil
}

// flush moves buf to the file.
func (s *spill) flush() error {
	if s.f == nil {
		f, err := tempfile.New(s.dir, "pprofx-gperftools-*.spill")
		if err != nil {
			s.err = errors.New("cannot make a temporary file for the stacks (set TMPDIR): " + err.Error())
			return s.err
		}
		s.f = f
	}
	if _, err := s.f.WriteAt(s.buf, s.flushed); err != nil {
		s.err = errors.New("writing the stacks' temporary file: " + err.Error())
		return s.err
	}
	s.flushed += int64(len(s.buf))
	s.buf = s.buf[:0]
	return nil
}

// flushIfFile moves what is left in memory to the file, when there is one,
// so that reading the spill back does not hold both.
func (s *spill) flushIfFile() error {
	if s.f == nil || len(s.buf) == 0 {
		return s.err
	}
	if err := s.flush(); err != nil {
		return err
	}
	s.buf = nil
	return nil
}

func (s *spill) close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// spillReader reads the spill from an offset.
type spillReader struct {
	s   *spill
	off int64
	br  *bufio.Reader
}

// reader returns a reader from off, with a buffer of size bytes: large to
// read the spill through, small to read one stack.
func (s *spill) reader(off int64, size int) *spillReader {
	r := &spillReader{s: s, off: off}
	r.br = bufio.NewReaderSize(r, size)
	return r
}

// Read reads from the file below s.flushed and from buf above it.
func (r *spillReader) Read(p []byte) (int, error) {
	s := r.s
	if r.off < s.flushed {
		n := int(min(int64(len(p)), s.flushed-r.off))
		n, err := s.f.ReadAt(p[:n], r.off)
		r.off += int64(n)
		if err == io.EOF && n > 0 {
			err = nil
		}
		return n, err
	}
	i := r.off - s.flushed
	if i >= int64(len(s.buf)) {
		return 0, io.EOF
	}
	n := copy(p, s.buf[i:])
	r.off += int64(n)
	return n, nil
}

// seek moves the reader to off.
func (r *spillReader) seek(off int64) {
	r.off = off
	r.br.Reset(r)
}

// stack appends the next stack's frames to fr.
func (r *spillReader) stack(fr []int32) ([]int32, error) {
	n, err := binary.ReadUvarint(r.br)
	if err != nil {
		return fr, noEOF(err)
	}
	for n > 0 {
		b, err := r.br.Peek(min(int(n), r.br.Size()))
		if len(b) == 0 {
			return fr, noEOF(err)
		}
		// Whole uvarints only: the last may continue in the next peek.
		k := len(b)
		if uint64(k) < n {
			for k > 0 && b[k-1] >= 0x80 {
				k--
			}
			if k == 0 {
				return fr, errors.New("corrupt spill")
			}
		}
		for i := 0; i < k; {
			v, m := binary.Uvarint(b[i:k])
			if m <= 0 {
				return fr, errors.New("corrupt spill")
			}
			fr = append(fr, int32(v-1))
			i += m
		}
		r.br.Discard(k)
		n -= uint64(k)
	}
	return fr, nil
}

// packed returns the next stack's bytes (its location indices + 1 as
// uvarints), in buf.
func (r *spillReader) packed(buf []byte) ([]byte, error) {
	n, err := binary.ReadUvarint(r.br)
	if err != nil {
		return buf, noEOF(err)
	}
	if n > 1<<31 {
		return buf, errors.New("corrupt spill")
	}
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r.br, buf); err != nil {
		return buf, noEOF(err)
	}
	return buf, nil
}

// stackAt returns the frames of stack id, appended to fr.
func (r *spillReader) stackAt(id int32, fr []int32) ([]int32, error) {
	if err := r.seekRecord(int(id)); err != nil {
		return fr, err
	}
	return r.stack(fr)
}

// keyAt returns record k of a spill of keys (spill.addKey), in buf.
func (r *spillReader) keyAt(k int, buf []byte) ([]byte, error) {
	if err := r.seekRecord(k); err != nil {
		return buf, err
	}
	return r.packed(buf)
}

// seekRecord moves the reader to the start of record k.
func (r *spillReader) seekRecord(k int) error {
	r.seek(r.s.index[k/spillEvery])
	for k %= spillEvery; k > 0; k-- {
		n, err := binary.ReadUvarint(r.br)
		if err != nil {
			return noEOF(err)
		}
		if _, err := r.br.Discard(int(n)); err != nil {
			return noEOF(err)
		}
	}
	return nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
