package bundle

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
)

// mergeChildEnv names the file list a child process of the test binary
// merges; see BenchmarkMergePeakRSS.
const mergeChildEnv = "PPROFX_BUNDLE_MERGE_CHILD"

func TestMain(m *testing.M) {
	if list := os.Getenv(mergeChildEnv); list != "" {
		if err := mergeChild(list); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// mergeChild merges the files named in list, one per line, into the file
// named by the list's first line, the way `pprofx merge` does: read one
// file, decode it, add it, let it go.
func mergeChild(list string) error {
	data, err := os.ReadFile(list)
	if err != nil {
		return err
	}
	names := strings.Split(strings.TrimSpace(string(data)), "\n")
	out, err := os.Create(names[0])
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(out)
	w := NewWriter(bw, WriterOptions{})
	for _, name := range names[1:] {
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		p, err := pprof.Decode(data)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		if err := w.Add(Entry{Name: name, SourceFormat: "pprof"}, p); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return out.Close()
}

// BenchmarkMergePeakRSS merges the 100-file corpus and the 1,000-file one
// (scripts/bench/bundle-corpus.sh, then the same program with -n 500 into
// corpus/1000) in a child process each time, and reports the child's peak
// resident set size and the bundle's size.
func BenchmarkMergePeakRSS(b *testing.B) {
	for _, c := range []struct{ name, glob string }{
		{"100", "../../../corpus/*.pb.gz"},
		{"1000", "../../../corpus/1000/*.pb.gz"},
	} {
		files, _ := filepath.Glob(c.glob)
		if len(files) == 0 {
			b.Logf("no files match %s", c.glob)
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			out := filepath.Join(dir, "bundle")
			list := filepath.Join(dir, "list")
			if err := os.WriteFile(list, []byte(out+"\n"+strings.Join(files, "\n")+"\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			var peak int64
			for b.Loop() {
				cmd := exec.Command(os.Args[0])
				cmd.Env = append(os.Environ(), mergeChildEnv+"="+list)
				if msg, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("child: %v: %s", err, msg)
				}
				peak = max(peak, maxRSS(cmd.ProcessState))
			}
			st, err := os.Stat(out)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
			b.ReportMetric(float64(st.Size()), "bundle-bytes")
			b.ReportMetric(float64(len(files)), "profiles")
		})
	}
}
