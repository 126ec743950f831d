package streamenc

import (
	"bufio"
	"fmt"
	"io"

	"github.com/pprofx/pprofx/internal/fileio/tempfile"
	"google.golang.org/protobuf/encoding/protowire"
)

// Seg is a piece of an encoded message: bytes in memory (Lit) or N bytes
// that Write produces, each time it is called.
type Seg struct {
	Lit   []byte
	N     int64
	Write func(w io.Writer) error
}

// Len returns the bytes segs stand for.
func Len(segs []Seg) int64 {
	var n int64
	for _, s := range segs {
		if s.Write != nil {
			n += s.N
		} else {
			n += int64(len(s.Lit))
		}
	}
	return n
}

// WriteSegs writes segs to w in order, checking that each streamed
// segment writes the N bytes it claims.
func WriteSegs(w io.Writer, segs []Seg) error {
	for _, s := range segs {
		if s.Write == nil {
			if _, err := w.Write(s.Lit); err != nil {
				return err
			}
			continue
		}
		cw := &countWriter{w: w}
		if err := s.Write(cw); err != nil {
			return err
		}
		if cw.n != s.N {
			return fmt.Errorf("internal error: a streamed section wrote %d bytes, not %d", cw.n, s.N)
		}
	}
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Count returns how many bytes gen writes.
func Count(gen func(w io.Writer) error) (int64, error) {
	cw := &countWriter{w: io.Discard}
	err := gen(cw)
	return cw.n, err
}

// Splice returns the protobuf message msg as segments, with the bodies of
// some of its length-delimited fields, at any depth, replaced. For each
// such field (path: the field numbers from msg down to it), edit returns
// the new body and true, or false to keep the field; a field that is kept
// and that descend accepts is itself spliced. The lengths of the fields
// around a replaced body are written for its new length.
func Splice(msg []byte, descend func(path []protowire.Number) bool, edit func(path []protowire.Number, body []byte) ([]Seg, bool)) ([]Seg, error) {
	return splice(msg, nil, descend, edit)
}

func splice(msg []byte, path []protowire.Number, descend func([]protowire.Number) bool, edit func([]protowire.Number, []byte) ([]Seg, bool)) ([]Seg, error) {
	var out []Seg
	lit := 0 // start of the bytes not yet in out
	for pos := 0; pos < len(msg); {
		num, typ, n := protowire.ConsumeTag(msg[pos:])
		if n < 0 {
			return nil, fmt.Errorf("internal error: splicing: %v", protowire.ParseError(n))
		}
		start := pos
		pos += n
		if typ != protowire.BytesType {
			m := protowire.ConsumeFieldValue(num, typ, msg[pos:])
			if m < 0 {
				return nil, fmt.Errorf("internal error: splicing: %v", protowire.ParseError(m))
			}
			pos += m
			continue
		}
		body, m := protowire.ConsumeBytes(msg[pos:])
		if m < 0 {
			return nil, fmt.Errorf("internal error: splicing: %v", protowire.ParseError(m))
		}
		pos += m
		p := append(path[:len(path):len(path)], num)
		inner, ok := edit(p, body)
		if !ok && descend(p) {
			var err error
			if inner, err = splice(body, p, descend, edit); err != nil {
				return nil, err
			}
			ok = true
		}
		if !ok {
			continue
		}
		head := protowire.AppendTag(slicesClone(msg[lit:start]), num, protowire.BytesType)
		head = protowire.AppendVarint(head, uint64(Len(inner)))
		out = append(out, Seg{Lit: head})
		out = append(out, inner...)
		lit = pos
	}
	if lit < len(msg) {
		out = append(out, Seg{Lit: msg[lit:]})
	}
	return out, nil
}

func slicesClone(b []byte) []byte { return append([]byte(nil), b...) }

// SplitAfter returns the offset in msg after its leading fields numbered num
// (0 when it does not start with one).
func SplitAfter(msg []byte, num protowire.Number) (int, error) {
	pos := 0
	for pos < len(msg) {
		n, typ, k := protowire.ConsumeTag(msg[pos:])
		if k < 0 {
			return 0, fmt.Errorf("internal error: splicing: %v", protowire.ParseError(k))
		}
		if n != num {
			break
		}
		m := protowire.ConsumeFieldValue(n, typ, msg[pos+k:])
		if m < 0 {
			return 0, fmt.Errorf("internal error: splicing: %v", protowire.ParseError(m))
		}
		pos += k + m
	}
	return pos, nil
}

// FirstAbove returns the offset of msg's first field numbered above num,
// or len(msg), and whether a field numbered num itself occurs in msg.
func FirstAbove(msg []byte, num protowire.Number) (int, bool, error) {
	seen := false
	for pos := 0; pos < len(msg); {
		n, typ, k := protowire.ConsumeTag(msg[pos:])
		if k < 0 {
			return 0, false, fmt.Errorf("internal error: splicing: %v", protowire.ParseError(k))
		}
		if n > num {
			return pos, seen, nil
		}
		seen = seen || n == num
		m := protowire.ConsumeFieldValue(n, typ, msg[pos+k:])
		if m < 0 {
			return 0, false, fmt.Errorf("internal error: splicing: %v", protowire.ParseError(m))
		}
		pos += k + m
	}
	return len(msg), seen, nil
}

// Spool is a temporary file written once and then copied out as often as
// needed; it is removed by Close.
type Spool struct {
	f  *tempfile.File
	bw *bufio.Writer
	n  int64
}

// NewSpool creates a spool in dir (os.TempDir() when "").
func NewSpool(dir, pattern string) (*Spool, error) {
	f, err := tempfile.New(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &Spool{f: f, bw: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (s *Spool) Write(p []byte) (int, error) {
	n, err := s.bw.Write(p)
	s.n += int64(n)
	return n, err
}

// Len returns the bytes written.
func (s *Spool) Len() int64 { return s.n }

// Finish flushes what was written.
func (s *Spool) Finish() error { return s.bw.Flush() }

// CopyTo writes the spool's bytes to w.
func (s *Spool) CopyTo(w io.Writer) error {
	_, err := io.Copy(w, io.NewSectionReader(s.f, 0, s.n))
	return err
}

// Close removes the spool's file.
func (s *Spool) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}
