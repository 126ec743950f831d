//go:build unix

package output

import (
	"os"
	"syscall"
)

// raise sends s to the process itself (its handler reset), so that it
// ends by that signal.
func raise(s syscall.Signal) { syscall.Kill(os.Getpid(), s) }
