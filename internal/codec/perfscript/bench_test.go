package perfscript_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/folded"
	"github.com/pprofx/pprofx/internal/codec/perfscript"
	"github.com/pprofx/pprofx/internal/testutil/viewtest"
)

// benchText is a large perf script text: the recorded fixtures (frame
// pointer, DWARF, two events) over and over, about 16 MB, or the file
// $PPROFX_PERF_SCRIPT_BENCH names (a real large recording).
func benchText(b *testing.B) []byte {
	b.Helper()
	if p := os.Getenv("PPROFX_PERF_SCRIPT_BENCH"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	var one []byte
	for _, name := range []string{"fp.txt", "dwarf.txt", "multi.txt"} {
		data, err := os.ReadFile(filepath.Join(viewtest.Root(), "testdata", "perf", name))
		if err != nil {
			b.Fatal(err)
		}
		one = append(one, data...)
	}
	return bytes.Repeat(one, (16<<20)/len(one))
}

// BenchmarkToFolded is perf script text to folded stacks, as `pprofx
// convert perf.txt -o out.folded` does it, in process.
func BenchmarkToFolded(b *testing.B) {
	data := benchText(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := perfscript.Decode(bytes.NewReader(data), perfscript.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := folded.Encode(io.Discard, p, folded.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStackcollapsePerf is FlameGraph's stackcollapse-perf.pl on the
// same text, when PPROFX_STACKCOLLAPSE_PERF or PATH has it: run both in
// one `go test -bench` to compare them in the same run.
func BenchmarkStackcollapsePerf(b *testing.B) {
	script := os.Getenv("PPROFX_STACKCOLLAPSE_PERF")
	if script == "" {
		var err error
		if script, err = exec.LookPath("stackcollapse-perf.pl"); err != nil {
			b.Skip("SKIPPED: stackcollapse-perf.pl not found (set PPROFX_STACKCOLLAPSE_PERF)")
		}
	}
	data := benchText(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("perl", script)
		cmd.Stdin = bytes.NewReader(data)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
