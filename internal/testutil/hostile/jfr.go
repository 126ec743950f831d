package hostile

import (
	"fmt"
	"os"
	"path/filepath"
)

// moduleFile reads a file of this module by its path from the module's
// root, found above the working directory (the crafted JFR recording is
// made from the committed testdata/jfr/cpu.jfr with jfr.RepeatEvent).
func moduleFile(rel string) ([]byte, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return os.ReadFile(filepath.Join(dir, rel))
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil, fmt.Errorf("%s: no go.mod above the working directory", rel)
		}
		dir = up
	}
}
