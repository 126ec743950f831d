package output

import (
	"fmt"
	"os"
	"path/filepath"
)

// Durable outputs: what Commit renames into place was written to disk
// first (fsync of the temporary file), and the rename itself is made
// durable (fsync of the folder), as google/renameio does: after a power
// cut the destination holds either its old content or the whole new one,
// never an empty or partial file where pprofx said it succeeded. Standard
// output, devices, FIFOs and sockets are written as they are, with
// neither.
//
// PPROFX_NO_FSYNC=1 leaves both out, for outputs that need not survive a
// power cut (a scratch folder, tmpfs) and the measurement of what they
// cost (scripts/bench/fsync-unpack.sh).

// syncOff reports whether PPROFX_NO_FSYNC turned the syncs off.
func syncOff() bool { return os.Getenv("PPROFX_NO_FSYNC") == "1" }

// SyncFile writes f's data to disk (fsync).
func SyncFile(f *os.File) error {
	if syncOff() {
		return nil
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing to disk (fsync): %v", unwrapPath(err))
	}
	return nil
}

// SyncDirOf makes the renames into the folder of path durable (fsync of
// the folder, where the system has one: not on Windows).
func SyncDirOf(path string) error {
	if syncOff() {
		return nil
	}
	return syncDir(filepath.Dir(path))
}
