package cli

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestEveryFixtureEveryOutput runs every file under testdata that pprofx
// reads through every output format, top and merge: each run ends with
// exit 0 or with one line of error and exit 1, never a panic. A reader
// added with its fixtures is covered here without further wiring.
func TestEveryFixtureEveryOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every fixture through every output")
	}
	var files []string
	err := filepath.WalkDir("../../testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "fuzz", "src", "bin", "ref", "corpus":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".md", ".sh", ".go", ".c", ".cc", ".java", ".js", ".ts", ".jfc", ".golden", ".py", ".pl":
			return nil
		}
		if info, err := d.Info(); err == nil && info.Size() <= 4<<20 {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	dir := t.TempDir()
	read := 0
	for _, f := range files {
		s := newStreams(nil)
		if code := Main([]string{"inspect", f}, s.ios); code != ExitOK {
			checkOneLine(t, []string{"inspect", f}, code, s.err.String())
			continue
		}
		read++
		for _, args := range [][]string{
			{"convert", f, "-o", filepath.Join(dir, "x.pb.gz"), "--index", "0"},
			{"convert", f, "-o", filepath.Join(dir, "x.otlp")},
			{"convert", f, "-o", filepath.Join(dir, "x.otlp.json")},
			{"convert", f, "-o", filepath.Join(dir, "x.ppx"), "--to", "pprofextended"},
			{"convert", f, "-o", filepath.Join(dir, "x.folded"), "--index", "0"},
			{"convert", f, "-o", filepath.Join(dir, "x.speedscope.json"), "--index", "0"},
			{"convert", f, "-o", filepath.Join(dir, "x.html"), "--index", "0"},
			{"top", f, "--index", "0", "-n", "3"},
			{"merge", f, "-o", filepath.Join(dir, "x.ppxb")},
		} {
			s := newStreams(nil)
			code := Main(args, s.ios)
			checkOneLine(t, args, code, s.err.String())
		}
	}
	t.Logf("%d of %d fixture files read, each through every output", read, len(files))
	if read < 100 {
		t.Errorf("only %d of %d fixture files read", read, len(files))
	}
}

// checkOneLine fails unless a run ended with exit 0, or with exit 1 and
// an error line naming what went wrong (warnings may precede it).
func checkOneLine(t *testing.T, args []string, code int, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("pprofx %s: %s", strings.Join(args, " "), stderr)
		return
	}
	if code != ExitOK && code != ExitFail && code != ExitUsage {
		t.Errorf("pprofx %s: exit %d; stderr %q", strings.Join(args, " "), code, stderr)
	}
}
