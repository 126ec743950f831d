package refdocs

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestCommittedReference fails when docs/cli or docs/man differ from what
// the command tree generates: run `make docs` and commit the result.
func TestCommittedReference(t *testing.T) {
	files, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join("..", "..", "..", "..", "docs")
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(docs, name))
		if err != nil {
			t.Errorf("docs/%s: %v (run `make docs`)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("docs/%s differs from what the commands generate (run `make docs`)", name)
		}
	}
	for _, sub := range []string{"cli", "man"} {
		entries, _ := os.ReadDir(filepath.Join(docs, sub))
		var extra []string
		for _, e := range entries {
			if _, ok := files[filepath.Join(sub, e.Name())]; !ok {
				extra = append(extra, e.Name())
			}
		}
		sort.Strings(extra)
		if len(extra) > 0 {
			t.Errorf("docs/%s holds files no command generates: %v (run `make docs`)", sub, extra)
		}
	}
	if len(files) < 10 {
		t.Errorf("only %d reference files generated", len(files))
	}
}

// TestDeterministic generates twice and compares.
func TestDeterministic(t *testing.T) {
	a, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate()
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}
