//go:build unix

package output

import (
	"os"
	"syscall"
)

// umask is the process's file mode creation mask, read once at start-up
// (reading it means setting it; nothing else creates files then).
var umask = func() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m) & os.ModePerm
}()
