package dwarfread

import (
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// UseInflater makes lazy sections use the inflater name (see inflaters)
// until restore is called.
func UseInflater(tb testing.TB, name string) (restore func()) {
	tb.Helper()
	f, ok := inflaters[name]
	if !ok {
		tb.Fatalf("no inflater %q", name)
	}
	old := newInflater
	newInflater = f
	return func() { newInflater = old }
}

// InflaterNames are the inflaters' names, in a fixed order.
func InflaterNames() []string {
	var names []string
	for name := range inflaters {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// DebugFileOf returns the path of the separate debug file of the binary
// at path, by its GNU build id: /usr/lib/debug/.build-id/xx/rest.debug.
func DebugFileOf(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return "", fmt.Errorf("%s: no build id", path)
	}
	d, err := s.Data()
	if err != nil || len(d) < 18 {
		return "", errors.New(path + ": the build id note does not read")
	}
	id := hex.EncodeToString(d[16:]) // 12-byte header, "GNU\0"
	dbg := filepath.Join("/usr/lib/debug/.build-id", id[:2], id[2:]+".debug")
	if _, err := os.Stat(dbg); err != nil {
		return "", fmt.Errorf("no debug file for %s: %v", path, err)
	}
	return dbg, nil
}
