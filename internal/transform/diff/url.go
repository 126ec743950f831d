package diff

import (
	"net/url"
	"path/filepath"
)

// isAbsURL: a mapping file that url.Parse reads as an absolute URL, and
// that names no Windows volume (pprof's test).
func isAbsURL(file string) bool {
	if filepath.VolumeName(file) != "" {
		return false
	}
	u, err := url.Parse(file)
	return err == nil && u.IsAbs()
}
