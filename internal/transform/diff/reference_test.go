package diff_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofref"
	"github.com/pprofx/pprofx/internal/transform/diff"
)

var options = []diff.Options{{}, {Subtract: true}, {Normalize: true}, {Subtract: true, Normalize: true}}

// sameAsLibrary fails t unless Diff and google/pprof's library (libraryDiff)
// agree on base and newp: both refuse them (the library's errors are its
// own), or both make the same profile, byte for byte as pprof, with the
// same stacks and label sets.
func sameAsLibrary(t *testing.T, name string, base, newp *model.Profile, o diff.Options) {
	t.Helper()
	want, werr := libraryDiff(base, newp, o)
	got, gerr := diff.Diff(base, newp, o, nil)
	if werr != nil || gerr != nil {
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s %+v: library: %v; Diff: %v", name, o, werr, gerr)
		}
		return
	}
	if err := got.Validate(); err != nil {
		t.Fatalf("%s %+v: %v", name, o, err)
	}
	if d := modelDiff(got, want); d != "" {
		t.Errorf("%s %+v: differs from google/pprof's library: %s", name, o, d)
	}
}

// modelDiff says where got and want differ: their pprof encodings, and
// the stack and label set of each sample (the tables' order).
func modelDiff(got, want *model.Profile) string {
	if g, w := pprof.AppendRaw(nil, got), pprof.AppendRaw(nil, want); !bytes.Equal(g, w) {
		gp, _ := toLibrary(got)
		wp, _ := toLibrary(want)
		return fmt.Sprintf("as pprof:\n--- Diff\n%v\n--- library\n%v", gp, wp)
	}
	if got.Stacks.Len() != want.Stacks.Len() || len(got.LabelSets) != len(want.LabelSets) {
		return fmt.Sprintf("%d stacks and %d label sets, want %d and %d", got.Stacks.Len(), len(got.LabelSets), want.Stacks.Len(), len(want.LabelSets))
	}
	for i := range got.Samples {
		g, w := got.Samples[i], want.Samples[i]
		if g.Stack != w.Stack || g.LabelSet != w.LabelSet {
			return fmt.Sprintf("sample %d: stack %d, label set %d; want %d, %d", i, g.Stack, g.LabelSet, w.Stack, w.LabelSet)
		}
	}
	return ""
}

// Every profile of every fixture is compared with itself and with the
// next one, each way pprof compares.
func TestMatchesLibrary(t *testing.T) {
	var names []string
	var profs []*model.Profile
	root := filepath.Join(pprofref.Root(), "testdata")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		in, err := formats.Read(bytes.NewReader(data), formats.ReadOptions{Warn: func(string) {}})
		if err != nil {
			return nil // not a profile (maps, symbols), or one that fails on purpose
		}
		rel, _ := filepath.Rel(root, path)
		for i, it := range in.Items {
			names = append(names, fmt.Sprintf("%s[%d]", rel, i))
			profs = append(profs, it.Profile)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(profs) < 100 {
		t.Fatalf("%d profiles in the fixtures", len(profs))
	}
	for i := range profs {
		j := (i + 1) % len(profs)
		for _, o := range options {
			sameAsLibrary(t, names[i]+" - "+names[i], profs[i], profs[i], o)
			sameAsLibrary(t, names[i]+" - "+names[j], profs[j], profs[i], o)
		}
	}
}

// Profiles made at random from a few of each kind of thing, so that
// pprof's keys meet: equal locations, mappings of one binary at other
// addresses, lines without a function, labels of every kind, frames to
// drop, values that cancel, sample types in other units and orders,
// equal strings at other indices, samples sharing one array of values.
func TestMatchesLibraryRandom(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		base, newp := randomProfile(r), randomProfile(r)
		if r.IntN(4) == 0 {
			base = newp
		}
		for _, o := range options {
			sameAsLibrary(t, fmt.Sprintf("seed %d", seed), base, newp, o)
		}
		if t.Failed() {
			return
		}
	}
}

var (
	randNames = []string{"main.main", "main.f(int)", "runtime.mallocgc", "(anonymous namespace)::g()",
		"ns::operator()(int)", ".ppc.entry", "runtime.gc", "", "x"}
	randFiles   = []string{"", "/bin/app", "libc.so.6", "https://example.com/app", "/bin/app"}
	randTypes   = [][2]string{{"samples", "count"}, {"cpu", "nanoseconds"}, {"cpu", "milliseconds"}, {"alloc_space", "bytes"}, {"alloc_space", "megabytes"}, {"sample", "count"}}
	randPeriods = [][2]string{{"", ""}, {"cpu", "nanoseconds"}, {"cpu", "milliseconds"}, {"space", "bytes"}}
	randDrops   = []string{"", "", "runtime\\..*", "main\\.f", "(", ".*"}
	randKeys    = []string{"worker", "pprof::base", "bytes", "a", ""}
	randValues  = []string{"true", "1", "", "x y"}
	randUnits   = []string{"", "bytes", "ms"}
)

func randomProfile(r *rand.Rand) *model.Profile {
	b := model.NewBuilder()
	p := b.P
	// A string is now and then stored again at an index of its own (as
	// a pprof file may hold it, "" included): pprof's keys see strings,
	// not indices.
	pick := func(s []string) int32 {
		v := s[r.IntN(len(s))]
		if r.IntN(6) == 0 {
			p.Strings = append(p.Strings, v)
			return int32(len(p.Strings) - 1)
		}
		return b.String(v)
	}
	for range r.IntN(4) {
		start := uint64(r.IntN(3)) * 0x10000
		p.Mappings = append(p.Mappings, model.Mapping{Start: start, Limit: start + uint64(1+r.IntN(2))*0x1000 + uint64(r.IntN(2)),
			Offset: uint64(r.IntN(2)) * 0x1000, File: pick(randFiles), BuildID: pick([]string{"", "", "abc"}),
			HasFunctions: r.IntN(2) == 0, HasInlineFrames: r.IntN(2) == 0})
	}
	for range r.IntN(5) {
		p.Functions = append(p.Functions, model.Function{Name: pick(randNames), SystemName: pick([]string{"", "_Z1fv"}),
			Filename: pick([]string{"", "a.go"}), StartLine: int64(r.IntN(2))})
	}
	nLoc := 1 + r.IntN(8)
	for range nLoc {
		l := model.Location{Mapping: model.NoMapping, IsFolded: r.IntN(8) == 0}
		if len(p.Mappings) > 0 && r.IntN(4) != 0 {
			l.Mapping = int32(r.IntN(len(p.Mappings)))
			l.Address = p.Mappings[l.Mapping].Start + uint64(r.IntN(3))*0x10
		} else {
			l.Address = uint64(r.IntN(3)) * 0x10
		}
		var lines []model.Line
		var cols []int64
		for range r.IntN(4) {
			ln := model.Line{Function: model.NoFunction, Line: int64(r.IntN(3))}
			cols = append(cols, int64(r.IntN(2)))
			if len(p.Functions) > 0 && r.IntN(5) != 0 {
				ln.Function = int32(r.IntN(len(p.Functions)))
			}
			lines = append(lines, ln)
		}
		p.SetColumns(&p.Locations[p.AddLocation(l, lines...)], cols...)
	}
	nTypes := 1 + r.IntN(3)
	for range nTypes {
		t := randTypes[r.IntN(len(randTypes))]
		p.SampleTypes = append(p.SampleTypes, model.ValueType{Type: b.String(t[0]), Unit: b.String(t[1])})
	}
	pt := randPeriods[r.IntN(len(randPeriods))]
	p.PeriodType = model.ValueType{Type: b.String(pt[0]), Unit: b.String(pt[1])}
	p.Period = int64(r.IntN(3)) * 1000
	if r.IntN(2) == 0 {
		p.DefaultSampleType = p.SampleTypes[r.IntN(nTypes)].Type
	}
	p.DropFrames = pick(randDrops)
	if p.DropFrames != 0 && r.IntN(2) == 0 {
		p.KeepFrames = pick([]string{"runtime\\.gc", "main\\..*"})
	}
	p.TimeNanos = int64(r.IntN(3)) * 1e9
	p.DurationNanos = int64(r.IntN(3)) * 1e9
	for range r.IntN(3) {
		p.Comments = append(p.Comments, pick([]string{"a", "b", "c"}))
	}
	p.DocURL = pick([]string{"", "https://example.com/doc"})
	for range r.IntN(10) {
		var frames []int32
		for range r.IntN(6) {
			frames = append(frames, int32(r.IntN(nLoc)))
		}
		var labels []model.Label
		for range r.IntN(4) {
			l := model.Label{Key: pick(randKeys)}
			if r.IntN(2) == 0 {
				l.Str = pick(randValues)
			} else {
				l.Num = int64(r.IntN(3))
				l.NumUnit = pick(randUnits)
			}
			labels = append(labels, l)
		}
		vals := make([]int64, nTypes)
		for i := range vals {
			vals[i] = int64(r.IntN(7)) - 2
			if r.IntN(3) == 0 {
				vals[i] *= 1000
			}
		}
		if len(p.Samples) > 0 && r.IntN(3) == 0 {
			// The values of an earlier sample, in its array, as decoders
			// store samples of equal values.
			vals = p.Samples[r.IntN(len(p.Samples))].Values()
		}
		s := model.NewSample(b.Stack(frames), vals)
		s.LabelSet = b.LabelSet(labels)
		p.Samples = append(p.Samples, s)
	}
	return p
}
