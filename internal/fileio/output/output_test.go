package output

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.pb.gz")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, nil, func(w io.Writer) error {
		w.Write(bytes.Repeat([]byte("x"), 1<<20)) // more than the buffer: reaches the temp file
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("failed write clobbered the output: %q", b[:8])
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temp file left behind: %v", ents)
	}
	if err := Write(path, nil, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if string(b) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("got %q mode %v, want new with the old file's mode 0600", b, st.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temp file left behind: %v", ents)
	}
}

func TestWriteStdout(t *testing.T) {
	var out bytes.Buffer
	if err := Write("-", &out, func(w io.Writer) error { _, err := w.Write([]byte("data")); return err }); err != nil {
		t.Fatal(err)
	}
	if out.String() != "data" {
		t.Fatalf("stdout got %q", out.String())
	}
}

func TestWriteMissingDir(t *testing.T) {
	err := Write(filepath.Join(t.TempDir(), "no", "such", "x"), nil, func(io.Writer) error { return nil })
	if err == nil {
		t.Fatal("no error for a missing folder")
	}
}

func noAnon(string) (*os.File, error) { return nil, errors.ErrUnsupported }

// The named temporary file, where a file cannot have no name, is written
// and renamed as atomically.
func TestWriteIsAtomicNamed(t *testing.T) {
	defer func(f func(string) (*os.File, error)) { openAnon = f }(openAnon)
	openAnon = noAnon
	TestWriteIsAtomic(t)
}
