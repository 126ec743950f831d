//go:build !unix

package output

import "syscall"

// raise does nothing where a process cannot send itself a signal
// (Windows): HandleSignals then exits with 128 + its number.
func raise(s syscall.Signal) {}
