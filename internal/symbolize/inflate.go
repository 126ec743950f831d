package symbolize

import (
	ebin "encoding/binary"
	"errors"
	"math/bits"
)

// inflater decodes a raw DEFLATE stream (RFC 1951) straight into out,
// which has the whole decompressed size: back-references are copies within
// out, so there is no window to keep and nothing to copy out afterwards, as
// a streaming decoder must. It decodes as far as asked and resumes from
// there. Every index is checked: damaged input gives an error (or wrong
// bytes, which the DWARF reader then rejects), never a write outside out.
type inflater struct {
	in    []byte
	ip    int    // next input byte
	bits  uint64 // bit buffer, next bit lowest
	nb    uint   // bits in it
	pad   int    // zero bytes added past the end of in
	out   []byte
	op    int // bytes decoded
	state uint8
	final bool
	store int // bytes left of a stored block
	err   error
	lit   huffTable
	dist  huffTable
	clt   huffTable // a dynamic block's code length code
}

const (
	infHeader = iota // at a block header
	infStored        // in a stored block
	infHuff          // in a Huffman-coded block
	infDone          // after the final block
)

var errInflate = errors.New("invalid deflate data")

// huffTable decodes a canonical Huffman code: the entry at the low
// primaryBits of the bit buffer is a symbol<<16 | its length, or, for a
// longer code, flagSub | sub-table start<<16 | the sub-table's index bits.
type huffTable struct {
	t []uint32
}

const (
	primaryBits = 10
	flagSub     = 0x10
)

// build makes the table for code lengths lens (0: unused symbol).
func (h *huffTable) build(lens []uint8) error {
	var count [16]int
	maxLen := 0
	for _, l := range lens {
		count[l]++
		maxLen = max(maxLen, int(l))
	}
	count[0] = 0
	left := 1
	for l := 1; l < 16; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return errInflate // over-subscribed
		}
	}
	// An incomplete code is refused, as zlib and compress/flate refuse it,
	// but for the two they take: no code at all, and one code of one bit.
	if left > 0 && maxLen > 0 && !(maxLen == 1 && count[1] == 1) {
		return errInflate
	}
	var next [16]int
	code := 0
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	subBits := max(maxLen-primaryBits, 0)
	size := 1 << primaryBits
	if cap(h.t) < size {
		h.t = make([]uint32, size, size+288<<5)
	}
	h.t = h.t[:size]
	clear(h.t)
	for sym, l := range lens {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		r := int(bits.Reverse16(uint16(c)) >> (16 - l))
		if int(l) <= primaryBits {
			e := uint32(sym)<<16 | uint32(l)
			for i := r; i < 1<<primaryBits; i += 1 << l {
				h.t[i] = e
			}
			continue
		}
		p := r & (1<<primaryBits - 1)
		if h.t[p]&flagSub == 0 {
			start := len(h.t)
			h.t = append(h.t, make([]uint32, 1<<subBits)...)
			h.t[p] = uint32(start)<<16 | flagSub | uint32(subBits)
		}
		base := int(h.t[p] >> 16)
		e := uint32(sym)<<16 | uint32(l)
		for i := r >> primaryBits; i < 1<<subBits; i += 1 << (int(l) - primaryBits) {
			h.t[base+i] = e
		}
	}
	return nil
}

// refill tops the bit buffer up to at least 56 bits.
func (f *inflater) refill() {
	if f.ip+8 <= len(f.in) {
		f.bits |= ebin.LittleEndian.Uint64(f.in[f.ip:]) << f.nb
		f.ip += int(63-f.nb) >> 3
		f.nb |= 56
		return
	}
	for f.nb <= 56 {
		if f.ip < len(f.in) {
			f.bits |= uint64(f.in[f.ip]) << f.nb
			f.ip++
		} else {
			f.pad++
		}
		f.nb += 8
	}
}

// overrun says whether bits past the end of the input were used.
func (f *inflater) overrun() bool { return f.pad > 0 && int(f.nb) < 8*f.pad }

func (f *inflater) get(n uint) uint32 {
	if f.nb < n {
		f.refill()
	}
	v := uint32(f.bits & (1<<n - 1))
	f.bits >>= n
	f.nb -= n
	return v
}

// sym decodes one symbol with h; the buffer must hold 15 bits.
func (f *inflater) sym(h *huffTable) (int, bool) {
	e := h.t[f.bits&(1<<primaryBits-1)]
	if e&flagSub != 0 {
		e = h.t[int(e>>16)+int(f.bits>>primaryBits&(1<<(e&15)-1))]
	}
	n := uint(e & 15)
	if n == 0 {
		return 0, false
	}
	f.bits >>= n
	f.nb -= n
	return int(e >> 16), true
}

var (
	lenBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	dstBase  = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	dstExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	// the order code length code lengths come in
	clOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// decode decodes until out[:to] is written (or the stream ends).
func (f *inflater) decode(to int) error {
	to = min(to, len(f.out))
	for f.op < to && f.err == nil {
		switch f.state {
		case infHeader:
			f.err = f.header()
		case infStored:
			f.err = f.stored(to)
		case infHuff:
			f.err = f.huff(to)
		case infDone:
			f.err = errInflate // the stream ends before out is full
		}
	}
	if f.err == nil && f.overrun() {
		f.err = errInflate
	}
	return f.err
}

func (f *inflater) header() error {
	if f.final {
		f.state = infDone
		return nil
	}
	f.final = f.get(1) == 1
	switch f.get(2) {
	case 0:
		f.bits >>= f.nb & 7 // to a byte boundary
		f.nb &^= 7
		n, nn := f.get(16), f.get(16)
		if n != ^nn&0xffff {
			return errInflate
		}
		f.store, f.state = int(n), infStored
	case 1:
		var lens [288 + 32]uint8
		for i := range 288 {
			switch {
			case i < 144:
				lens[i] = 8
			case i < 256:
				lens[i] = 9
			case i < 280:
				lens[i] = 7
			default:
				lens[i] = 8
			}
		}
		// All 32 distance codes, so that the code is complete; 30 and 31
		// are refused where they are read.
		for i := range 32 {
			lens[288+i] = 5
		}
		if err := f.lit.build(lens[:288]); err != nil {
			return err
		}
		if err := f.dist.build(lens[288:320]); err != nil {
			return err
		}
		f.state = infHuff
	case 2:
		if err := f.dynamic(); err != nil {
			return err
		}
		f.state = infHuff
	default:
		return errInflate
	}
	if f.overrun() {
		return errInflate
	}
	return nil
}

// dynamic reads a dynamic block's code lengths and builds its tables.
func (f *inflater) dynamic() error {
	nlit, ndist, ncl := int(f.get(5))+257, int(f.get(5))+1, int(f.get(4))+4
	if nlit > 286 || ndist > 30 {
		return errInflate
	}
	var cl [19]uint8
	for i := range ncl {
		cl[clOrder[i]] = uint8(f.get(3))
	}
	clt := &f.clt
	if err := clt.build(cl[:]); err != nil {
		return err
	}
	var lens [286 + 30]uint8
	for i := 0; i < nlit+ndist; {
		f.refill()
		s, ok := f.sym(clt)
		if !ok {
			return errInflate
		}
		if s < 16 {
			lens[i] = uint8(s)
			i++
			continue
		}
		var rep int
		var v uint8
		switch s {
		case 16:
			if i == 0 {
				return errInflate
			}
			v, rep = lens[i-1], 3+int(f.get(2))
		case 17:
			rep = 3 + int(f.get(3))
		default:
			rep = 11 + int(f.get(7))
		}
		if i+rep > nlit+ndist {
			return errInflate
		}
		for ; rep > 0; rep-- {
			lens[i] = v
			i++
		}
	}
	if lens[256] == 0 {
		return errInflate // no end of block
	}
	if err := f.lit.build(lens[:nlit]); err != nil {
		return err
	}
	return f.dist.build(lens[nlit : nlit+ndist])
}

func (f *inflater) stored(to int) error {
	for f.store > 0 && f.op < to {
		if f.nb >= 8 { // bytes already in the bit buffer
			f.out[f.op] = byte(f.bits)
			f.bits >>= 8
			f.nb -= 8
			f.op++
			f.store--
			continue
		}
		// The buffer is empty (a stored block starts on a byte boundary),
		// but a refill may have loaded the byte at ip ahead already.
		f.bits = 0
		n := min(f.store, to-f.op, len(f.in)-f.ip)
		if n <= 0 {
			return errInflate
		}
		copy(f.out[f.op:f.op+n], f.in[f.ip:])
		f.ip += n
		f.op += n
		f.store -= n
	}
	if f.store == 0 {
		f.state = infHeader
	}
	return nil
}

func (f *inflater) huff(to int) error {
	// The bit buffer is kept in locals here, refilled inline while eight
	// input bytes remain (by refill beyond that). A refill leaves at least
	// 56 bits; literals are decoded one after another without one while 15
	// bits (the longest code) remain.
	out, in := f.out, f.in
	op, ip, bb, nb := f.op, f.ip, f.bits, f.nb
	lit, dist := f.lit.t, f.dist.t
	// build makes at least 1<<primaryBits entries of each
	litP, distP := (*[1 << primaryBits]uint32)(lit), (*[1 << primaryBits]uint32)(dist)
	var err error
	for op < to {
		if ip+8 <= len(in) {
			bb |= ebin.LittleEndian.Uint64(in[ip:]) << (nb & 63)
			ip += int(63-nb) >> 3
			nb |= 56
		} else {
			f.ip, f.bits, f.nb = ip, bb, nb
			f.refill()
			ip, bb, nb = f.ip, f.bits, f.nb
		}
		e := litP[bb&(1<<primaryBits-1)]
		if e&flagSub != 0 {
			e = lit[int(e>>16)+int(bb>>primaryBits&(1<<(e&15)-1))]
		}
		n := uint(e & 15)
		s := int(e >> 16)
		for s < 256 && n != 0 {
			bb >>= n & 63
			nb -= n
			out[op] = byte(s)
			op++
			if nb < 15 || op >= to {
				break
			}
			e = litP[bb&(1<<primaryBits-1)]
			if e&flagSub != 0 {
				e = lit[int(e>>16)+int(bb>>primaryBits&(1<<(e&15)-1))]
			}
			n = uint(e & 15)
			s = int(e >> 16)
		}
		if s < 256 && n != 0 {
			continue // out of bits, or at to
		}
		if n == 0 {
			err = errInflate
			break
		}
		bb >>= n & 63
		nb -= n
		if s == 256 {
			f.state = infHeader
			break
		}
		if nb < 33 { // a length's extra bits, a distance code and its extra bits
			if ip+8 <= len(in) {
				bb |= ebin.LittleEndian.Uint64(in[ip:]) << (nb & 63)
				ip += int(63-nb) >> 3
				nb |= 56
			} else {
				f.ip, f.bits, f.nb = ip, bb, nb
				f.refill()
				ip, bb, nb = f.ip, f.bits, f.nb
			}
		}
		s -= 257
		if s >= 29 {
			err = errInflate
			break
		}
		x := lenExtra[s]
		length := int(lenBase[s]) + int(bb&(1<<(x&63)-1))
		bb >>= x & 63
		nb -= uint(x)
		e = distP[bb&(1<<primaryBits-1)]
		if e&flagSub != 0 {
			e = dist[int(e>>16)+int(bb>>primaryBits&(1<<(e&15)-1))]
		}
		n = uint(e & 15)
		d := int(e >> 16)
		if n == 0 || d >= 30 {
			err = errInflate
			break
		}
		bb >>= n & 63
		nb -= n
		x = dstExtra[d]
		d = int(dstBase[d]) + int(bb&(1<<(x&63)-1))
		bb >>= x & 63
		nb -= uint(x)
		if d > op || length > len(out)-op {
			err = errInflate
			break
		}
		src := op - d
		switch {
		case d >= 8 && op+length+8 <= len(out):
			// Eight bytes at a time, each from bytes already written;
			// up to seven bytes past the end are written, to be
			// overwritten by what follows.
			for i := 0; i < length; i += 8 {
				ebin.LittleEndian.PutUint64(out[op+i:], ebin.LittleEndian.Uint64(out[src+i:]))
			}
		case d >= length:
			copy(out[op:op+length], out[src:])
		default:
			for i := range length {
				out[op+i] = out[src+i]
			}
		}
		op += length
	}
	f.op, f.ip, f.bits, f.nb = op, ip, bb, nb
	return err
}
