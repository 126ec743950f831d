// Package output writes results atomically: to a temporary file in the
// destination's folder, renamed over the destination only once everything
// was written. A failed run leaves an existing file untouched and no
// temporary file behind, and so does SIGINT, SIGTERM or SIGHUP once
// HandleSignals was called; on Linux, so does SIGKILL (the OOM killer's)
// while the output is written, since the file has no name until then
// (Temp). "-" and /dev/stdout are standard output.
//
// Only a regular file (or a name not taken) is replaced. A character
// device, FIFO or socket (/dev/null, /dev/full, a named pipe) is opened
// and written directly: replacing it would break it for everyone else. A
// symbolic link is followed and its target replaced, so the link stays a
// link. What is renamed into place is on disk first, and so is the rename
// (durable.go).
package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// IsStdout reports whether path names standard output: "-" or /dev/stdout.
func IsStdout(path string) bool { return path == "-" || path == "/dev/stdout" }

// Write calls fn with a writer for path and commits what it wrote: to
// stdout when IsStdout(path), directly to a device, FIFO or socket, else
// atomically to the file (the target of a symbolic link).
func Write(path string, stdout io.Writer, fn func(w io.Writer) error) error {
	if IsStdout(path) {
		return writeTo(stdout, fn)
	}
	target, err := Resolve(path)
	if err != nil {
		return err
	}
	if st, err := os.Stat(target); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return fmt.Errorf("is a directory")
		}
		return writeSpecial(target, fn)
	}
	tmp, err := CreateTemp(target)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Discard()
		}
	}()
	if err := writeTo(tmp, fn); err != nil {
		return err
	}
	if err := tmp.Commit(); err != nil {
		return err
	}
	ok = true
	return nil
}

func writeTo(w io.Writer, fn func(w io.Writer) error) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing: %v", unwrapPath(err))
	}
	return nil
}

// writeSpecial writes to a device, FIFO or socket as it is.
func writeSpecial(path string, fn func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot open: %v", unwrapPath(err))
	}
	if err := writeTo(f, fn); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing: %v", unwrapPath(err))
	}
	return nil
}

// Resolve follows symbolic links from path to the name a write must
// replace: path itself when it is no link, else the final target (which
// may not exist yet: a dangling link gets its target created).
func Resolve(path string) (string, error) {
	for hops := 0; ; hops++ {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		if hops >= 40 {
			return "", fmt.Errorf("too many levels of symbolic links")
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("cannot read the link: %v", unwrapPath(err))
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
}

// Temp is the temporary file that will replace a target. On Linux it has
// no name while it is written (O_TMPFILE), so that a process killed
// meanwhile (kill -9, the OOM killer) leaves nothing behind; it gets one
// beside its target (Link) once it is complete, and is then renamed over
// the target. Where files cannot have no name (other systems, a file
// system without O_TMPFILE, no /proc), it is created with its name,
// ".NAME.*.tmp", which a signal handled by HandleSignals removes.
type Temp struct {
	*os.File
	target string
	name   string // its name, "" while it has none
}

// CreateTemp creates the temporary file that will replace target, in
// target's folder.
func CreateTemp(target string) (*Temp, error) {
	dir := filepath.Dir(target)
	if f, err := openAnon(dir); err == nil {
		return &Temp{File: f, target: target}, nil
	}
	// The registry's lock is held from before the file exists until it
	// is registered: a signal that comes in between would otherwise find
	// the file and not know it (the signal handler keeps the lock to the
	// end, so no file is created after it ran).
	waitSignals()
	tempMu.Lock()
	defer tempMu.Unlock()
	f, err := os.CreateTemp(dir, tempPattern(target))
	if err != nil {
		return nil, fmt.Errorf("cannot create a temporary file beside it: %v", unwrapPath(err))
	}
	temps[f.Name()] = true
	return &Temp{File: f, target: target, name: f.Name()}, nil
}

// openAnon is createAnon, or a failure in the tests of the named file.
var openAnon = createAnon

func tempPattern(target string) string { return "." + filepath.Base(target) + ".*.tmp" }

// Name returns the temporary file's name, "" while it has none.
func (t *Temp) Name() string { return t.name }

// Link gives the temporary file its name beside its target, if it has
// none yet, and registers it for removal on a signal.
func (t *Temp) Link() error {
	if t.name != "" {
		return nil
	}
	waitSignals()
	tempMu.Lock()
	defer tempMu.Unlock()
	prefix, suffix, _ := strings.Cut(tempPattern(t.target), "*")
	dir := filepath.Dir(t.target)
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		err := linkAnon(t.File, name)
		if err == nil {
			t.name = name
			temps[name] = true
			return nil
		}
		if !errors.Is(err, fs.ErrExist) || try == 10000 {
			return fmt.Errorf("cannot name the temporary file beside it: %v", unwrapPath(err))
		}
	}
}

// Discard closes the temporary file and removes it.
func (t *Temp) Discard() {
	t.File.Close()
	if t.name != "" {
		RemoveTemp(t.name)
	}
}

// Commit writes the temporary file to disk, names it, closes it and
// renames it over its target, keeping the target's permissions when it
// exists, then makes the rename durable (see SyncFile and SyncDirOf).
func (t *Temp) Commit() error {
	// The mode a new file gets (0666 less the umask), or the one target has.
	if err := t.Chmod(NewFileMode(t.target)); err != nil {
		return fmt.Errorf("writing: %v", unwrapPath(err))
	}
	if err := SyncFile(t.File); err != nil {
		return err
	}
	if err := t.Link(); err != nil {
		return err
	}
	if err := t.File.Close(); err != nil {
		return fmt.Errorf("writing: %v", unwrapPath(err))
	}
	if err := Rename(t.name, t.target); err != nil {
		return err
	}
	return SyncDirOf(t.target)
}

// Rename moves a temporary file over target and forgets it. The caller
// synced tmp before (SyncFile) and syncs target's folder after
// (SyncDirOf).
func Rename(tmp, target string) error {
	if err := os.Rename(tmp, target); err != nil {
		return fmt.Errorf("cannot rename the temporary file to it: %v", unwrapPath(err))
	}
	untrack(tmp)
	return nil
}

// RemoveTemp removes a temporary file and forgets it.
func RemoveTemp(name string) {
	os.Remove(name)
	untrack(name)
}

// CheckReplaceable reports why target could not be replaced by a rename
// (it is a directory, or a device, FIFO or socket that must be written
// directly), or nil when it can.
func CheckReplaceable(target string) error {
	st, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return unwrapPath(err)
	case st.IsDir():
		return fmt.Errorf("is a directory")
	case !st.Mode().IsRegular():
		return fmt.Errorf("is not a regular file (%v)", st.Mode().Type())
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
