// Package sum adds profiles into one, as google/pprof's profile.Merge
// does, on pprofx's model: sample types are matched by name (a type some
// inputs lack counts zero in them), units of one family go to the finest
// (pprof's measurement.ScaleProfiles), mappings of one binary loaded at
// other addresses are matched and addresses moved into the first one's,
// equal locations, functions and samples are stored once, the values of
// equal samples added, headers combined as profile.Merge combines them.
//
// It works on the model rather than through pprof's library so that what
// profile.proto has no field for stays: sample timestamps and links,
// OpenTelemetry attributes of locations and mappings, and the resource,
// scope and attributes of the profile when every input has the same.
package sum

import (
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/pprofx/pprofx/internal/hashindex"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/mergekey"
	"github.com/pprofx/pprofx/internal/transform/units"
)

// Input is one profile to add, with the name errors and warnings give it.
type Input struct {
	Name    string
	Profile *model.Profile
}

// Error is an input that cannot be added to the others.
type Error struct {
	Names []string // the inputs concerned
	Err   error
}

func (e *Error) Error() string { return e.Err.Error() }

// Sum returns the sum of the inputs (at least one), which it does not
// modify. warn is told, once each, of what the inputs hold that the sum
// cannot.
func Sum(in []Input, warn func(string)) (*model.Profile, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("no profiles to add")
	}
	if warn == nil {
		warn = func(string) {}
	}
	ty, err := sampleTypes(in)
	if err != nil {
		return nil, err
	}
	s := newSummer(ty)
	if err := s.header(in, warn); err != nil {
		return nil, err
	}
	s.fit(in)
	for i, x := range in {
		s.add(x.Profile, ty.cols[i], ty.ratios[i])
	}
	out := s.b.P
	// As profile.Merge: samples that added up to zero go, and what only
	// they used with them.
	if slices.ContainsFunc(out.Samples, zero) {
		return Sum([]Input{{Name: in[0].Name, Profile: out}}, warn)
	}
	return out, nil
}

func zero(s model.Sample) bool {
	for _, v := range s.Values {
		if v != 0 {
			return false
		}
	}
	return true
}

// types are the sample types of the sum and where each input's go.
type types struct {
	names  []string // type names, in the order first seen
	units  []string // each one's unit: the finest any input has it in
	temp   []int32  // aggregation temporality, when all agree; else 0
	cols   [][]int  // cols[i][j]: the column of input i's type j
	ratios [][]float64
}

func sampleTypes(in []Input) (*types, error) {
	t := &types{cols: make([][]int, len(in)), ratios: make([][]float64, len(in))}
	col := map[string]int{}
	from := []string{} // the input that gave each type its unit
	tempSeen := []bool{}
	for i, x := range in {
		p := x.Profile
		seen := map[string]bool{}
		for _, st := range p.SampleTypes {
			name, unit := p.String(st.Type), p.String(st.Unit)
			if seen[name] {
				return nil, &Error{[]string{x.Name}, fmt.Errorf("sample type %q appears twice", name)}
			}
			seen[name] = true
			c, ok := col[name]
			if !ok {
				c = len(t.names)
				col[name] = c
				t.names, t.units, t.temp = append(t.names, name), append(t.units, unit), append(t.temp, st.AggregationTemporality)
				from, tempSeen = append(from, x.Name), append(tempSeen, true)
			} else {
				if u := t.units[c]; u != unit && !units.SameFamily(u, unit) {
					return nil, &Error{[]string{from[c], x.Name}, fmt.Errorf("sample type %s in %s and in %s: units that do not convert", name, u, unit)}
				}
				if r, _ := units.Scale(1, unit, t.units[c]); r < 1 {
					t.units[c], from[c] = unit, x.Name
				}
				if t.temp[c] != st.AggregationTemporality {
					t.temp[c] = 0
				}
			}
			t.cols[i] = append(t.cols[i], c)
		}
	}
	for i, x := range in {
		p := x.Profile
		t.ratios[i] = make([]float64, len(p.SampleTypes))
		for j, st := range p.SampleTypes {
			t.ratios[i][j] = 1
			if u := p.String(st.Unit); u != t.units[t.cols[i][j]] {
				t.ratios[i][j], _ = units.Scale(1, u, t.units[t.cols[i][j]])
			}
		}
	}
	return t, nil
}

// summer builds the sum, table by table, as profile.Merge's merger.
type summer struct {
	b  *model.Builder
	ty *types

	mappings map[mergekey.Mapping]int32
	links    map[string]int32
	// The sum's functions by value; its locations, and its samples
	// without timestamps, by profile.Merge's keys of them (each key is
	// made again from the sum's entry to compare or place it).
	seed                       maphash.Seed
	functions, locations, smps hashindex.Index

	// Per input: where its table entries went (-2: not yet).
	mapIdx  []mapInfo
	funcIdx []int32
	locIdx  []int32

	// The sum's samples' values are cut from this array, made a few
	// thousand entries at a time. (Its locations' lines are its table of
	// lines.)
	valSlab []int64

	// Scratch.
	key, key2 []byte
	frames    []int32
	lines     []model.Line
	cols      []int64 // lines' columns
	cols2     []int64 // scratch of sumLocationKey
	vals      []int64
}

type mapInfo struct {
	m      int32 // the sum's mapping, or NoMapping
	offset int64 // added to the input's addresses
	done   bool
}

func newSummer(ty *types) *summer {
	b := model.NewBuilder()
	p := b.P
	for c, name := range ty.names {
		p.SampleTypes = append(p.SampleTypes, model.ValueType{Type: b.String(name), Unit: b.String(ty.units[c]),
			AggregationTemporality: ty.temp[c]})
	}
	return &summer{b: b, ty: ty, mappings: map[mergekey.Mapping]int32{}, links: map[string]int32{}, seed: maphash.MakeSeed()}
}

// fit makes the sum's tables at the size of the largest input's: sums
// are mostly of alike profiles, and tables grown by copies would hold
// each one and a half times or twice while they grow.
func (s *summer) fit(in []Input) {
	var locs, lines, funcs, stacks, frames, samples int
	for _, x := range in {
		p := x.Profile
		locs, funcs, samples = max(locs, len(p.Locations)), max(funcs, len(p.Functions)), max(samples, len(p.Samples))
		n := 0
		for i := range p.Locations {
			n += len(p.LinesOf(&p.Locations[i]))
		}
		lines = max(lines, n) // the sum's locations share no lines
		stacks, frames = max(stacks, p.Stacks.Len()), max(frames, p.Stacks.NumFrames())
	}
	out := s.b.P
	out.Locations = slices.Grow(out.Locations, locs)
	out.Lines = slices.Grow(out.Lines, lines)
	out.Functions = slices.Grow(out.Functions, funcs)
	out.Samples = slices.Grow(out.Samples, samples)
	out.Stacks.Fit(locs)
	out.Stacks.Grow(stacks, frames)
}
