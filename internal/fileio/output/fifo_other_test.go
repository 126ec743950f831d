//go:build !unix

package output

import "errors"

// mkfifo fails where there are no named pipes in the file system: the
// tests that need one are skipped.
func mkfifo(string) error { return errors.New("no FIFOs on this system") }
