//go:build !linux

package symbolize

// hugeAdviceTaken: bigBuffer asks for huge pages on Linux only.
func hugeAdviceTaken() bool { return false }
