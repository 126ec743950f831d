// Package prefault maps in, a few system calls at a time, memory that a
// run of pprofx is about to touch page by page: the executable's code, the
// Go heap's first chunk, and then, as the heap grows, the 4 MiB above the
// highest page it has touched.
//
// Every first touch of a 4 KiB page is a page fault. On the virtual
// machines pprofx is often run on (CI runners, cloud VMs) one costs
// 10-15 µs, and a short run of pprofx takes 600-3,000 of them: its 8 MB of
// code, touched here and there, and the heap it grows into. Asked for in
// bulk (madvise MADV_POPULATE_READ / MADV_POPULATE_WRITE, Linux 5.14 and
// later), the same pages cost under 1 µs each. The work is done on a
// goroutine started while the packages initialize, so that it runs on
// another processor while the main goroutine goes on; it then looks at the
// heap every 0.25-4 ms (a read of /proc/self/statm and a mincore call),
// until it has populated 64 MiB.
//
// Populating changes no byte: a page already present is left as it is,
// and one that is not is mapped as if it had been touched (the heap's
// fresh pages are zero either way). What it costs is resident memory: the
// whole code segment (shared with the page cache), the rest of the heap's
// first chunk, and up to 4 MiB above the heap's highest touched page: a
// small run's peak RSS grows by 3-6 MB (symbolizing the fixture profiles).
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
