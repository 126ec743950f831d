//go:build unix

package output

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNewFileModeUmask: a new output file gets 0666 less the umask the
// process started with (a child process started under umask 022, 027 and
// 077 writes one); a replaced file keeps its mode.
func TestNewFileModeUmask(t *testing.T) {
	if path := os.Getenv("PPROFX_OUTPUT_CHILD"); path != "" {
		if err := Write(path, nil, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
			fmt.Println(err)
		}
		return
	}
	dir := t.TempDir()
	for _, c := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}, {0o077, 0o600}} {
		path := filepath.Join(dir, fmt.Sprintf("u%o", c.umask))
		cmd := exec.Command(os.Args[0], "-test.run", "^TestNewFileModeUmask$")
		cmd.Env = append(os.Environ(), "PPROFX_OUTPUT_CHILD="+path)
		old := syscall.Umask(c.umask) // inherited by the child
		out, err := cmd.CombinedOutput()
		syscall.Umask(old)
		if err != nil || strings.Contains(string(out), "FAIL") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != c.want {
			t.Errorf("umask %03o: mode %v, want %v", c.umask, st.Mode().Perm(), c.want)
		}
	}
	// Replacing keeps the old file's mode.
	path := filepath.Join(dir, "keep")
	if err := os.WriteFile(path, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o640)
	if err := Write(path, nil, func(w io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("replaced file: mode %v, want 0640", st.Mode().Perm())
	}
}
