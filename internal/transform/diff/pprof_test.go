package diff_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
	"github.com/pprofx/pprofx/internal/testutil/pprofref"
	"github.com/pprofx/pprofx/internal/transform/diff"
)

// input reads a fixture and names the pprof file pprof is given for it:
// the fixture itself when pprof reads it as pprofx does, else pprofx's
// pprof conversion of it (pprof's own gperftools reader drops frames
// pprofx keeps; pprof reads no folded stacks).
func input(t *testing.T, name, sampleType string) (*model.Profile, string) {
	t.Helper()
	path := filepath.Join(pprofref.Root(), "testdata", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in, err := formats.Read(bytes.NewReader(data), formats.ReadOptions{Warn: func(string) {}, SampleType: sampleType})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	p := in.Items[0].Profile
	if strings.HasSuffix(name, ".pb.gz") {
		return p, path
	}
	var buf bytes.Buffer
	if err := pprof.Encode(&buf, p, pprof.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	conv := filepath.Join(t.TempDir(), filepath.Base(name)+".pb.gz")
	if err := os.WriteFile(conv, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, conv
}

// pairs are real pairs of profiles.
var pairs = []struct {
	name, base, new string
	sampleType      string // folded input's TYPE/UNIT
}{
	{"two CPU profiles of one Go program", "corpus/cpu-00.pb.gz", "corpus/cpu-01.pb.gz", ""},
	{"the same CPU profile, opposite labels", "go/cpu.pb.gz", "pprof/cpu-merged.pb.gz", ""},
	{"two heap profiles", "corpus/heap-00.pb.gz", "corpus/heap-01.pb.gz", ""},
	{"gperftools, a PIE binary at two load addresses", "gperftools/le64-100hz.prof", "gperftools/le64-hot.prof", ""},
	{"gperftools, 4 threads against 1", "gperftools/le64-100hz.prof", "gperftools/le64-1000hz-4t.prof", ""},
	// The collector's pdata file holds cpu/nanoseconds only; the Go
	// profile samples/count and cpu/nanoseconds: cpu is kept.
	{"partly shared sample types", "otlp-dev/cpu.otlp", "corpus/cpu-03.pb.gz", ""},
}

func TestMatchesPprofDiff(t *testing.T) {
	pprofref.Command(t)
	for _, pr := range pairs {
		for _, o := range []diff.Options{{}, {Subtract: true}, {Normalize: true}, {Subtract: true, Normalize: true}} {
			flag := "-diff_base="
			if o.Subtract {
				flag = "-base="
			}
			args := []string{}
			if o.Normalize {
				args = append(args, "-normalize")
			}
			t.Run(pr.name+" "+flag+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				base, basePath := input(t, pr.base, pr.sampleType)
				newp, newPath := input(t, pr.new, pr.sampleType)
				got, err := diff.Diff(base, newp, o, nil)
				if o.Normalize && len(base.SampleTypes) != len(newp.SampleTypes) {
					// pprof normalizes only profiles of the same sample types.
					if err == nil {
						t.Fatal("--normalize of profiles with other sample types: no error")
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := got.Validate(); err != nil {
					t.Fatal(err)
				}
				want := pprofref.Proto(t, append(args, flag+basePath, newPath)...)
				if d := pprofcmp.Diff(pprofref.Read(t, got), want); d != "" {
					t.Errorf("differs from pprof (pprofx first):\n%s", d)
				}
				neg := false
				for _, s := range want.Sample {
					for _, v := range s.Value {
						neg = neg || v < 0
					}
				}
				if !neg && !o.Subtract {
					t.Errorf("no negative value: BASE was not subtracted")
				}
			})
		}
	}
}

func TestNoCommonSampleType(t *testing.T) {
	base, _ := input(t, "go/cpu.pb.gz", "")
	newp, _ := input(t, "go/heap.pb.gz", "")
	_, err := diff.Diff(base, newp, diff.Options{}, nil)
	var nc *diff.NoCommonTypeError
	if !errors.As(err, &nc) {
		t.Fatalf("got %v, want NoCommonTypeError", err)
	}
	if !strings.Contains(err.Error(), "samples/count") || !strings.Contains(err.Error(), "inuse_space/bytes") {
		t.Errorf("error does not name the types: %v", err)
	}
}

// Under a memory limit, a comparison that google/pprof's library could not
// hold in what the limit leaves is refused before it starts.
func TestHeldToTheLimit(t *testing.T) {
	base, _ := input(t, "go/heap.pb.gz", "")
	newp, _ := input(t, "go/heap.pb.gz", "")
	defer model.SetMemoryAvailable(0)
	model.SetMemoryInUse(func() int64 { return 0 }, 0)
	model.SetMemoryAvailable(64 << 10)
	if _, err := diff.Diff(base, newp, diff.Options{}, nil); err == nil || !strings.Contains(err.Error(), "the memory limit leaves now") {
		t.Fatalf("under 64 KiB: %v, want a refusal", err)
	}
	model.SetMemoryAvailable(256 << 20)
	if _, err := diff.Diff(base, newp, diff.Options{}, nil); err != nil {
		t.Fatalf("under 256 MiB: %v", err)
	}
}

// A profile without sample types (a crafted file of one sample) has none
// in common with anything, and the error says so.
func TestNoSampleTypes(t *testing.T) {
	p := model.New()
	p.Locations = []model.Location{{Mapping: model.NoMapping}}
	p.Samples = []model.Sample{{Stack: p.Stacks.Add([]int32{0}), Link: model.NoLink}}
	_, err := diff.Diff(p, p, diff.Options{}, nil)
	if err == nil || !strings.Contains(err.Error(), "(base: none; new: none)") {
		t.Fatalf("got %v", err)
	}
}
