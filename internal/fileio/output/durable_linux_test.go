package output

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDurableHelper is the process TestDurable traces: it writes one
// output through Write.
func TestDurableHelper(t *testing.T) {
	target := os.Getenv("OUTPUT_DURABLE_TARGET")
	if target == "" {
		t.Skip("run by TestDurable")
	}
	err := Write(target, os.Stdout, func(w io.Writer) error {
		_, err := io.WriteString(w, "profile")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDurable traces the system calls of a write (strace): the temporary
// file is fsync'd before the rename and its folder after it; a device gets
// neither, and PPROFX_NO_FSYNC=1 leaves them out.
func TestDurable(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("no strace")
	}
	dir := t.TempDir()
	trace := func(target string, env ...string) []string {
		log := filepath.Join(t.TempDir(), "strace.log")
		cmd := exec.Command(strace, "-f", "-qq", "-o", log, "-e", "trace=fsync,fdatasync,rename,renameat,renameat2",
			os.Args[0], "-test.run", "^TestDurableHelper$")
		cmd.Env = append(append(os.Environ(), "OUTPUT_DURABLE_TARGET="+target), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("strace cannot run here: %v: %s", err, out)
		}
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		var calls []string
		name := regexp.MustCompile(`^(?:\d+\s+)?(\w+)\(`)
		for _, line := range strings.Split(string(data), "\n") {
			if m := name.FindStringSubmatch(line); m != nil {
				calls = append(calls, strings.TrimPrefix(strings.TrimPrefix(m[1], "renameat2"), "renameat"))
			}
		}
		return calls
	}
	norm := func(calls []string) string {
		for i, c := range calls {
			if c == "" {
				calls[i] = "rename"
			}
		}
		return strings.Join(calls, " ")
	}
	target := filepath.Join(dir, "out.pb.gz")
	if got := norm(trace(target)); got != "fsync rename fsync" {
		t.Errorf("a file: system calls %q, want fsync rename fsync", got)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "profile" {
		t.Fatalf("output %q, %v", data, err)
	}
	if got := norm(trace(target, "PPROFX_NO_FSYNC=1")); got != "rename" {
		t.Errorf("PPROFX_NO_FSYNC=1: system calls %q, want rename", got)
	}
	if got := norm(trace("/dev/null")); got != "" {
		t.Errorf("/dev/null: system calls %q, want none", got)
	}
}
