//go:build unix

package formats

import "syscall"

// newChunk returns room for n bytes of input, outside the Go heap when it
// can (mapped), so that freeChunk gives it back to the system at once:
// joining the chunks of a large input read from a pipe then takes the
// input's size once (plus a chunk), not twice, as Go memory would until
// the next collection.
func newChunk(n int) (b []byte, mapped bool) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]byte, 0, n), false
	}
	mappedBytes.Add(int64(n))
	return b[:0], true
}

// freeChunk gives back a chunk newChunk mapped.
func freeChunk(b []byte) { _ = syscall.Munmap(b[:cap(b)]) }
