package pprof

import (
	"fmt"
	"io"

	"github.com/pprofx/pprofx/internal/model"
)

// FrameChecker passes a raw profile.proto through while it checks the
// framing of its top-level fields (tags, wire types, varints, lengths) as
// the bytes arrive, so that an input that goes wrong early (a gzip of
// zeros after a valid start) fails at the first bad byte, not after all of
// it was read into memory.
type FrameChecker struct {
	R io.Reader
	// Limit, when not 0, is the most bytes the stream may hold
	// (--max-input-size): a length that reaches past it fails at once,
	// before the bytes it claims are read.
	Limit int64
	off   int64 // offset of the next byte
	num   uint64

	state   int // what the next byte is part of
	fieldAt int64
	v       uint64 // varint being read
	shift   uint
	skip    uint64 // bytes left of a fixed or length-delimited value
	err     error

	counts [16]int // top-level fields so far, by number
	need   int64   // what they take in the model
}

const (
	fcTag = iota
	fcVarint
	fcLen
	fcSkip
)

func (c *FrameChecker) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.R.Read(p)
	if e := c.check(p[:n]); e != nil {
		c.err = e
		return 0, e
	}
	return n, err
}

func (c *FrameChecker) fail(what string) error {
	return &decodeError{int(c.fieldAt), what}
}

func (c *FrameChecker) check(b []byte) error {
	for i := 0; i < len(b); {
		switch c.state {
		case fcSkip:
			k := min(c.skip, uint64(len(b)-i))
			c.skip -= k
			i += int(k)
			c.off += int64(k)
			if c.skip == 0 {
				c.state = fcTag
			}
			continue
		case fcTag:
			if c.shift == 0 {
				c.fieldAt = c.off
			}
		}
		x := b[i]
		i++
		c.off++
		if c.shift >= 63 && x > 1 {
			return c.fail("varint overflows 64 bits")
		}
		c.v |= uint64(x&0x7f) << c.shift
		c.shift += 7
		if x >= 0x80 {
			continue
		}
		v := c.v
		c.v, c.shift = 0, 0
		switch c.state {
		case fcTag:
			num, typ := v>>3, v&7
			if num == 0 || num > 1<<29-1 {
				return c.fail("bad field tag")
			}
			c.num = num
			if num < 16 {
				c.counts[num]++
				c.need += int64(fieldCost[num])
				// The decoder checks the same bound once it has every
				// byte; a prefix past it fails here, before the rest is
				// read (millions of tiny samples).
				if c.need > model.MemoryPerInputByte*c.off+16<<20 {
					return budgetError(&c.counts, c.need, c.off)
				}
			}
			switch typ {
			case 0:
				c.state = fcVarint
			case 1:
				c.state, c.skip = fcSkip, 8
			case 2:
				c.state = fcLen
			case 5:
				c.state, c.skip = fcSkip, 4
			default:
				return c.fail(fmt.Sprintf("field %d: unsupported wire type %d", num, typ))
			}
		case fcVarint:
			c.state = fcTag
		case fcLen:
			if c.Limit > 0 && v > uint64(c.Limit-c.off) {
				return c.fail(fmt.Sprintf("field %d: %d bytes, past the limit of %d bytes (--max-input-size)", c.num, v, c.Limit))
			}
			c.state, c.skip = fcSkip, v
			if v == 0 {
				c.state = fcTag
			}
		}
	}
	return nil
}
