package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
	"github.com/pprofx/pprofx/internal/testutil/pprofref"
)

// TestSumMatchesPprof: merge --sum writes the profile pprof -proto a b ...
// writes, on inputs with the same sample types: CPU profiles of one
// program, heap profiles, gperftools profiles of a PIE binary loaded at
// other addresses, an OTLP profile with a pprof one.
func TestSumMatchesPprof(t *testing.T) {
	pprofref.Command(t)
	for _, files := range [][]string{
		{"corpus/cpu-00.pb.gz", "corpus/cpu-01.pb.gz", "corpus/cpu-02.pb.gz"},
		{"corpus/heap-00.pb.gz", "corpus/heap-05.pb.gz"},
		{"gperftools/le64-100hz.prof", "gperftools/le64-hot.prof"},
		{"go/block.pb.gz", "go/mutex.pb.gz"},
		{"otlp/rich.pb.gz", "pprof/cpu-merged.pb.gz"},
	} {
		t.Run(strings.Join(files, " "), func(t *testing.T) {
			var ours, theirs []string
			for _, f := range files {
				ours = append(ours, td+f)
				theirs = append(theirs, asPprofFile(t, td+f))
			}
			got := sumOf(t, ours)
			// The sum keeps the frames its drop_frames header names (as
			// convert does); pprof drops them from every profile it reads.
			if err := got.RemoveUninteresting(); err != nil {
				t.Fatal(err)
			}
			want := pprofref.Proto(t, theirs...)
			if d := pprofcmp.Diff(got, want); d != "" {
				t.Errorf("merge --sum differs from pprof -proto (pprofx first):\n%s", d)
			}
			if len(want.Sample) == 0 {
				t.Error("pprof's profile is empty: the case tests nothing")
			}
		})
	}
	// All fifty CPU profiles of the corpus, as one.
	t.Run("corpus/cpu-*", func(t *testing.T) {
		files, _ := filepath.Glob(td + "corpus/cpu-*.pb.gz")
		if d := pprofcmp.Diff(sumOf(t, files), pprofref.Proto(t, files...)); d != "" {
			t.Errorf("merge --sum differs from pprof -proto (pprofx first):\n%s", d)
		}
	})
}

func sumOf(t *testing.T, files []string) *profile.Profile {
	t.Helper()
	out := filepath.Join(t.TempDir(), "sum.pb.gz")
	s := newStreams(nil)
	if code := Main(append([]string{"merge", "--sum", "-o", out}, files...), s.ios); code != 0 {
		t.Fatalf("merge --sum: exit %d: %s", code, s.err)
	}
	p, err := profile.ParseData(mustRead(t, out))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSumPartlyShared: an OTLP profile with cpu/nanoseconds alone and a Go
// CPU profile with samples/count and cpu/nanoseconds add into a profile
// with both types, in the order first seen. Its cpu/nanoseconds is what
// pprof -proto writes (pprof keeps only the shared type); its
// samples/count is the Go profile's alone.
func TestSumPartlyShared(t *testing.T) {
	pprofref.Command(t)
	a, b := td+"otlp-dev/cpu.otlp", td+"corpus/cpu-04.pb.gz"
	got := sumOf(t, []string{a, b})
	if len(got.SampleType) != 2 || got.SampleType[0].Type != "cpu" || got.SampleType[1].Type != "samples" {
		t.Fatalf("sample types %v", got.SampleType)
	}
	var count int64
	for _, s := range got.Sample {
		count += s.Value[1]
	}
	pb, err := profile.ParseData(mustRead(t, b))
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, s := range pb.Sample {
		want += s.Value[0]
	}
	if count != want || want == 0 {
		t.Errorf("samples/count adds to %d, the Go profile's to %d", count, want)
	}
	// The shared type alone, samples then zero dropped, is pprof's.
	got.SampleType = got.SampleType[:1]
	kept := got.Sample[:0]
	for _, s := range got.Sample {
		s.Value = s.Value[:1]
		if s.Value[0] != 0 {
			kept = append(kept, s)
		}
	}
	got.Sample = kept
	got, err = profile.Merge([]*profile.Profile{got})
	if err != nil {
		t.Fatal(err)
	}
	ref := pprofref.Proto(t, asPprofFile(t, a), asPprofFile(t, b))
	if d := pprofcmp.Diff(got, ref); d != "" {
		t.Errorf("the shared type differs from pprof -proto (pprofx first):\n%s", d)
	}
}

func TestSumErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"merge", "--sum", td + "go/cpu.pb.gz", td + "go/heap.pb.gz", "-o", filepath.Join(dir, "x.pb.gz")}, ExitFail, "incompatible period types"},
		{[]string{"merge", "--sum", td + "go/cpu.pb.gz", "-o", filepath.Join(dir, "x.ppxb")}, ExitUsage, "names no output format"},
		{[]string{"merge", td + "go/cpu.pb.gz", "-o", filepath.Join(dir, "x.ppxb"), "--to", "pprof"}, ExitUsage, "--to"},
	} {
		s := newStreams(nil)
		code := Main(c.args, s.ios)
		if code != c.code || !strings.Contains(s.err.String(), c.want) || (code == ExitFail && strings.Count(s.err.String(), "\n") != 1) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, s.err)
		}
	}
}
