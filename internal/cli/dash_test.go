package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDashIsNeverAFile: "-o -" is standard output for every command that
// writes, and "--all -o -" is refused; none of them creates a file or
// folder called "-" in the working directory.
func TestDashIsNeverAFile(t *testing.T) {
	work := t.TempDir()
	in, err := filepath.Abs(cpuFixture)
	if err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(t.TempDir(), "b.ppxb")
	if s := newStreams(nil); Main([]string{"merge", in, "-o", b}, s.ios) != ExitOK {
		t.Fatalf("merge: %s", s.err.String())
	}
	t.Chdir(work)
	for _, tc := range []struct {
		args []string
		exit int
	}{
		{[]string{"convert", in, "-o", "-"}, ExitOK},
		{[]string{"convert", in, "-o", "-", "--to", "folded"}, ExitOK},
		{[]string{"merge", in, "-o", "-"}, ExitOK},
		{[]string{"unpack", b, "--index", "0", "-o", "-"}, ExitOK},
		{[]string{"unpack", b, "--all", "-o", "-"}, ExitUsage},
		{[]string{"symbolize", in, "-o", "-"}, -1},
	} {
		s := newStreams(nil)
		code := Main(tc.args, s.ios)
		if tc.exit >= 0 && code != tc.exit {
			t.Errorf("%q: exit %d, want %d; stderr %q", tc.args, code, tc.exit, s.err.String())
		}
		if tc.exit == ExitOK && s.out.Len() == 0 {
			t.Errorf("%q: nothing on standard output", tc.args)
		}
		if _, err := os.Lstat(filepath.Join(work, "-")); err == nil {
			t.Fatalf("%q created a file called \"-\"", tc.args)
		}
		if ents, _ := os.ReadDir(work); len(ents) != 0 {
			t.Errorf("%q left %q in the working directory", tc.args, entryNames(ents))
		}
	}
}
