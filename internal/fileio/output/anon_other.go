//go:build !linux

package output

import (
	"errors"
	"os"
)

// createAnon fails: only Linux has files with no name that can be named
// later (O_TMPFILE).
func createAnon(dir string) (*os.File, error) { return nil, errors.ErrUnsupported }

func linkAnon(f *os.File, name string) error { return errors.ErrUnsupported }
