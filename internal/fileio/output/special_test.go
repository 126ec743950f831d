package output

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeString(s string) func(w io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// A device is written, never replaced: /dev/null stays the null device,
// and /dev/full's "no space" is an error, with /dev/full left as it was.
func TestDevicesAreWrittenNotReplaced(t *testing.T) {
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		before, err := os.Stat(dev)
		if err != nil {
			t.Skipf("%s: %v", dev, err)
		}
		err = Write(dev, nil, writeString(strings.Repeat("x", 1<<17)))
		if dev == "/dev/null" && err != nil {
			t.Errorf("%s: %v", dev, err)
		}
		if dev == "/dev/full" && (err == nil || !strings.Contains(err.Error(), "no space")) {
			t.Errorf("%s: err = %v, want no space left on device", dev, err)
		}
		after, err := os.Stat(dev)
		if err != nil || after.Mode() != before.Mode() || after.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("%s is now %v (was %v): replaced", dev, after.Mode(), before.Mode())
		}
		if ents, _ := filepath.Glob("/dev/." + filepath.Base(dev) + ".*.tmp"); len(ents) != 0 {
			t.Errorf("temporary files left in /dev: %v", ents)
		}
	}
}

// A FIFO is opened and written: its reader gets the bytes and the FIFO
// stays a FIFO.
func TestFIFOIsWrittenNotReplaced(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	if err := Write(fifo, nil, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "through the pipe" {
		t.Errorf("the reader got %q", b)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO is now %v", st.Mode())
	}
}

// A symbolic link stays a link; its target is replaced atomically, by a
// temporary file beside the target (another folder here), and a dangling
// link gets its target created.
func TestSymlinkTargetIsReplaced(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "real.pb.gz")
	if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.pb.gz")
	if err := os.Symlink("../"+filepath.Base(other)+"/real.pb.gz", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, nil, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a %v", st.Mode())
	}
	b, _ := os.ReadFile(target)
	st, _ := os.Stat(target)
	if string(b) != "new" || st.Mode().Perm() != 0o640 {
		t.Fatalf("target holds %q with mode %v, want \"new\" with 0640", b, st.Mode().Perm())
	}
	for _, d := range []string{dir, other} {
		if ents, _ := os.ReadDir(d); len(ents) != 1 {
			t.Errorf("%s: %d entries, want 1 (a temporary file left?)", d, len(ents))
		}
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("made.pb", dangling); err != nil {
		t.Fatal(err)
	}
	if err := Write(dangling, nil, writeString("made")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.pb")); string(b) != "made" {
		t.Errorf("dangling link's target holds %q", b)
	}
	if st, _ := os.Lstat(dangling); st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the dangling link was replaced")
	}
}

func TestDevStdoutIsStdout(t *testing.T) {
	var buf bytes.Buffer
	if err := Write("/dev/stdout", &buf, writeString("to stdout")); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "to stdout" {
		t.Fatalf("stdout got %q", buf.String())
	}
}

func TestDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	err := Write(dir, nil, writeString("x"))
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("err = %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 1 {
		t.Errorf("temporary file left beside the directory: %v", ents)
	}
}
