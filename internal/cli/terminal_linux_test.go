//go:build linux

package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// openPTY opens a real pseudo-terminal pair (/dev/ptmx and its /dev/pts
// side), in raw mode so that output bytes arrive as written. What is
// written to the terminal side is drained from the master into the
// returned buffer, which is complete once done is closed (after the
// terminal side is closed).
func openPTY(t *testing.T) (tty *os.File, got *bytes.Buffer, done chan struct{}) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatal(err)
	}
	got, done = &bytes.Buffer{}, make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(got, master) // ends with EIO once the terminal side is closed
	}()
	return tty, got, done
}

func TestIsTerminalRealPTY(t *testing.T) {
	tty, _, done := openPTY(t)
	if !isTerminal(tty) {
		t.Error("a pseudo-terminal is not taken for a terminal")
	}
	tty.Close()
	<-done
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, f := range map[string]*os.File{"/dev/null": devnull, "a pipe": pw, "a file": file} {
		if isTerminal(f) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
}

// TestTerminalOutput runs commands with standard output and error on a real
// pseudo-terminal, /dev/null and a file.
func TestTerminalOutput(t *testing.T) {
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	errFile, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	stderr := func() string {
		b, _ := os.ReadFile(errFile.Name())
		errFile.Truncate(0)
		errFile.Seek(0, 0)
		return string(b)
	}

	// Binary to /dev/null (no terminal anywhere): written.
	if code := Main([]string{"convert", cpuFixture, "-o", "-"}, streamsOf(devnull, devnull, errFile)); code != ExitOK {
		t.Errorf("convert -o - > /dev/null: exit %d, stderr %q", code, stderr())
	}

	// Binary to a terminal: refused, nothing written.
	tty, got, done := openPTY(t)
	if code := Main([]string{"convert", cpuFixture, "-o", "-"}, streamsOf(devnull, tty, errFile)); code != ExitUsage {
		t.Errorf("convert -o - to a terminal: exit %d, want %d", code, ExitUsage)
	}
	if e := stderr(); !strings.Contains(e, "refusing to write a binary profile to a terminal") {
		t.Errorf("stderr %q", e)
	}
	// OTLP JSON is text: it goes to the terminal, newline-terminated.
	if code := Main([]string{"convert", cpuFixture, "-o", "-", "--to", "otlp-json"}, streamsOf(devnull, tty, errFile)); code != ExitOK {
		t.Errorf("convert --to otlp-json to a terminal: exit %d, stderr %q", code, stderr())
	}
	tty.Close()
	<-done
	out := got.String()
	if !strings.HasPrefix(out, `{"resourceProfiles":`) || !strings.HasSuffix(out, "}\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("terminal got %d bytes: %.40q ... %q", len(out), out, out[max(0, len(out)-10):])
	}

	// Progress goes to stderr when it is a terminal, and only then.
	dir := t.TempDir()
	files := goFixtures(t)
	tty, got, done = openPTY(t)
	if code := Main(append([]string{"merge", "-o", filepath.Join(dir, "a.ppxb")}, files...), streamsOf(devnull, devnull, tty)); code != ExitOK {
		t.Errorf("merge: exit %d", code)
	}
	tty.Close()
	<-done
	if !strings.Contains(got.String(), "\r\033[Kpprofx: merging ") {
		t.Errorf("no progress on a terminal stderr: %q", got)
	}
	if code := Main(append([]string{"merge", "-o", filepath.Join(dir, "b.ppxb")}, files...), streamsOf(devnull, devnull, errFile)); code != ExitOK {
		t.Errorf("merge: exit %d", code)
	}
	if e := stderr(); e != "" {
		t.Errorf("progress on a file stderr: %q", e)
	}
}

// TestPushProgressOnPTY: `pprofx push` shows its progress line on a
// terminal stderr, clears it before every warning and before the summary
// (so no line of text ends up after a progress line), and leaves nothing
// of it on a file stderr.
func TestPushProgressOnPTY(t *testing.T) {
	withEnv(t, map[string]string{})
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	// le64-notrailer.prof warns (no trailer): a warning amid the progress.
	files := append(goFixtures(t), "../../testdata/gperftools/le64-notrailer.prof", cpuFixture)
	dir := t.TempDir()
	tty, got, done := openPTY(t)
	args := append([]string{"push", "--dry-run", filepath.Join(dir, "a.otlp"), "--max-batch-bytes", "1"}, files...)
	if code := Main(args, streamsOf(devnull, devnull, tty)); code != ExitOK {
		t.Errorf("push: exit %d", code)
	}
	tty.Close()
	<-done
	out := got.String()
	if !strings.Contains(out, fmt.Sprintf("\r\033[Kpprofx: pushing %d/%d ", len(files), len(files))) {
		t.Errorf("no progress line for the last input on a terminal stderr: %q", out)
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("stderr does not end with a whole line: %q", out)
	}
	var text []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		// What shows on the line is what follows its last clear.
		parts := strings.Split(l, "\r\033[K")
		shown := parts[len(parts)-1]
		for _, p := range parts[:len(parts)-1] {
			if p != "" && !strings.HasPrefix(p, "pprofx: pushing ") {
				t.Errorf("text cleared off the screen: %q", p)
			}
		}
		if strings.HasPrefix(shown, "pprofx: pushing ") || strings.Contains(shown, "\033") {
			t.Errorf("a line left with progress on it: %q", l)
		}
		text = append(text, shown)
	}
	if len(text) != 2 || !strings.Contains(text[0], "le64-notrailer.prof: warning: no trailer") || !strings.HasPrefix(text[1], "pprofx: wrote (dry run) ") {
		t.Errorf("want the warning and the summary, each on its own line: %q", text)
	}

	errFile, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	args[2] = filepath.Join(dir, "b.otlp")
	if code := Main(args, streamsOf(devnull, devnull, errFile)); code != ExitOK {
		t.Errorf("push: exit %d", code)
	}
	if b, _ := os.ReadFile(errFile.Name()); bytes.Contains(b, []byte("\033")) || bytes.Contains(b, []byte("pushing")) || bytes.Count(b, []byte("\n")) != 2 {
		t.Errorf("progress on a file stderr, or not two lines: %q", b)
	}
}
