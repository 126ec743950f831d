package filter_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
	"github.com/pprofx/pprofx/internal/testutil/pprofref"
	"github.com/pprofx/pprofx/internal/transform/filter"
)

func read(t *testing.T, name string) *model.Profile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(pprofref.Root(), "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	in, err := formats.Read(bytes.NewReader(data), formats.ReadOptions{Warn: func(string) {}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return in.Items[0].Profile
}

// filterCases are real fixtures with expressions that match real
// functions, files, mapping files, inline frames and labels in them.
var filterCases = []struct {
	file string
	opts filter.Options
}{
	// Go CPU profile: functions, source files, the mapping's file, labels.
	{"go/cpu.pb.gz", filter.Options{Focus: `sha256`}},
	{"go/cpu.pb.gz", filter.Options{Focus: `gengo/main\.go`}},            // a file name
	{"go/cpu.pb.gz", filter.Options{Focus: `vdso`}},                      // a mapping's file, no sample
	{"go/cpu.pb.gz", filter.Options{Ignore: `^runtime\.`}},               // function names
	{"go/cpu.pb.gz", filter.Options{Ignore: `exe/gengo$`}},               // the main mapping: all goes
	{"go/cpu.pb.gz", filter.Options{Focus: `main\.`, Ignore: `regexp`}},  // both
	{"go/cpu.pb.gz", filter.Options{Hide: `^runtime\.|sort\.go`}},        // hide, by name and file
	{"go/cpu.pb.gz", filter.Options{Show: `^main\.`}},                    // show
	{"go/cpu.pb.gz", filter.Options{Show: `exe/gengo`}},                  // show by mapping
	{"go/cpu.pb.gz", filter.Options{ShowFrom: `runtime/pprof\.Do`}},      // show_from
	{"go/cpu.pb.gz", filter.Options{PruneFrom: `^slices\.`}},             // prune_from
	{"go/cpu.pb.gz", filter.Options{PruneFrom: `fips140/sha256\.$`}},     // "(*Digest).Write" cut at "("
	{"go/cpu.pb.gz", filter.Options{PruneFrom: `Digest`}},                // so this matches nothing
	{"go/cpu.pb.gz", filter.Options{TagFocus: `workload=hash,json`}},     // key=, regex list
	{"go/cpu.pb.gz", filter.Options{TagFocus: `workload:hash`}},          // key:value regexp
	{"go/cpu.pb.gz", filter.Options{TagFocus: `tenant:a,workload:hash`}}, // every regexp must match
	{"go/cpu.pb.gz", filter.Options{TagIgnore: `workload=regexp`}},       // tagignore
	{"go/cpu.pb.gz", filter.Options{Focus: `main`, Hide: `runtime`, Show: `main|crypto`, ShowFrom: `cpuProfile`, TagIgnore: `workload=json`, PruneFrom: `sha256\.block`}},
	// Go heap profile: numeric labels (bytes) with ranges and units.
	{"go/heap.pb.gz", filter.Options{TagFocus: `bytes=1kb:10kb`}},
	{"go/heap.pb.gz", filter.Options{TagFocus: `16`}},
	{"go/heap.pb.gz", filter.Options{TagFocus: `:64`}}, // no unit: not bytes, no match
	{"go/heap.pb.gz", filter.Options{TagFocus: `:64b`}},
	{"go/heap.pb.gz", filter.Options{TagFocus: `bytes=8kb:`}},
	{"go/heap.pb.gz", filter.Options{TagIgnore: `256b:2kb`}},
	{"go/heap.pb.gz", filter.Options{TagFocus: `bytes=1mb:1gb`}}, // matches nothing
	{"go/goroutine.pb.gz", filter.Options{TagFocus: `worker=^ww?$`}},
	// C++ with inline frames (google/pprof's own symbolization).
	{"symbolize/ref/cxxprog.pb.gz", filter.Options{Hide: `^std::`}},                // inside inline frames
	{"symbolize/ref/cxxprog.pb.gz", filter.Options{Show: `^geo::`}},                // inside inline frames
	{"symbolize/ref/cxxprog.pb.gz", filter.Options{Focus: `stl_algo\.h`}},          // a file of inlined lines
	{"symbolize/ref/cxxprog.pb.gz", filter.Options{Ignore: `libc\.so`}},            // a mapping's file
	{"symbolize/ref/cxxprog.pb.gz", filter.Options{Hide: `libc\.so`}},              // hide a mapping
	{"symbolize/ref/cxxprog.pb.gz", filter.Options{ShowFrom: `sortByNorm`}},        // cuts inline lines
	{"symbolize/ref/cxxprog.pb.gz", filter.Options{ShowFrom: `libc\.so`}},          // by mapping
	{"symbolize/ref/cxxprog.pb.gz", filter.Options{PruneFrom: `__introsort_loop`}}, // names cut at "("
	{"symbolize/ref/cxxprog.pb.gz", filter.Options{PruneFrom: `^operator$`}},       // "operator()<...>" cut
	{"symbolize/ref/cxxprog.pb.gz", filter.Options{PruneFrom: `^operator\(\)$`}},   // the reserved name
	{"symbolize/ref/cprog.pb.gz", filter.Options{Focus: `work\.c`, Hide: `libwork`}},
	{"pprof/gperftools-symbolized.pb.gz", filter.Options{Show: `burn\.cc`, PruneFrom: `^main$`}},
	{"pprof/heap-lines.pb.gz", filter.Options{Focus: `json`, TagFocus: `bytes=:1kb`}},
}

// TestMatchesPprof: every filter gives the profile pprof -proto gives
// with the same flags, as pprof's library reads both, with no allowance.
func TestMatchesPprof(t *testing.T) {
	pprofref.Command(t)
	for _, c := range filterCases {
		args := flagsOf(c.opts)
		t.Run(c.file+" "+strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			p := read(t, c.file)
			f, err := filter.Compile(c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var warns []string
			f.Apply(p, func(s string) { warns = append(warns, s) })
			if err := p.Validate(); err != nil {
				t.Fatalf("filtered profile is invalid: %v", err)
			}
			got := pprofref.Read(t, p)
			want := pprofref.Proto(t, append(args, filepath.Join(pprofref.Root(), "testdata", c.file))...)
			if d := pprofcmp.Diff(got, want); d != "" {
				t.Errorf("differs from pprof (pprofx first):\n%s", d)
			}
			if len(want.Sample) == len(read(t, c.file).Samples) && c.opts.Hide == "" && c.opts.Show == "" && c.opts.PruneFrom == "" && c.opts.ShowFrom == "" {
				t.Errorf("the filter kept every sample: it tests nothing")
			}
			t.Logf("%d samples kept; warnings %q", len(want.Sample), warns)
		})
	}
}

func flagsOf(o filter.Options) []string {
	var args []string
	for _, f := range []struct{ name, v string }{
		{"focus", o.Focus}, {"ignore", o.Ignore}, {"hide", o.Hide}, {"show", o.Show},
		{"show_from", o.ShowFrom}, {"tagfocus", o.TagFocus}, {"tagignore", o.TagIgnore}, {"prune_from", o.PruneFrom},
	} {
		if f.v != "" {
			args = append(args, "-"+f.name+"="+f.v)
		}
	}
	return args
}
