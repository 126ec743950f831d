// Package prefault maps in, a few system calls at a time, memory that a
// run of pprofx is about to touch page by page: the executable's code and
// the Go heap's first chunk.
//
// Every first touch of a 4 KiB page is a page fault. On the virtual
// machines pprofx is often run on (CI runners, cloud VMs) one costs
// 10-15 µs, and a short run of pprofx takes 600-3,000 of them: its 8 MB of
// code, touched here and there, and the heap it grows into. Asked for in
// bulk (madvise MADV_POPULATE_READ / MADV_POPULATE_WRITE, Linux 5.14 and
// later), the same pages cost under 1 µs each. The work is done on a
// goroutine started while the packages initialize, so that it runs on
// another processor while the main goroutine goes on.
//
// Populating changes no byte: a page already present is left as it is,
// and one that is not is mapped as if it had been touched (the heap's
// fresh pages are zero either way). What it costs is resident memory: the
// whole code segment (shared with the page cache) and the rest of the
// heap's first chunk, about 10 MB more than a small run would have touched.
//
// PPROFX_PREFAULT=0 turns it off. Importing the package is what turns it
// on: cmd/pprofx does; tests and other programs do not.
package prefault

import "syscall"

// disabled says whether PPROFX_PREFAULT turns the work off.
func disabled() bool {
	v, _ := syscall.Getenv("PPROFX_PREFAULT")
	return v == "0" || v == "off" || v == "false"
}
