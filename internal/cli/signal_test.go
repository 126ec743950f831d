package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A signal during a write removes the temporary file and ends pprofx by
// that signal (a shell shows 128 + its number). merge opens its output
// first and then reads its inputs: standard input, held open here, keeps
// it writing until the signal comes.
//
// SIGKILL cannot be handled: on Linux the temporary file has no name
// until it is complete, so nothing is left either.
func TestSignalRemovesTempFile(t *testing.T) {
	sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
	if runtime.GOOS == "linux" {
		sigs = append(sigs, syscall.SIGKILL)
	}
	for _, sig := range sigs {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "all.ppxb")
			cmd := exec.Command(os.Args[0], "merge", cpuFixture, "-", "-o", out)
			cmd.Env = append(os.Environ(), "PPROFX_TEST_AS_MAIN=1")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for {
				ents, _ := os.ReadDir(dir)
				if len(ents) == 1 && strings.HasSuffix(ents[0].Name(), ".tmp") || len(ents) == 0 && writesInto(cmd.Process.Pid, dir) {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no temporary file appeared: %q", entryNames(ents))
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			// Killed by the signal, or, when it was ignored from the start
			// (nohup), exit status 128 + its number.
			if !ok || !(ws.Signaled() && ws.Signal() == sig || sig != syscall.SIGKILL && ws.Exited() && ws.ExitStatus() == 128+int(sig)) {
				t.Errorf("pprofx ended with %v (%v), want killed by %v or exit status %d", cmd.ProcessState, err, sig, 128+int(sig))
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("left behind: %q", entryNames(ents))
			}
		})
	}
}

// writesInto reports whether process pid has a file of dir open, one with
// no name included (/proc/PID/fd/N links to "DIR/#INODE (deleted)"). It
// reports false where there is no /proc.
func writesInto(pid int, dir string) bool {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(link, dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// entryNames lists a folder's entries by name. (An os.DirEntry prints as
// its type and name, "- .all.ppxb.123.tmp" for a regular file, which reads
// as if a file called "-" were there.)
func entryNames(ents []os.DirEntry) []string {
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names
}
