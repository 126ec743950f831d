package dwarfread

// hugePage is the size of a transparent huge page on the machines pprofx
// asks for them on (x86-64, and arm64 with 4 KB pages).
const hugePage = 2 << 20

// bigMin is the size from which bigBuffer asks for huge pages: above it,
// zeroing one huge page costs less than the page faults it saves.
const bigMin = 256 << 10

// bigBuffer returns n zero bytes for a buffer that will be written through
// (an inflated DWARF section, a section's compressed bytes). Where the
// system gives transparent huge pages on request (Linux's "madvise" mode,
// the usual default), a buffer of bigMin bytes or more is laid out on huge
// page boundaries and asked for them: one page fault per 2 MB instead of
// one per 4 KB. A page fault is expensive on a virtual machine (about
// 17 µs each on the one the benchmarks ran on, where reading libc's debug
// file made some 2,000 of them); pages never written still cost no memory.
// Smaller buffers, other systems and a refusal get a plain slice.
func bigBuffer(n int) []byte {
	if n < bigMin {
		return make([]byte, n)
	}
	return hugeBuffer(n)
}

// arena hands out zeroed buffers from one bigBuffer, so that the sections
// of one binary share its huge pages and its slack (up to two huge pages,
// for the alignment and the last page, once for all of them rather than
// once per buffer). A buffer that does not fit is a plain slice.
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
