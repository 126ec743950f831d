package dwarfread

import (
	ebin "encoding/binary"
	"errors"
	"math/bits"
)

// ownInflater decodes a raw DEFLATE stream (RFC 1951) straight into out,
// which has the whole decompressed size: back-references are copies within
// out, so there is no window to keep and nothing to copy out afterwards, as
// a streaming decoder must. It decodes as far as asked and resumes from
// there. Every index is checked: damaged input gives an error (or wrong
// bytes, which the DWARF reader then rejects), never a write outside out.
type ownInflater struct {
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

// huffTable decodes a canonical Huffman code. The entry at the low pb
// bits of the bit buffer tells what a symbol is and how many bits it takes
// with its extra bits, so that a literal, a length or a distance is one
// lookup:
//
//	bits 0-5   the bits to consume: the code's length, plus its extra bits
//	           for a length or distance
//	bits 8-11  the code's length (the extra bits follow it)
//	bits 16-31 the value: a literal byte, a length, a distance base, a
//	           code length code's symbol
//
// with the flags below. In the literal/length table, a length whose code
// and extra bits fit in pb bits has its entries filled for each value of
// the extra bits, and holds the length itself; a longer one is
// flagExc|flagExtra and holds the length base. A distance holds its base.
// A code longer than pb bits has a sub-table: its primary entry is
// flagExc|flagSub, the sub-table's start in bits 16-31 and its index bits
// (the bits after the primary ones) in bits 0-5. A sub-table's entries hold
// the code's whole length, so that they are used as primary entries are.
//
// The bits to consume are the entry's low six bits, so that the decoder
// shifts the bit buffer by the entry (the shift takes its count mod 64)
// and subtracts the whole entry from its bit count, whose low six bits
// alone are kept right.
type huffTable struct {
	t  []uint32
	pb uint // primary bits
}

const (
	litBits  = 11 // primary bits of the literal/length table
	distBits = 8  // of the distance table
	clBits   = 7  // of the code length code's (the longest such code)

	flagLit   = 1 << 6  // a literal
	flagExc   = 1 << 7  // not a literal, nor a length or distance to use as it is
	flagSub   = 1 << 12 // with flagExc: a sub-table
	flagEOB   = 1 << 13 // with flagExc: end of block
	flagExtra = 1 << 14 // with flagExc: a length base, its extra bits still to add
	badSym    = flagExc // an unused code, or a symbol the format does not have
)

// What each symbol's entry holds besides the code's length: its flags and
// value (payload) and how many extra bits follow its code.
var (
	litPayload, distPayload, clPayload [288]uint32
	litExtra, distExtra, noExtra       [288]uint8
)

func init() {
	lenBase := [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra := [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	dstBase := [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	dstExtra := [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	for i := range 288 {
		switch {
		case i < 256:
			litPayload[i] = flagLit | uint32(i)<<16
		case i == 256:
			litPayload[i] = flagExc | flagEOB
		case i < 257+29:
			litPayload[i] = uint32(lenBase[i-257]) << 16
			litExtra[i] = lenExtra[i-257]
		default:
			litPayload[i] = badSym
		}
		switch {
		case i < 30:
			distPayload[i] = uint32(dstBase[i]) << 16
			distExtra[i] = dstExtra[i]
		default:
			distPayload[i] = badSym
		}
		clPayload[i] = uint32(i) << 16
	}
}

// build makes the table for code lengths lens (0: unused symbol), with pb
// primary bits, entries payload[sym] and extra[sym] extra bits.
//
// With lenValues, a symbol with extra bits whose code and extra bits fit in
// pb bits gets one entry for each value of them (lengths, in the
// literal/length table), and one that does not fit is flagExc|flagExtra;
// without, every symbol's entry holds its base (distances).
func (h *huffTable) build(lens []uint8, pb uint, payload *[288]uint32, extra *[288]uint8, lenValues bool) error {
	var count [16]int
	maxLen := 0
	for _, l := range lens {
		count[l&15]++
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
	subBits := max(maxLen-int(pb), 0)
	size := 1 << pb
	if cap(h.t) < size || h.pb != pb {
		h.t = make([]uint32, size, 2*size) // sub-tables past 2*size are rare
	}
	h.pb = pb
	h.t = h.t[:size]
	for i := range h.t {
		h.t[i] = badSym
	}
	for sym, l := range lens {
		if l == 0 {
			continue
		}
		c := next[l&15]
		next[l&15]++
		r := int(bits.Reverse16(uint16(c)) >> (16 - l))
		x := extra[sym%288]
		e := payload[sym%288] | uint32(l)<<8 | uint32(l+x)
		if lenValues && x > 0 {
			if uint(l+x) > pb {
				e |= flagExc | flagExtra
			} else {
				// The entry at i is for extra bits i>>l.
				for i := r; i < size; i += 1 << l {
					h.t[i] = e + uint32(i>>l&(1<<x-1))<<16
				}
				continue
			}
		}
		if uint(l) <= pb {
			for i := r; i < size; i += 1 << l {
				h.t[i] = e
			}
			continue
		}
		p := r & (size - 1)
		if h.t[p]&flagSub == 0 {
			start := len(h.t)
			h.t = append(h.t, make([]uint32, 1<<subBits)...)
			for i := start; i < len(h.t); i++ {
				h.t[i] = badSym
			}
			h.t[p] = uint32(start)<<16 | flagExc | flagSub | uint32(subBits)
		}
		base := int(h.t[p] >> 16)
		for i := r >> pb; i < 1<<subBits; i += 1 << (uint(l) - pb) {
			h.t[base+i] = e
		}
	}
	return nil
}

// refill tops the bit buffer up to 56 to 63 bits.
func (f *ownInflater) refill() {
	if f.ip+8 <= len(f.in) {
		f.bits |= ebin.LittleEndian.Uint64(f.in[f.ip:]) << f.nb
		f.ip += int(63-f.nb) >> 3
		f.nb |= 56
		return
	}
	for f.nb < 56 {
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
func (f *ownInflater) overrun() bool { return f.pad > 0 && int(f.nb) < 8*f.pad }

func (f *ownInflater) get(n uint) uint32 {
	if f.nb < n {
		f.refill()
	}
	v := uint32(f.bits & (1<<n - 1))
	f.bits >>= n
	f.nb -= n
	return v
}

// sym decodes one symbol with h, a table without extra bits; the buffer
// must hold 15 bits.
func (f *ownInflater) sym(h *huffTable) (int, bool) {
	e := h.t[f.bits&(1<<h.pb-1)]
	if e&flagSub != 0 {
		e = h.t[int(e>>16)+int(f.bits>>h.pb&(1<<(e&63)-1))]
	}
	if e&flagExc != 0 {
		return 0, false
	}
	n := uint(e & 63)
	f.bits >>= n
	f.nb -= n
	return int(e >> 16), true
}

var (
	// the order code length code lengths come in
	clOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

func (f *ownInflater) inflate(to int) (int, error) {
	err := f.decode(to)
	return f.op, err
}

// decode decodes until out[:to] is written (or the stream ends).
func (f *ownInflater) decode(to int) error {
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

func (f *ownInflater) header() error {
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
		if err := f.lit.build(lens[:288], litBits, &litPayload, &litExtra, true); err != nil {
			return err
		}
		if err := f.dist.build(lens[288:320], distBits, &distPayload, &distExtra, false); err != nil {
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
func (f *ownInflater) dynamic() error {
	nlit, ndist, ncl := int(f.get(5))+257, int(f.get(5))+1, int(f.get(4))+4
	if nlit > 286 || ndist > 30 {
		return errInflate
	}
	var cl [19]uint8
	for i := range ncl {
		cl[clOrder[i]] = uint8(f.get(3))
	}
	clt := &f.clt
	if err := clt.build(cl[:], clBits, &clPayload, &noExtra, false); err != nil {
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
	if err := f.lit.build(lens[:nlit], litBits, &litPayload, &litExtra, true); err != nil {
		return err
	}
	return f.dist.build(lens[nlit:nlit+ndist], distBits, &distPayload, &distExtra, false)
}

func (f *ownInflater) stored(to int) error {
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

// fastIn and fastOut are the input and output bytes the fast loop needs
// left to run an iteration without running out: two 8-byte refills, and
// two literals and a longest match with a copy's overshoot (up to 15
// bytes) after the output position it starts at. (Every access is still
// bounds-checked; within these margins no check fails.)
const (
	fastIn  = 16
	fastOut = 2 + 258 + 16
)

// huff decodes a Huffman-coded block until out[:to] is written, the block
// ends or the data is wrong: by fast while fastIn input bytes and fastOut
// output bytes are left, near the ends one symbol at a time with every
// check.
func (f *ownInflater) huff(to int) error {
	// The bit buffer is kept in locals here. A refill leaves 56 to 63 bits
	// (bits above the count are the next input bits, or zero). Only nb's
	// low six bits are the count (see huffTable).
	// Capacities cut to lengths: the word loads and stores below slice
	// with a capacity (see load64), checked against it.
	out, in := f.out[:len(f.out):len(f.out)], f.in[:len(f.in):len(f.in)]
	op, ip, bb, nb := f.op, f.ip, f.bits, f.nb
	// build makes at least 1<<pb entries of each; sub-tables, rarely
	// used, are read through f.
	litP, distP := (*[1 << litBits]uint32)(f.lit.t), (*[1 << distBits]uint32)(f.dist.t)
	var err error
	for op < to {
		if op < min(to, len(out)-fastOut) && ip <= len(in)-fastIn {
			f.op, f.ip, f.bits, f.nb = op, ip, bb, nb&63
			if err := f.fast(to); err != nil || f.state != infHuff {
				return err
			}
			op, ip, bb, nb = f.op, f.ip, f.bits, f.nb
		}
		if op >= to {
			break
		}
		// One symbol, every check made.
		if ip+8 <= len(in) {
			bb |= load64(in, ip) << (nb & 63)
			ip += 7 - int(nb>>3&7)
			nb |= 56
		} else {
			f.ip, f.bits, f.nb = ip, bb, nb&63
			f.refill()
			ip, bb, nb = f.ip, f.bits, f.nb
		}
		e := litP[bb&(1<<litBits-1)]
		if e&flagSub != 0 {
			e = f.lit.t[int(e>>16)+int(bb>>litBits&(1<<(e&63)-1))]
		}
		if e&flagLit != 0 {
			bb >>= e & 63
			nb -= uint(e)
			out[op] = byte(e >> 16)
			op++
			continue
		}
		length := int(e >> 16)
		if e&flagExtra != 0 {
			length += int(bb & (1<<(e&63) - 1) >> (e >> 8 & 15))
		} else if e&flagExc != 0 {
			if e&flagEOB != 0 {
				bb >>= e & 63
				nb -= uint(e)
				f.state = infHeader
			} else {
				err = errInflate
			}
			break
		}
		bb >>= e & 63
		nb -= uint(e)
		e = distP[bb&(1<<distBits-1)]
		if e&flagSub != 0 {
			e = f.dist.t[int(e>>16)+int(bb>>distBits&(1<<(e&63)-1))]
		}
		if e&flagExc != 0 {
			err = errInflate
			break
		}
		d := int(e>>16) + int(bb&(1<<(e&63)-1)>>(e>>8&15))
		bb >>= e & 63
		nb -= uint(e)
		if d > op || length > len(out)-op {
			err = errInflate
			break
		}
		if op+length+16 <= len(out) && d >= 16 {
			src := op - d
			for i := 0; i < length; i += 16 {
				copy16(out, op+i, src+i)
			}
		} else if op+length+16 <= len(out) {
			copyShort(out, op, d, length)
		} else {
			src := op - d
			for i := range length {
				out[op+i] = out[src+i]
			}
		}
		op += length
	}
	f.op, f.ip, f.bits, f.nb = op, ip, bb, nb&63
	return err
}

// fast decodes while op < to and fastOut bytes of out and fastIn of in are
// left, the block goes on and the data is right. It decodes a literal or a
// length in one table lookup, up to three literals, or literals and a
// match, per iteration. A refill
// leaves 56 to 63 bits: enough for three literals (15 bits each), or a
// length (15+5 bits) and a distance (15+13). The next symbol's entry is
// looked up before the refill that follows a symbol where the bits left
// allow it (after three literals: 11 bits, litBits), so that the refill
// is not in the chain of lookups.
func (f *ownInflater) fast(to int) error {
	// out is cut at to+fastOut, so that the loop's bounds are the slices'
	// lengths.
	end := min(to+fastOut, len(f.out))
	out, in := f.out[:end:end], f.in[:len(f.in):len(f.in)]
	op, ip, bb, nb := f.op, f.ip, f.bits, f.nb
	litP, distP := (*[1 << litBits]uint32)(f.lit.t), (*[1 << distBits]uint32)(f.dist.t)
	var err error
	// ip <= len(in)-fastIn here and at the top of each iteration: an
	// iteration refills twice at most, the second reading in[ip:ip+8]
	// with ip at least 9 bytes before the end of in.
	bb |= load64(in, ip) << (nb & 63)
	ip += 7 - int(nb>>3&7)
	nb |= 56
	e := litP[bb&(1<<litBits-1)]
	for op < len(out)-fastOut && ip <= len(in)-fastIn {
		// Here nb >= 56 and e is the entry for bb.
		if e&flagLit != 0 {
			bb >>= e & 63
			nb -= uint(e)
			out[op] = byte(e >> 16)
			op++
			e = litP[bb&(1<<litBits-1)]
			if e&flagLit != 0 {
				bb >>= e & 63
				nb -= uint(e)
				out[op] = byte(e >> 16)
				op++
				e = litP[bb&(1<<litBits-1)]
				if e&flagLit != 0 {
					bb >>= e & 63
					nb -= uint(e)
					out[op] = byte(e >> 16)
					op++
					// 11 bits at least are left: enough for a
					// primary lookup (a sub-table's is made after
					// the refill).
					e = litP[bb&(1<<litBits-1)]
					bb |= load64(in, ip) << (nb & 63)
					ip += 7 - int(nb>>3&7)
					nb |= 56
					continue
				}
			}
			// A match needs up to 48 bits.
			bb |= load64(in, ip) << (nb & 63)
			ip += 7 - int(nb>>3&7)
			nb |= 56
		}
		length := int(e >> 16)
		if e&flagExc != 0 {
			if e&flagSub != 0 {
				e = f.lit.t[int(e>>16)+int(bb>>litBits&(1<<(e&63)-1))]
				if e&flagLit != 0 {
					bb >>= e & 63
					nb -= uint(e)
					out[op] = byte(e >> 16)
					op++
					bb |= load64(in, ip) << (nb & 63)
					ip += 7 - int(nb>>3&7)
					nb |= 56
					e = litP[bb&(1<<litBits-1)]
					continue
				}
				length = int(e >> 16)
			}
			if e&flagExtra != 0 {
				length += int(bb & (1<<(e&63) - 1) >> (e >> 8 & 15))
			} else if e&flagExc != 0 {
				if e&flagEOB != 0 {
					bb >>= e & 63
					nb -= uint(e)
					f.state = infHeader
				} else {
					err = errInflate
				}
				break
			}
		}
		bb >>= e & 63
		nb -= uint(e)
		e = distP[bb&(1<<distBits-1)]
		if e&flagExc != 0 {
			if e&flagSub != 0 {
				e = f.dist.t[int(e>>16)+int(bb>>distBits&(1<<(e&63)-1))]
			}
			if e&flagExc != 0 {
				err = errInflate
				break
			}
		}
		d := int(e>>16) + int(bb&(1<<(e&63)-1)>>(e>>8&15))
		bb >>= e & 63
		nb -= uint(e)
		if d > op {
			err = errInflate
			break
		}
		bb |= load64(in, ip) << (nb & 63)
		ip += 7 - int(nb>>3&7)
		nb |= 56
		e = litP[bb&(1<<litBits-1)]
		if src := op - d; d >= 16 {
			// Each 16 bytes are read whole before they are written:
			// they were all written before.
			copy16(out, op, src)
			for i := 16; i < length; i += 16 {
				copy16(out, op+i, src+i)
			}
		} else {
			copyShort(out, op, d, length)
		}
		op += length
	}
	f.op, f.ip, f.bits, f.nb = op, ip, bb, nb&63
	return err
}

// copyShort copies length bytes from d back (1 <= d < 16, d <= op) to
// out[op:], by words: it may write up to 7 bytes past op+length, which
// needs op+length+7 <= len(out); those bytes are overwritten by what
// follows.
func copyShort(out []byte, op, d, length int) {
	out = out[:len(out):len(out)]
	src := op - d
	switch {
	case d >= 8:
		for i := 0; i < length; i += 8 {
			store64(out, op+i, load64(out, src+i))
		}
	case d == 1:
		v := uint64(out[src]) * 0x0101010101010101
		for i := 0; i < length; i += 8 {
			store64(out, op+i, v)
		}
	default:
		// d bytes at a time: the first d of the 8 bytes read are
		// right (written before), the rest are rewritten next.
		for i := 0; i < length; i += d {
			store64(out, op+i, load64(out, src+i))
		}
	}
}

// load64, store64 and copy16 read and write words at b[i:]. They slice b
// with a capacity, b[i:i+n:i+n], which the compiler checks against
// cap(b), without the pointer arithmetic a plain b[i:] needs: b must have
// its capacity cut to its length.
func load64(b []byte, i int) uint64 { return ebin.LittleEndian.Uint64(b[i : i+8 : i+8]) }

func store64(b []byte, i int, v uint64) { ebin.LittleEndian.PutUint64(b[i:i+8:i+8], v) }

func copy16(b []byte, dst, src int) {
	*(*[16]byte)(b[dst : dst+16 : dst+16]) = *(*[16]byte)(b[src : src+16 : src+16])
}
