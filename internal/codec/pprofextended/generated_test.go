package pprofextended

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	root := filepath.Join("..", "..", "..")
	cmd := exec.Command("sh", filepath.Join(root, "proto", "gen.sh"))
	cmd.Env = append(os.Environ(), "OUT="+out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("proto/gen.sh: %v\n%s", err, msg)
	}
	// The generated packages, each beside the codec that owns it.
	for _, dir := range []string{
		filepath.Join("internal", "codec", "otlp", "otlppb"),
		filepath.Join("internal", "codec", "pprofextended", "profilespb"),
	} {
		compareGenerated(t, filepath.Join(out, dir), filepath.Join(root, dir))
	}
}

// compareGenerated checks that every file under gen is the same under
// committed, and that committed holds no other .pb.go file.
func compareGenerated(t *testing.T, gen, committed string) {
	t.Helper()
	var n int
	err := filepath.WalkDir(gen, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(gen, path)
		want, _ := os.ReadFile(path)
		got, err := os.ReadFile(filepath.Join(committed, rel))
		if err != nil || !bytes.Equal(dropProtocVersion(got), dropProtocVersion(want)) {
			t.Errorf("%s is not what proto/gen.sh makes: run `make proto` (or sh proto/gen.sh)", filepath.Join(committed, rel))
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	filepath.WalkDir(committed, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".pb.go") {
			have = append(have, path)
		}
		return nil
	})
	if n == 0 || n != len(have) {
		t.Errorf("proto/gen.sh made %d files under %s, %d are committed", n, gen, len(have))
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
