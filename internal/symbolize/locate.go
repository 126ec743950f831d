package symbolize

import (
	"bytes"
	"debug/elf"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pprofx/pprofx/internal/symbolize/dwarfread"
)

// DefaultDebugRoot is where distributions install separate debug files,
// by build id (.build-id/xx/rest.debug) and by path.
const DefaultDebugRoot = "/usr/lib/debug"

// candidates lists the files that may be a mapping's binary, best first:
// under each symbols directory by its path and by its base name (and, as
// pprof's PPROF_BINARY_PATH does, DIR/BUILDID/NAME and DIR/BUILDID), then
// the path itself, then by build id under each directory's .build-id and
// the debug root's.
func (s *Symbolizer) candidates(file, buildID string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	base := filepath.Base(file)
	for _, d := range s.dirs {
		if buildID != "" {
			add(filepath.Join(d, buildID, base))
			add(filepath.Join(d, buildID))
		}
		if filepath.IsAbs(file) {
			add(filepath.Join(d, file))
		}
		add(filepath.Join(d, base))
	}
	if filepath.IsAbs(file) && !s.noOriginal {
		add(file)
	}
	if buildID != "" {
		for _, d := range append(append([]string(nil), s.dirs...), s.debugRoots...) {
			for _, p := range buildIDPaths(d, buildID) {
				add(p)
			}
		}
	}
	return out
}

// buildIDPaths are the places under dir a file with this build id is kept
// by the .build-id convention: the binary (xx/rest) and its debug file
// (xx/rest.debug).
func buildIDPaths(dir, id string) []string {
	if len(id) < 3 || strings.ContainsAny(id, `/\.`) {
		return nil
	}
	p := filepath.Join(dir, ".build-id", id[:2], id[2:])
	return []string{p, p + ".debug"}
}

// findDebug finds the separate debug file of a binary that has no DWARF
// of its own: by build id under the symbols directories' and the debug
// root's .build-id, then by .gnu_debuglink beside the binary, in its
// .debug directory, under the debug root by the binary's directory, and
// in each symbols directory. A file is taken only when its build id (or
// the link's CRC) matches.
func (s *Symbolizer) findDebug(b *binary) *binary {
	if dwarfread.Has(b.ef) {
		return nil
	}
	if b.buildID != "" {
		for _, d := range append(append([]string(nil), s.dirs...), s.debugRoots...) {
			p := buildIDPaths(d, b.buildID)
			if len(p) == 0 {
				continue
			}
			if db, err := s.open(p[1]); err == nil && db.buildID == b.buildID && dwarfread.Has(db.ef) {
				return db
			}
		}
	}
	name, crc, ok := debugLink(b.ef)
	if !ok {
		return nil
	}
	dir := filepath.Dir(b.path)
	absDir, _ := filepath.Abs(dir)
	paths := []string{filepath.Join(dir, name), filepath.Join(dir, ".debug", name)}
	for _, r := range s.debugRoots {
		paths = append(paths, filepath.Join(r, absDir, name))
	}
	for _, d := range s.dirs {
		paths = append(paths, filepath.Join(d, name))
	}
	for _, p := range paths {
		if p == b.path {
			continue
		}
		db, err := s.open(p)
		if err != nil || !dwarfread.Has(db.ef) {
			continue
		}
		if b.buildID != "" && db.buildID != "" && db.buildID != b.buildID {
			s.warnf("%s: ignoring debug file %s: build id %s, not the binary's %s", b.path, p, db.buildID, b.buildID)
			continue
		}
		if c, err := fileCRC(db.file); err != nil || c != crc {
			s.warnf("%s: ignoring debug file %s: its CRC does not match the binary's .gnu_debuglink", b.path, p)
			continue
		}
		return db
	}
	return nil
}

// debugLink reads the .gnu_debuglink section: a file name, padding to 4
// bytes, and the CRC-32 of the debug file.
func debugLink(ef *elf.File) (name string, crc uint32, ok bool) {
	s := ef.Section(".gnu_debuglink")
	if s == nil || s.Type == elf.SHT_NOBITS || s.Size > 4096 {
		return "", 0, false
	}
	d, err := s.Data()
	if err != nil {
		return "", 0, false
	}
	i := bytes.IndexByte(d, 0)
	if i <= 0 {
		return "", 0, false
	}
	off := (i + 4) &^ 3
	if off+4 > len(d) {
		return "", 0, false
	}
	name = string(d[:i])
	if strings.ContainsRune(name, '/') {
		return "", 0, false
	}
	return name, ef.ByteOrder.Uint32(d[off:]), true
}

func fileCRC(f *os.File) (uint32, error) {
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, 1<<62)); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}
