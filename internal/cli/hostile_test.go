package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/testutil/hostile"
)

// TestHostileInputs runs every crafted input (package
// internal/testutil/hostile, at its small scale) through pprofx in-process: the
// exit status and the message must be the expected ones, and what the run
// allocates in all (runtime.MemStats.TotalAlloc, which counts garbage too,
// so it is at least the peak heap) must stay within the bound the issue
// sets for peak RSS: 64 MiB + 16 x the decompressed input.
// scripts/bench/hostile-rss.sh measures the same cases at the scale as
// whole processes.
func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("generates ~300 MB of data in memory")
	}
	dir := t.TempDir()
	made := map[string]bool{}
	for _, c := range hostile.Cases(true) {
		t.Run(c.Desc, func(t *testing.T) {
			in := filepath.Join(dir, c.Name)
			if !made[c.Name] {
				var buf bytes.Buffer
				if err := c.Gen(&buf); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				made[c.Name] = true
			}
			out := t.TempDir()
			var args []string
			var stdin []byte
			for _, a := range c.Args {
				a = strings.ReplaceAll(a, "IN", in)
				if strings.HasPrefix(a, "<") { // standard input from a file
					var err error
					if stdin, err = os.ReadFile(a[1:]); err != nil {
						t.Fatal(err)
					}
					continue
				}
				args = append(args, strings.ReplaceAll(a, "OUT", filepath.Join(out, "o")))
			}
			s := newStreams(stdin)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			mapped := formats.MappedBytes()
			code := Main(args, s.ios)
			runtime.ReadMemStats(&after)
			mapped = formats.MappedBytes() - mapped
			stderr := s.err.String()
			if code != c.Exit {
				t.Fatalf("exit %d, want %d; stderr %q", code, c.Exit, stderr)
			}
			if !strings.Contains(stderr, c.Msg) {
				t.Errorf("stderr %q, want it to contain %q", stderr, c.Msg)
			}
			if c.Exit != 0 && strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q: want one line", stderr)
			}
			// Input chunks taken outside the Go heap count too.
			alloc := int64(after.TotalAlloc-before.TotalAlloc) + mapped
			bound := 64<<20 + 16*c.Raw
			if c.Early {
				bound = hostile.EarlyBound
			}
			t.Logf("allocated %.1f MiB for %.1f MiB decompressed (bound %.1f MiB)", float64(alloc)/(1<<20), float64(c.Raw)/(1<<20), float64(bound)/(1<<20))
			if alloc > bound {
				t.Errorf("allocated %d bytes, over the bound of %d (early: %v; else 64 MiB + 16 x %d)", alloc, bound, c.Early, c.Raw)
			}
			if c.Exit != 0 {
				if left, _ := os.ReadDir(out); len(left) != 0 {
					t.Errorf("a failed run left %d files in the output folder", len(left))
				}
			}
		})
	}
}
