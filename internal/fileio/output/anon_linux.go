package output

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// createAnon opens a file with no name in dir (O_TMPFILE): killed or
// crashed before it is linked, the process leaves nothing behind. It
// fails where the file system or kernel has no O_TMPFILE, or where the
// file could not be linked later (no /proc to name it by).
func createAnon(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(procFD(fd)); err != nil {
		unix.Close(fd)
		return nil, errors.New("no /proc/self/fd to link the file by")
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// linkAnon gives the file createAnon opened a name, which must not exist.
func linkAnon(f *os.File, name string) error {
	err := unix.Linkat(unix.AT_FDCWD, procFD(int(f.Fd())), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
	if err != nil {
		return &os.LinkError{Op: "link", Old: procFD(int(f.Fd())), New: name, Err: err}
	}
	return nil
}

func procFD(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
