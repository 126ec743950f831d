package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/memlimit"
	"github.com/pprofx/pprofx/internal/testutil/hostile"
	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// TestHostileInputs runs every crafted input (package
// internal/testutil/hostile, at its small scale) through pprofx in-process:
// the exit status and the message must be the expected ones; what the run
// allocates in all (runtime.MemStats.TotalAlloc, garbage included) must
// stay within 64 MiB + 16 x the decompressed input, and what it holds at
// once (memcheck.Peak) within memlimit.Bound, 64 MiB + 4 x, but for the
// rows known to be over it at full scale (hostile.Case.OverBound), whose
// figures are logged. scripts/bench/hostile-rss.sh measures the same cases at full
// scale as whole processes, scripts/bench/hostile-limits.sh under ulimit -v.
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
			var code int
			peak := int64(memcheck.Peak(func() { code = Main(args, s.ios) }))
			runtime.ReadMemStats(&after)
			mapped = formats.MappedBytes() - mapped
			stderr := s.err.String()
			if c.Exit >= 0 && code != c.Exit || c.Exit < 0 && code != 0 && code != 1 {
				t.Fatalf("exit %d, want %d; stderr %q", code, c.Exit, stderr)
			}
			if code != 0 && !strings.Contains(stderr, c.Msg) {
				t.Errorf("stderr %q, want it to contain %q", stderr, c.Msg)
			}
			if code != 0 && strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q: want one line", stderr)
			}
			raw := c.Raw
			if raw < 0 {
				data, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				if raw, err = hostile.BundleRaw(data); err != nil {
					t.Fatal(err)
				}
			}
			// Input chunks taken outside the Go heap count too. What a run
			// allocates in all (garbage included) is held to 16 x the input;
			// what it holds at once (sampled) to memlimit.Bound, 4 x.
			alloc := int64(after.TotalAlloc-before.TotalAlloc) + mapped
			total, bound := 64<<20+16*raw, memlimit.Bound(raw)
			if c.Early {
				total, bound = hostile.EarlyBound, hostile.EarlyBound
			}
			t.Logf("allocated %.1f MiB in all (bound %.1f MiB), %.1f MiB at most at once (bound %.1f MiB) for %.1f MiB decompressed",
				mib(alloc), mib(total), mib(peak+mapped), mib(bound), mib(raw))
			if c.OverBound {
				t.Logf("known to be over the bound at full scale (hostile.Case.OverBound)")
			}
			if alloc > total {
				t.Errorf("allocated %d bytes in all, over %d (early: %v; else 64 MiB + 16 x %d)", alloc, total, c.Early, raw)
			}
			if peak+mapped > bound && !c.OverBound {
				t.Errorf("held %d bytes at once, over the bound of %d (early: %v; else 64 MiB + 4 x %d)", peak+mapped, bound, c.Early, raw)
			}
			if code != 0 {
				if left, _ := os.ReadDir(out); len(left) != 0 {
					t.Errorf("a failed run left %d files in the output folder", len(left))
				}
			}
		})
	}
}
