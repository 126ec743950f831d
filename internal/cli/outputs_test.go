package cli

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unpack --all where a name is taken by a directory: nothing is written,
// the files already there keep their content, no temporary file is left.
func TestUnpackAllIsAllOrNothing(t *testing.T) {
	files := goFixtures(t)
	dir := t.TempDir()
	b := filepath.Join(dir, "all.ppxb")
	run(t, nil, ExitOK, append([]string{"merge", "-o", b}, files...)...)
	out := filepath.Join(dir, "out")
	run(t, nil, ExitOK, "unpack", b, "--all", "-o", out)
	names, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(names) != len(files) || len(names) < 2 {
		t.Fatalf("unpack --all wrote %v", names)
	}
	for _, n := range names {
		if err := os.WriteFile(n, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	last := names[len(names)-1]
	os.Remove(last)
	if err := os.Mkdir(last, 0o755); err != nil {
		t.Fatal(err)
	}
	s := run(t, nil, ExitFail, "unpack", b, "--all", "-o", out)
	if !strings.Contains(s.err.String(), "is a directory") {
		t.Errorf("stderr %q", s.err)
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != len(names) {
		t.Errorf("the folder holds %d entries, want %d (temporary files left?)", len(ents), len(names))
	}
	for _, n := range names[:len(names)-1] {
		if b, _ := os.ReadFile(n); string(b) != "old" {
			t.Errorf("%s was overwritten by a failed unpack --all", n)
		}
	}
}

// convert writes to a FIFO through it, to /dev/null without replacing it,
// follows a symbolic link, and takes /dev/stdout as standard output.
func TestConvertToSpecialOutputs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	got := make(chan int)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- -1
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- len(b)
	}()
	run(t, nil, ExitOK, "convert", cpuFixture, "-o", fifo, "--to", "pprof")
	if n := <-got; n <= 0 {
		t.Errorf("the FIFO's reader got %d bytes", n)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced by a %v", st.Mode())
	}

	run(t, nil, ExitOK, "convert", cpuFixture, "-o", "/dev/null")
	if st, _ := os.Stat("/dev/null"); st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is now a %v", st.Mode())
	}

	target := filepath.Join(dir, "target.pb.gz")
	link := filepath.Join(dir, "link.pb.gz")
	os.WriteFile(target, []byte("old"), 0o644)
	os.Symlink("target.pb.gz", link)
	run(t, nil, ExitOK, "convert", cpuFixture, "-o", link)
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
	data, _ := os.ReadFile(target)
	parse(t, data)

	s := run(t, nil, ExitOK, "convert", cpuFixture, "-o", "/dev/stdout")
	parse(t, s.out.Bytes())
}
