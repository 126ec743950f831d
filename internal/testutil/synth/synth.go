// Package synth builds deterministic generated profiles for benchmarks
// and tests: shapes the real fixtures do not have (many distinct stacks,
// deep stacks, many locations).
package synth

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	gp "github.com/google/pprof/profile"
)

// Pprof builds a deterministic pprof profile with n samples (n <=
// 5*paths, each a distinct stack and label) over
// nfuncs functions, stacks of depth minDepth..maxDepth drawn from a set of
// call paths that share callers (as real profiles do), and a few labels.
func Pprof(n, nfuncs, minDepth, maxDepth, paths int) *gp.Profile {
	r := rand.New(rand.NewSource(1))
	m := &gp.Mapping{ID: 1, Start: 0x400000, Limit: 0x4000000, File: "/usr/bin/app", BuildID: "0123456789abcdef", HasFunctions: true, HasFilenames: true, HasLineNumbers: true}
	p := &gp.Profile{
		SampleType: []*gp.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &gp.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10000000,
		TimeNanos: 1763700000000000000, DurationNanos: 60e9, Mapping: []*gp.Mapping{m},
	}
	for i := 0; i < nfuncs; i++ {
		pkg := fmt.Sprintf("github.com/example/svc/pkg%d", i%37)
		p.Function = append(p.Function, &gp.Function{ID: uint64(i + 1), Name: fmt.Sprintf("%s.Func%d", pkg, i),
			SystemName: fmt.Sprintf("%s.Func%d", pkg, i), Filename: fmt.Sprintf("/src/%s/file%d.go", pkg, i%11), StartLine: int64(10 + i%400)})
	}
	locs := map[[2]int]*gp.Location{}
	location := func(f, line int) *gp.Location {
		k := [2]int{f, line}
		if l, ok := locs[k]; ok {
			return l
		}
		l := &gp.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: uint64(0x400000 + 64*len(p.Location)),
			Line: []gp.Line{{Function: p.Function[f], Line: int64(line)}}}
		locs[k] = l
		p.Location = append(p.Location, l)
		return l
	}
	// Call paths: each extends a random earlier one (shared callers).
	var all [][]*gp.Location
	for i := 0; i < paths; i++ {
		var path []*gp.Location
		if i > 0 && r.Intn(4) != 0 {
			base := all[r.Intn(len(all))]
			path = append(path, base[:r.Intn(len(base))+1]...)
		}
		depth := minDepth + r.Intn(maxDepth-minDepth+1)
		for len(path) < depth {
			path = append(path, location(r.Intn(nfuncs), 1+r.Intn(30)))
		}
		all = append(all, path[:depth])
	}
	// Each sample is a distinct (stack, label) pair, as in a pprof file
	// written by a profiler that aggregates.
	workers := []string{"ingest", "query", "compact", "gc", "flush"}
	for i := 0; i < n; i++ {
		path := all[i%len(all)]
		worker := workers[(i/len(all))%len(workers)]
		stack := make([]*gp.Location, len(path))
		for j := range path { // leaf first
			stack[j] = path[len(path)-1-j]
		}
		v := int64(1 + r.Intn(3))
		p.Sample = append(p.Sample, &gp.Sample{Location: stack, Value: []int64{v, v * 10000000},
			Label: map[string][]string{"worker": {worker}}})
	}
	return p
}

// Shape is a named generated profile.
type Shape struct {
	Name string
	P    *gp.Profile
}

// Shapes are generated profiles of the shapes writers size their output
// for: many distinct stacks of moderate depth, deep stacks, and many
// distinct stacks over many functions and locations.
func Shapes() []Shape {
	return []Shape{
		{"synthetic-20k", Pprof(20000, 3000, 8, 40, 4000)},
		{"deep-stacks", Pprof(5000, 800, 100, 180, 1000)},
		{"wide", Pprof(20000, 20000, 60, 120, 20000)},
	}
}

// Input is a named pprof file's bytes.
type Input struct {
	Name string
	Data []byte
}

// Inputs returns the pprof files named, then the Shapes, encoded.
func Inputs(tb testing.TB, files []string) []Input {
	tb.Helper()
	var in []Input
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		in = append(in, Input{filepath.Base(f), data})
	}
	for _, s := range Shapes() {
		var buf bytes.Buffer
		if err := s.P.Write(&buf); err != nil {
			tb.Fatal(err)
		}
		in = append(in, Input{s.Name, buf.Bytes()})
	}
	return in
}
