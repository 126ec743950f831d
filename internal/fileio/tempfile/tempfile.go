// Package tempfile makes the scratch files that streamed conversions spill
// to (sorted stacks, spooled tables): files with no name.
//
// A file is created in the folder asked for and its name removed at once,
// so it lives as long as it is open and nothing is left behind however the
// process ends: an error, SIGINT or SIGTERM (which output's signal handler
// would otherwise have to know of), a crash or kill -9. Where the name of
// an open file cannot be removed (Windows), Close removes it.
package tempfile

import "os"

// File is an open scratch file.
type File struct {
	*os.File
	name string // still to remove on Close, where it could not be at once
}

// New creates a scratch file in dir (os.TempDir() when "") whose name
// matches pattern, as os.CreateTemp does, and removes the name.
func New(dir, pattern string) (*File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	t := &File{File: f}
	if os.Remove(f.Name()) != nil {
		t.name = f.Name()
	}
	return t, nil
}

// Close closes the file, which frees its space.
func (f *File) Close() error {
	err := f.File.Close()
	if f.name != "" {
		if rerr := os.Remove(f.name); err == nil {
			err = rerr
		}
		f.name = ""
	}
	return err
}
