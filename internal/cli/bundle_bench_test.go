package cli

import (
	"path/filepath"
	"testing"
)

// BenchmarkMergeCommand runs `pprofx merge` (its run function) over the
// 100-file corpus of scripts/bench/bundle-corpus.sh, output to a file: reading,
// decoding and bundling, as a user runs it. Compare with
// internal/codec/bundle's BenchmarkParseData (scripts/bench/bundle-bench.sh does).
func BenchmarkMergeCommand(b *testing.B) {
	files, _ := filepath.Glob("../../corpus/*.pb.gz")
	if len(files) == 0 {
		b.Skip("no corpus: run scripts/bench/bundle-corpus.sh")
	}
	out := filepath.Join(b.TempDir(), "corpus.ppxb")
	for b.Loop() {
		s := newStreams(nil)
		if err := mergeRun(&MergeOptions{IO: s.ios, Inputs: files, Output: out, MaxInputSize: 1 << 30}); err != nil {
			b.Fatal(err)
		}
	}
}
