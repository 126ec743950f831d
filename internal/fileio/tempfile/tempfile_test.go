package tempfile

import (
	"io"
	"os"
	"testing"
)

func TestNew(t *testing.T) {
	dir := t.TempDir()
	f, err := New(dir, "x-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the folder holds %v while the file is open", ents)
	}
	if _, err := f.WriteAt([]byte("hello"), 3); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 8))
	if err != nil || string(b) != "\x00\x00\x00hello" {
		t.Errorf("read back %q, %v", b, err)
	}
	if err := f.Close(); err != nil {
		t.Error(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
	if _, err := New(dir+"/missing", "x-*"); err == nil {
		t.Error("no error for a folder that does not exist")
	}
}
