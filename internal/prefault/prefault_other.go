//go:build !linux

package prefault

// Run does nothing where madvise cannot populate memory.
func Run() {}
