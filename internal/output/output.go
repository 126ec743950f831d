// Package output writes results atomically: to a temporary file in the
// destination's folder, renamed over the destination only once everything
// was written. A failed run leaves an existing file untouched and no
// temporary file behind. "-" is standard output.
package output

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write calls fn with a writer for path and commits what it wrote: to
// stdout when path is "-", else atomically to the file.
func Write(path string, stdout io.Writer, fn func(w io.Writer) error) error {
	if path == "-" {
		bw := bufio.NewWriterSize(stdout, 1<<16)
		if err := fn(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("cannot create a temporary file beside it: %v", unwrapPath(err))
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing: %v", unwrapPath(err))
	}
	if err := tmp.Chmod(NewFileMode(path)); err != nil {
		return fmt.Errorf("writing: %v", unwrapPath(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing: %v", unwrapPath(err))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot rename the temporary file to it: %v", unwrapPath(err))
	}
	ok = true
	return nil
}

// unwrapPath strips the file names of os errors: the caller names the
// output, and the temporary file's name means nothing to the user.
func unwrapPath(err error) error {
	switch e := err.(type) {
	case *os.PathError:
		return e.Err
	case *os.LinkError:
		return e.Err
	}
	return err
}
