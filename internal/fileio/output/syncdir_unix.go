//go:build unix

package output

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("opening its folder to make the rename durable: %v", unwrapPath(err))
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		// Some file systems cannot fsync a folder (EINVAL): there, the
		// rename is as durable as they make it.
		return fmt.Errorf("making the rename durable (fsync of its folder): %v", unwrapPath(err))
	}
	return nil
}
