//go:build !unix

package output

// syncDir: a folder cannot be opened for fsync on Windows; NTFS journals
// the rename.
func syncDir(dir string) error { return nil }
