package dwarfread

import (
	"syscall"
	"unsafe"
)

// hugeAdviceTaken reports whether this kernel takes MADV_HUGEPAGE on an
// aligned region. One without transparent huge pages, or a sandbox that
// refuses the advice, makes bigBuffer fall back to a plain slice, which
// need not be aligned.
func hugeAdviceTaken() bool {
	raw := make([]byte, 2*hugePage)
	off := hugePage - int(uintptr(unsafe.Pointer(&raw[0]))&(hugePage-1))
	if off == hugePage {
		off = 0
	}
	return syscall.Madvise(raw[off:off+hugePage], madvHugepage) == nil
}
