package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/memlimit"
)

// TestMaxMemory: an input that could need more than --max-memory leaves
// is refused in one line that names the size, the limit and the flag; a
// large enough limit reads it.
func TestMaxMemory(t *testing.T) {
	// The limit is the process's: tests that call run functions directly
	// must not find this one's.
	t.Cleanup(func() { formats.SetMemory(memlimit.Limit{}) })
	in := "../../testdata/go/heap.pb.gz"
	s := newStreams(nil)
	if code := Main([]string{"inspect", "--max-memory", "1MiB", in}, s.ios); code != ExitFail {
		t.Fatalf("exit %d, want %d; stderr %q", code, ExitFail, s.err.String())
	}
	msg := s.err.String()
	for _, want := range []string{"13.7 KiB decompressed", "--max-memory of 1.0 MiB", "refused"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr %q does not say %q", msg, want)
		}
	}
	if strings.Count(msg, "\n") != 1 {
		t.Errorf("stderr %q: want one line", msg)
	}
	s = newStreams(nil)
	if code := Main([]string{"inspect", "--max-memory", "64GiB", in}, s.ios); code != ExitOK {
		t.Fatalf("--max-memory 64GiB: exit %d; stderr %q", code, s.err.String())
	}
	// The flag is global: it goes before the command too; a bundle's
	// tables are refused before they are decompressed.
	b := filepath.Join(t.TempDir(), "b.ppxb")
	s = newStreams(nil)
	if code := Main([]string{"merge", in, "-o", b}, s.ios); code != ExitOK {
		t.Fatalf("merge: exit %d; stderr %q", code, s.err.String())
	}
	s = newStreams(nil)
	code := Main([]string{"--max-memory", "1MiB", "unpack", b, "--index", "0", "-o", filepath.Join(t.TempDir(), "x.pb.gz")}, s.ios)
	if code != ExitFail || !strings.Contains(s.err.String(), ": bundle: ") || !strings.Contains(s.err.String(), "--max-memory of 1.0 MiB") {
		t.Errorf("a bundle under --max-memory 1MiB: exit %d, stderr %q", code, s.err.String())
	}
}
