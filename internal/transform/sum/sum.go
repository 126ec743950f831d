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
	"math"
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
// modify, but lets go of each one once it is added (in[i].Profile is nil
// when Sum returns): the sum and the inputs not yet added are then what
// memory holds. warn is told, once each, of what the inputs hold that the
// sum cannot.
func Sum(in []Input, warn func(string)) (*model.Profile, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("no profiles to add")
	}
	x := New(warn)
	for i := range in {
		if err := x.Add(in[i].Name, in[i].Profile); err != nil {
			return nil, err
		}
		in[i].Profile = nil
	}
	return x.Sum()
}

// A Summer adds profiles into one, as Sum does, one at a time: a caller
// that reads its inputs one by one holds the sum and one input, not every
// input. Sample types are matched as they come: a type first seen in a
// later input is added to the sum (zero in the samples before), and a
// finer unit of a type scales the values summed so far into it.
type Summer struct {
	warn  func(string)
	s     *summer
	first string // the first input's name
	n     int    // inputs added
	h     headers
}

// New returns a Summer; warn is told, once each, of what the inputs hold
// that the sum cannot (nil: nobody).
func New(warn func(string)) *Summer {
	if warn == nil {
		warn = func(string) {}
	}
	return &Summer{warn: warn, s: newSummer()}
}

// Add adds p, which it does not modify or hold, named name in errors and
// warnings. After an error, the Summer is not to be used.
func (x *Summer) Add(name string, p *model.Profile) error {
	cols, ratios, err := x.s.sampleTypes(name, p)
	if err != nil {
		return err
	}
	if err := x.h.add(x.s, name, p, x.warn); err != nil {
		return err
	}
	if x.n == 0 {
		x.first = name
		x.s.fit(p)
	}
	x.n++
	x.s.add(p, cols, ratios)
	return nil
}

// Sum returns the sum of the profiles added, at least one.
func (x *Summer) Sum() (*model.Profile, error) {
	if x.n == 0 {
		return nil, fmt.Errorf("no profiles to add")
	}
	x.h.finish(x.s)
	out := x.s.b.P
	// As profile.Merge: samples that added up to zero go, and what only
	// they used with them.
	if slices.ContainsFunc(out.Samples, zero) {
		y := New(x.warn)
		if err := y.Add(x.first, out); err != nil {
			return nil, err
		}
		return y.Sum()
	}
	return out, nil
}

func zero(s model.Sample) bool {
	for _, v := range s.Values() {
		if v != 0 {
			return false
		}
	}
	return true
}

// types are the sample types of the sum, as the inputs gave them so far.
type types struct {
	names []string // type names, in the order first seen
	units []string // each one's unit: the finest any input has it in
	from  []string // the input that gave each type its unit
	col   map[string]int
}

// sampleTypes returns where p's sample types go in the sum and the ratios
// that scale their values into the sum's units, adding the types the sum
// lacks and moving a type to a finer unit p has it in.
func (s *summer) sampleTypes(name string, p *model.Profile) ([]int, []float64, error) {
	t := &s.ty
	seen := map[string]bool{}
	cols := make([]int, len(p.SampleTypes))
	for j, st := range p.SampleTypes {
		typ, unit := p.String(st.Type), p.String(st.Unit)
		if seen[typ] {
			return nil, nil, &Error{[]string{name}, fmt.Errorf("sample type %q appears twice", typ)}
		}
		seen[typ] = true
		c, ok := t.col[typ]
		if ok {
			if u := t.units[c]; u != unit && !units.SameFamily(u, unit) {
				return nil, nil, &Error{[]string{t.from[c], name}, fmt.Errorf("sample type %s in %s and in %s: units that do not convert", typ, u, unit)}
			}
		}
		cols[j] = c
		if !ok {
			cols[j] = -1 // added below, once every type of p is known to fit
		}
	}
	ratios := make([]float64, len(p.SampleTypes))
	for j, st := range p.SampleTypes {
		typ, unit := p.String(st.Type), p.String(st.Unit)
		c := cols[j]
		if c < 0 {
			c = len(t.names)
			t.col[typ] = c
			t.names, t.units, t.from = append(t.names, typ), append(t.units, unit), append(t.from, name)
			s.addType(typ, unit, st.AggregationTemporality)
			cols[j] = c
		} else {
			if r, _ := units.Scale(1, unit, t.units[c]); r < 1 {
				// A finer unit: what the sum holds of the type is scaled
				// into it.
				r, _ = units.Scale(1, t.units[c], unit)
				s.scaleColumn(c, r)
				t.units[c], t.from[c] = unit, name
				s.b.P.SampleTypes[c].Unit = s.b.String(unit)
			}
			if vt := &s.b.P.SampleTypes[c]; vt.AggregationTemporality != st.AggregationTemporality {
				vt.AggregationTemporality = 0
			}
		}
	}
	for j, st := range p.SampleTypes {
		ratios[j] = 1
		if u := p.String(st.Unit); u != t.units[cols[j]] {
			ratios[j], _ = units.Scale(1, u, t.units[cols[j]])
		}
	}
	return cols, ratios, nil
}

// summer builds the sum, table by table, as profile.Merge's merger.
type summer struct {
	b  *model.Builder
	ty types

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
	// A sample with timestamps, never added to, takes the values of the
	// sample before it when they are equal and that sample had
	// timestamps too (lastRow): a JFR recording's CPU samples, a perf
	// script's of one period, share one array. Samples that share one are
	// next to each other (scaleColumn scales it once). Their timestamps
	// are cut from tsSlab.
	lastRow []int64
	tsSlab  []uint64

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

func newSummer() *summer {
	return &summer{b: model.NewBuilder(), ty: types{col: map[string]int{}}, mappings: map[mergekey.Mapping]int32{},
		links: map[string]int32{}, seed: maphash.MakeSeed()}
}

// addType adds a sample type to the sum: a column of zeros in the
// samples it holds.
func (s *summer) addType(typ, unit string, temporality int32) {
	out := s.b.P
	out.SampleTypes = append(out.SampleTypes, model.ValueType{Type: s.b.String(typ), Unit: s.b.String(unit),
		AggregationTemporality: temporality})
	if len(out.Samples) == 0 {
		return
	}
	s.valSlab, s.lastRow = nil, nil
	n := len(out.SampleTypes)
	for i := range out.Samples {
		v := out.Samples[i].Values()
		s.vals = append(append(s.vals[:0], v...), make([]int64, n-len(v))...)
		out.Samples[i].SetValues(cut(&s.valSlab, s.vals))
	}
}

// scaleColumn multiplies what the sum holds of type c by r, rounded, as
// pprof's ScaleProfiles scales each input.
func (s *summer) scaleColumn(c int, r float64) {
	out := s.b.P
	for i := range out.Samples {
		vs := out.Samples[i].Values()
		if i > 0 && &out.Samples[i-1].Values()[0] == &vs[0] {
			continue // shared with the sample before: scaled already
		}
		vs[c] = int64(math.Round(float64(vs[c]) * r))
	}
}

// fit makes the sum's tables at the size of the first input's: sums are
// mostly of alike profiles, and tables grown by copies would hold each
// one and a half times or twice while they grow.
func (s *summer) fit(p *model.Profile) {
	locs, funcs, samples := len(p.Locations), len(p.Functions), len(p.Samples)
	lines := 0
	for i := range p.Locations {
		lines += len(p.LinesOf(&p.Locations[i])) // the sum's locations share no lines
	}
	stacks, frames := p.Stacks.Len(), p.Stacks.NumFrames()
	out := s.b.P
	out.Locations = slices.Grow(out.Locations, locs)
	out.Lines = slices.Grow(out.Lines, lines)
	out.Functions = slices.Grow(out.Functions, funcs)
	out.Samples = slices.Grow(out.Samples, samples)
	out.Stacks.Fit(locs)
	out.Stacks.Grow(stacks, frames)
}
