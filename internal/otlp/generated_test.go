package otlp

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedCodeUpToDate regenerates otlppb from proto/ with
// proto/gen.sh into a temporary directory and compares it with the
// committed code. It needs Debian's protobuf-compiler.
func TestGeneratedCodeUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerates code: not in -short")
	}
	if _, err := exec.LookPath("protoc"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("protoc not installed: CI must apt-get install protobuf-compiler to prove otlppb is up to date")
		}
		t.Skip("protoc not installed (apt-get install protobuf-compiler); cannot check otlppb is up to date")
	}
	out := t.TempDir()
	cmd := exec.Command("sh", filepath.Join("..", "..", "proto", "gen.sh"))
	cmd.Env = append(os.Environ(), "OUT="+out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("proto/gen.sh: %v\n%s", err, msg)
	}
	gen := filepath.Join(out, "internal", "otlp", "otlppb")
	var n int
	err := filepath.WalkDir(gen, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(gen, path)
		want, _ := os.ReadFile(path)
		got, err := os.ReadFile(filepath.Join("otlppb", rel))
		if err != nil || !bytes.Equal(dropProtocVersion(got), dropProtocVersion(want)) {
			t.Errorf("otlppb/%s is not what proto/gen.sh makes: run `make proto` (or sh proto/gen.sh)", rel)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	committed, _ := filepath.Glob(filepath.Join("otlppb", "*", "*.pb.go"))
	if n == 0 || n != len(committed) {
		t.Errorf("proto/gen.sh made %d files, otlppb holds %d", n, len(committed))
	}
}

// dropProtocVersion removes the "// \tprotoc vX.Y.Z" header line: another
// Debian release's protoc makes the same code under another version line.
func dropProtocVersion(b []byte) []byte {
	var out [][]byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte("// \tprotoc ")) {
			out = append(out, l)
		}
	}
	return bytes.Join(out, nil)
}
