package pprofextended

import "google.golang.org/protobuf/encoding/protowire"

// indexMarkEvery is how many location_indices lie between two places an
// indexList keeps.
const indexMarkEvery = 64

// indexList reads location_indices where they lie in the input, varints
// in one or more pieces (a packed field, or one number a field), rather
// than as an array of their own: a profile's location_indices are about
// as many as its stacks' frames, which the model makes anyway. It keeps
// the place of every indexMarkEvery-th number, 16 bytes for 64 numbers,
// and reads a slice from the nearest one before it.
type indexList struct {
	data  []byte
	ws    []wireIndices
	n     int         // the numbers in all
	marks []indexMark // the place of number k*indexMarkEvery
}

type indexMark struct {
	piece int // in ws
	off   int // from the piece's start, which may lie 4 GiB or more before it
}

// newIndexList reads the numbers of the pieces ws of data once: each goes
// to check, in order (which stops the reading by returning false), and
// every indexMarkEvery-th one's place is kept. n is how many there are.
func newIndexList(data []byte, ws []wireIndices, n int, check func(i int, x int64) bool) *indexList {
	l := &indexList{data: data, ws: ws, marks: make([]indexMark, 0, (n+indexMarkEvery-1)/indexMarkEvery)}
	for p, w := range ws {
		b := data[w.start:w.end]
		for off := 0; off < len(b); {
			x, k := protowire.ConsumeVarint(b[off:]) // checked by takeIndices
			if l.n%indexMarkEvery == 0 {
				l.marks = append(l.marks, indexMark{piece: p, off: off})
			}
			if !check(l.n, int64(x)) {
				return l
			}
			l.n++
			off += k
		}
	}
	return l
}

// appendRange appends numbers start to start+length (within the list) to
// dst, as location indices.
func (l *indexList) appendRange(dst []int32, start, length uint64) []int32 {
	if length == 0 {
		return dst
	}
	m := l.marks[start/indexMarkEvery]
	p, off := m.piece, m.off
	skip := start % indexMarkEvery
	for got := uint64(0); got < length; {
		b := l.data[l.ws[p].start:l.ws[p].end]
		for off < len(b) && got < length {
			x, k := protowire.ConsumeVarint(b[off:])
			off += k
			if skip > 0 {
				skip--
				continue
			}
			dst = append(dst, int32(x))
			got++
		}
		p, off = p+1, 0
	}
	return dst
}
