package output

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestKilledHelper is the process TestKilledLeavesNothing kills: it writes
// a megabyte of output, says so, and waits.
func TestKilledHelper(t *testing.T) {
	target := os.Getenv("OUTPUT_KILLED_TARGET")
	if target == "" {
		t.Skip("run by TestKilledLeavesNothing")
	}
	if os.Getenv("OUTPUT_KILLED_NAMED") == "1" {
		openAnon = noAnon
	}
	Write(target, os.Stdout, func(w io.Writer) error {
		w.Write(make([]byte, 1<<20))
		os.Stdout.WriteString("written\n")
		select {}
	})
}

// A process killed by SIGKILL (as the OOM killer kills) while it writes
// its output leaves nothing in the output's folder: the temporary file has
// no name yet. The named temporary file, where there is no other, is left.
func TestKilledLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	if f, err := createAnon(dir); err != nil {
		t.Skipf("no files without a name here: %v", err)
	} else {
		f.Close()
	}
	for _, named := range []bool{false, true} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run", "^TestKilledHelper$")
		cmd.Env = append(os.Environ(), "OUTPUT_KILLED_TARGET="+filepath.Join(dir, "out.pb.gz"))
		if named {
			cmd.Env = append(cmd.Env, "OUTPUT_KILLED_NAMED=1")
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || strings.TrimSpace(line) != "written" {
			cmd.Process.Kill()
			t.Fatalf("helper: %q, %v", line, err)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		ents, _ := os.ReadDir(dir)
		if !named && len(ents) != 0 {
			t.Errorf("killed while writing, it left %v", ents)
		}
		if named && len(ents) != 1 {
			t.Errorf("named temporary file: %d files left, want the one", len(ents))
		}
	}
}
