package output

import "os"

// NewFileMode is the mode an output file at path gets: the mode of the file
// it replaces, or else what os.Create would give a new file (0666 less the
// process's umask, 0644 under the usual umask 022). Temporary files are
// created 0600 and set to this before they are renamed into place.
func NewFileMode(path string) os.FileMode {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		return st.Mode().Perm()
	}
	return 0o666 &^ umask
}
