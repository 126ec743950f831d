package bundle

import (
	"math"
	"unsafe"
)

// strTable is a table of strings kept as their bytes back to back and
// the offset each ends at: 4 bytes a string beside its bytes, where a
// []string takes 16. String 0 is "". The bytes are never written once
// added, so a string at returns stays valid as the table grows.
type strTable struct {
	b   []byte
	end []uint32 // string i is b[end[i-1]:end[i]], from 0 for i == 0
}

// maxStringBytes is the most bytes a table's strings take together.
const maxStringBytes = math.MaxUint32

func newStrTable() strTable { return strTable{end: []uint32{0}} }

func (t *strTable) len() int { return len(t.end) }

// size returns the bytes the strings take together.
func (t *strTable) size() int { return len(t.b) }

// at returns string i.
func (t *strTable) at(i uint32) string {
	start := uint32(0)
	if i > 0 {
		start = t.end[i-1]
	}
	if start == t.end[i] {
		return ""
	}
	return unsafe.String(&t.b[start], int(t.end[i]-start))
}

// add appends s (copied) and returns its index. The caller checks that
// the table stays within maxStringBytes.
func (t *strTable) add(s string) uint32 {
	t.b = append(t.b, s...)
	t.end = append(t.end, uint32(len(t.b)))
	return uint32(len(t.end) - 1)
}
