package dwarfread

import (
	"syscall"
	"unsafe"
)

// madvHugepage is MADV_HUGEPAGE, the same number on every Linux
// architecture Go supports.
const madvHugepage = 14

func hugeBuffer(n int) []byte {
	span := (n + hugePage - 1) &^ (hugePage - 1)
	if span < n { // overflow
		return make([]byte, n)
	}
	raw := make([]byte, span+hugePage)
	off := hugePage - int(uintptr(unsafe.Pointer(&raw[0]))&(hugePage-1))
	if off == hugePage {
		off = 0
	}
	// The advice covers whole huge pages inside raw: from the aligned start
	// to the end of the huge page holding the buffer's last byte.
	if err := syscall.Madvise(raw[off:off+span], madvHugepage); err != nil {
		return raw[:n:n]
	}
	return raw[off : off+n : off+n]
}
