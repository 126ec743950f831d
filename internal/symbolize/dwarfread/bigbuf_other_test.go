//go:build !linux

package dwarfread

// hugeAdviceTaken: bigBuffer asks for huge pages on Linux only.
func hugeAdviceTaken() bool { return false }
