package dwarfread

// bigMin is the size from which an arena reserves one buffer for the
// sections of a binary rather than a slice each.
const bigMin = 256 << 10

// bigBuffer returns n zero bytes for a buffer that will be written through
// (an inflated DWARF section, a section's compressed bytes).
func bigBuffer(n int) []byte { return make([]byte, n) }

// arena hands out zeroed buffers from one bigBuffer, so that the sections
// of one binary are one allocation. A buffer that does not fit is a slice
// of its own.
type arena struct {
	buf []byte
}

// newArena reserves n bytes; below bigMin it reserves nothing.
func newArena(n uint64) *arena {
	if n < bigMin || n > maxSectionSize {
		return &arena{}
	}
	return &arena{buf: bigBuffer(int(n))}
}

func (a *arena) take(n int) []byte {
	if n > len(a.buf) {
		return make([]byte, n)
	}
	b := a.buf[:n:n]
	a.buf = a.buf[n:]
	return b
}
