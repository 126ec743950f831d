package diff

import (
	"fmt"
	"math"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/units"
)

// valueType is a sample or period type by its strings, as pprof's library
// holds it.
type valueType struct{ typ, unit string }

func (t valueType) String() string { return t.typ + "/" + t.unit }

// side is one input on its way into the merge: the samples pprof's
// library keeps of it and their values, in its sample types as they are
// reconciled with the other input's. The profile itself is not changed.
type side struct {
	p          *model.Profile
	types      []valueType
	period     valueType
	periodVal  int64
	defaultTyp string  // the default sample type's type, "" when unset
	samples    []int32 // indices into p.Samples, in order
	rowOf      []int32 // per entry of samples, its row of values in rows
	rows       []int64 // len(types) values a row
	base       bool    // BASE's samples, labelled pprof::base=true
}

// maxSharedRows is how many arrays of values newSide looks samples up by.
const maxSharedRows = 1 << 12

func newSide(p *model.Profile) *side {
	s := &side{
		p:          p,
		period:     valueType{p.String(p.PeriodType.Type), p.String(p.PeriodType.Unit)},
		periodVal:  p.Period,
		defaultTyp: p.String(p.DefaultSampleType),
	}
	for _, t := range p.SampleTypes {
		s.types = append(s.types, valueType{p.String(t.Type), p.String(t.Unit)})
	}
	// Samples that share an array of values in p (a decoder's samples of
	// equal values: a JFR recording's CPU samples) share a row: values
	// are scaled row by row, as pprof scales them sample by sample. The
	// arrays are found by their address: the one of the sample before, or
	// the first maxSharedRows of them.
	n := len(s.types)
	s.samples = make([]int32, len(p.Samples))
	s.rowOf = make([]int32, len(p.Samples))
	s.rows = make([]int64, 0, n*min(len(p.Samples), maxSharedRows))
	seen := map[*int64]int32{}
	rows := int32(0)
	var prev *int64 // the array of the sample before, nil if none
	for i := range p.Samples {
		s.samples[i] = int32(i)
		v := p.Samples[i].Values()
		if len(v) > 0 {
			if &v[0] == prev {
				s.rowOf[i] = s.rowOf[i-1]
				continue
			}
			prev = &v[0]
			if r, ok := seen[&v[0]]; ok {
				s.rowOf[i] = r
				continue
			}
			if len(seen) < maxSharedRows {
				seen[&v[0]] = rows
			}
		} else {
			prev = nil
		}
		s.rows = append(s.rows, make([]int64, n)...)
		copy(s.rows[int(rows)*n:], v[:min(len(v), n)])
		s.rowOf[i] = rows
		rows++
	}
	return s
}

func (s *side) typeNames() []string {
	out := make([]string, len(s.types))
	for i, t := range s.types {
		out[i] = t.String()
	}
	return out
}

// values returns the values of entry j of s.samples.
func (s *side) values(j int) []int64 {
	n, r := len(s.types), int(s.rowOf[j])
	return s.rows[r*n : (r+1)*n]
}

// scaleN is pprof's Profile.ScaleN: each value times the ratio of its
// type, rounded, and only the samples kept that have a value other than
// zero among those scaled (a ratio of 1 leaves its values out of it).
func (s *side) scaleN(ratios []float64) {
	allOnes := true
	for _, r := range ratios {
		allOnes = allOnes && r == 1
	}
	if allOnes {
		return
	}
	n := len(s.types)
	keepRow := make([]bool, len(s.rows)/n)
	for r := range keepRow {
		v := s.rows[r*n : (r+1)*n]
		for i := range v {
			if ratios[i] != 1 {
				v[i] = int64(math.Round(float64(v[i]) * ratios[i]))
				keepRow[r] = keepRow[r] || v[i] != 0
			}
		}
	}
	k := 0
	for j := range s.samples {
		if keepRow[s.rowOf[j]] {
			s.samples[k], s.rowOf[k] = s.samples[j], s.rowOf[j]
			k++
		}
	}
	s.samples, s.rowOf = s.samples[:k], s.rowOf[:k]
}

func (s *side) scale(ratio float64) {
	ratios := make([]float64, len(s.types))
	for i := range ratios {
		ratios[i] = ratio
	}
	s.scaleN(ratios)
}

func (s *side) sums() []int64 {
	sum := make([]int64, len(s.types))
	for j := range s.samples {
		for i, v := range s.values(j) {
			sum[i] += v
		}
	}
	return sum
}

// compatible is pprof's Profile.compatible: the same period type and the
// same sample types in the same order.
func (s *side) compatible(o *side) error {
	if s.period != o.period {
		return fmt.Errorf("incompatible period types %s and %s", s.period, o.period)
	}
	if len(s.types) != len(o.types) {
		return fmt.Errorf("incompatible sample types [%s] and [%s]", strings.Join(s.typeNames(), " "), strings.Join(o.typeNames(), " "))
	}
	for i := range s.types {
		if s.types[i] != o.types[i] {
			return fmt.Errorf("incompatible sample types [%s] and [%s]", strings.Join(s.typeNames(), " "), strings.Join(o.typeNames(), " "))
		}
	}
	return nil
}

// normalize is pprof's Profile.Normalize: s scaled, type by type, to
// base's total.
func (s *side) normalize(base *side) error {
	if err := s.compatible(base); err != nil {
		return err
	}
	bv, sv := base.sums(), s.sums()
	ratios := make([]float64, len(bv))
	for i := range bv {
		if sv[i] != 0 {
			ratios[i] = float64(bv[i]) / float64(sv[i])
		}
	}
	s.scaleN(ratios)
	return nil
}

// commonTypes is pprof's commonSampleTypes: the types of ps[0] that each
// profile's types name as often as there are profiles.
func commonTypes(ps []*side) []string {
	n := map[string]int{}
	for _, p := range ps {
		for _, t := range p.types {
			n[t.typ]++
		}
	}
	var out []string
	for _, t := range ps[0].types {
		if n[t.typ] == len(ps) {
			out = append(out, t.typ)
		}
	}
	return out
}

// sharesType reports whether every profile has a sample type of some
// type name ps[0] has.
func sharesType(ps []*side) bool {
	for _, t := range ps[0].types {
		all := true
		for _, p := range ps[1:] {
			found := false
			for _, u := range p.types {
				found = found || u.typ == t.typ
			}
			all = all && found
		}
		if all {
			return true
		}
	}
	return false
}

// compatibilize is pprof's compatibilizeSampleTypes: s keeps the types
// named, in their order, and its default type when it is one of them.
func (s *side) compatibilize(types []string) error {
	def := types[0]
	remap, changed := make([]int, len(types)), false
	for i, t := range types {
		if t == s.defaultTyp {
			def = s.defaultTyp
		}
		idx := -1
		for k, u := range s.types {
			if u.typ == t {
				idx = k
				break
			}
		}
		if idx < 0 {
			return fmt.Errorf("%q sample type is not found in profile", t)
		}
		remap[i] = idx
		changed = changed || idx != i
	}
	if !changed && len(types) == len(s.types) {
		return nil
	}
	s.defaultTyp = def
	old, n := s.types, len(s.types)
	s.types = make([]valueType, len(types))
	for i, idx := range remap {
		s.types[i] = old[idx]
	}
	rows := make([]int64, len(s.rows)/n*len(types))
	for r := range len(s.rows) / n {
		for i, idx := range remap {
			rows[r*len(types)+i] = s.rows[r*n+idx]
		}
	}
	s.rows = rows
	return nil
}

// scaleUnits is pprof's measurement.ScaleProfiles for profiles whose
// sample types already match by name: each sample type, and the period,
// goes to the finest unit any of the profiles has it in.
func scaleUnits(ps []*side) error {
	periods := make([]valueType, len(ps))
	for i, p := range ps {
		periods[i] = p.period
	}
	period, err := commonValueType(periods)
	if err != nil {
		return fmt.Errorf("period type: %v", err)
	}
	n := len(ps[0].types)
	for _, p := range ps[1:] {
		if len(p.types) != n {
			return fmt.Errorf("inconsistent samples type count: %d != %d", n, len(p.types))
		}
	}
	common := make([]valueType, n)
	for i := range n {
		ts := make([]valueType, len(ps))
		for j, p := range ps {
			ts[j] = p.types[i]
		}
		if common[i], err = commonValueType(ts); err != nil {
			return fmt.Errorf("sample types: %v", err)
		}
	}
	for _, p := range ps {
		v, _ := units.Scale(p.periodVal, p.period.unit, period.unit)
		p.periodVal, p.period.unit = int64(v), period.unit
		ratios := make([]float64, len(p.types))
		for i, t := range p.types {
			ratios[i], _ = units.Scale(1, t.unit, common[i].unit)
			p.types[i].unit = common[i].unit
		}
		p.scaleN(ratios)
	}
	return nil
}

// commonValueType is the finest of compatible value types: types equal
// but for a trailing "s", units equal or of one family.
func commonValueType(ts []valueType) (valueType, error) {
	min := ts[0]
	for _, t := range ts[1:] {
		if !compatible(min, t) {
			return valueType{}, fmt.Errorf("incompatible types: %s and %s", min, t)
		}
		if r, _ := units.Scale(1, t.unit, min.unit); r < 1 {
			min = t
		}
	}
	return min, nil
}

func compatible(a, b valueType) bool {
	if strings.TrimSuffix(a.typ, "s") != strings.TrimSuffix(b.typ, "s") {
		return false
	}
	return a.unit == b.unit || units.SameFamily(a.unit, b.unit)
}
