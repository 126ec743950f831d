// Package diff compares two profiles as google/pprof's -diff_base and
// -base do: NEW and BASE merged, BASE's values negated.
//
// It goes through google/pprof's own library (profile.Merge,
// CompatibilizeSampleTypes, Normalize, Scale, SetLabel,
// RemoveUninteresting) rather than reimplementing them on the model:
// merging decides which samples, locations, functions and mappings are
// the same, relocates BASE's addresses into NEW's mappings of the same
// binary loaded elsewhere, and combines the headers, and only pprof's code
// is sure to decide all of that as pprof does. The model goes to pprof's
// Profile through pprofx's pprof writer and comes back through its
// reader, which keep everything profile.proto holds; what it cannot hold
// (OpenTelemetry attributes, sample timestamps and links, the resource)
// is named in a warning, as a pprof output would name it.
package diff

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/memlimit"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/units"
)

// Options choose pprof's variant of the comparison.
type Options struct {
	// Subtract is pprof's -base: BASE is subtracted without the
	// pprof::base=true label, so that equal stacks cancel. The default is
	// -diff_base: BASE's samples keep their own stacks, labelled.
	Subtract bool
	// Normalize is pprof's -normalize: NEW's values are scaled so that its
	// total per sample type is BASE's, sample by sample, before merging.
	Normalize bool
}

// NoCommonTypeError says that the two profiles share no sample type.
type NoCommonTypeError struct{ Base, New []string }

func (e *NoCommonTypeError) Error() string {
	return fmt.Sprintf("no sample type in common (base: %s; new: %s)", strings.Join(e.Base, ", "), strings.Join(e.New, ", "))
}

// Diff returns NEW minus BASE as pprof -proto -diff_base=BASE NEW (or
// -base=BASE with Subtract) writes it. base and newp are not modified.
// warn is told what the inputs hold that the result cannot.
func Diff(base, newp *model.Profile, o Options, warn func(string)) (*model.Profile, error) {
	if warn != nil {
		for _, p := range []*model.Profile{newp, base} {
			if m := pprof.Unrepresentable(p); m != "" {
				warn(m)
			}
		}
	}
	need := 2 * (libraryMem(base) + libraryMem(newp))
	if err := model.CheckAvailableNow("diff", need, "comparing the two profiles in google/pprof's library"); err != nil {
		return nil, err
	}
	// More than the bound of the inputs, by design: the garbage
	// collector is not to be held to it.
	memlimit.Expect(need)
	pb, err := toPprof(base)
	if err != nil {
		return nil, fmt.Errorf("base: %v", err)
	}
	pn, err := toPprof(newp)
	if err != nil {
		return nil, fmt.Errorf("new: %v", err)
	}
	merged, err := diffPprof(pb, pn, o)
	if err != nil {
		return nil, err
	}
	return fromPprof(merged)
}

// diffPprof is pprof's fetchProfiles with one source and one base.
func diffPprof(pbase, p *profile.Profile, o Options) (*profile.Profile, error) {
	if !o.Subtract {
		pbase.SetLabel("pprof::base", []string{"true"})
	}
	if o.Normalize {
		if err := p.Normalize(pbase); err != nil {
			return nil, fmt.Errorf("--normalize: %v", err)
		}
	}
	pbase.Scale(-1)
	ps := []*profile.Profile{p, pbase}
	if len(commonTypes(ps)) == 0 {
		return nil, &NoCommonTypeError{Base: typeNames(pbase), New: typeNames(p)}
	}
	if err := profile.CompatibilizeSampleTypes(ps); err != nil {
		return nil, err
	}
	if err := scaleProfiles(ps); err != nil {
		return nil, err
	}
	merged, err := profile.Merge(ps)
	if err != nil {
		return nil, err
	}
	// What pprof does to every profile it fetched, before -proto writes it.
	if err := merged.RemoveUninteresting(); err != nil {
		return nil, err
	}
	unsourceMappings(merged)
	if err := merged.CheckValid(); err != nil {
		return nil, err
	}
	return merged, nil
}

func typeNames(p *profile.Profile) []string {
	var out []string
	for _, st := range p.SampleType {
		out = append(out, st.Type+"/"+st.Unit)
	}
	return out
}

func commonTypes(ps []*profile.Profile) []string {
	n := map[string]int{}
	for _, p := range ps {
		seen := map[string]bool{}
		for _, st := range p.SampleType {
			if !seen[st.Type] {
				seen[st.Type] = true
				n[st.Type]++
			}
		}
	}
	var out []string
	for _, st := range ps[0].SampleType {
		if n[st.Type] == len(ps) {
			out = append(out, st.Type)
		}
	}
	return out
}

// libraryMem is about what p takes as google/pprof's Profile, on its way
// there and in it: per frame of a sample, its location id as encoded, as
// read and as a pointer (20 bytes); per sample, location, function and
// mapping, their structs and slices. Both profiles and their merge are
// held at once, so Diff counts twice both.
func libraryMem(p *model.Profile) int64 {
	n := 160*int64(len(p.Samples)) + 256*int64(len(p.Locations)) + 128*int64(len(p.Functions)+len(p.Mappings))
	for i := range p.Samples {
		s := &p.Samples[i]
		n += 20*int64(p.Stacks.StackLen(int(s.Stack))) + 8*int64(len(s.Values))
	}
	for _, s := range p.Strings {
		n += 16 + int64(len(s))
	}
	return n
}

// toPprof converts a model profile to pprof's Profile through pprofx's
// pprof writer.
func toPprof(p *model.Profile) (*profile.Profile, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return profile.ParseUncompressed(pprof.AppendRaw(nil, p))
}

// fromPprof converts back through pprofx's pprof reader.
func fromPprof(p *profile.Profile) (*model.Profile, error) {
	var buf bytes.Buffer
	if err := p.WriteUncompressed(&buf); err != nil {
		return nil, err
	}
	return pprof.DecodeRaw(buf.Bytes())
}

// unsourceMappings is what pprof's driver does to mappings named by a URL
// without a build id: it forgets the name.
func unsourceMappings(p *profile.Profile) {
	for _, m := range p.Mapping {
		if m.BuildID == "" && isAbsURL(m.File) {
			m.File = ""
		}
	}
}

// scaleProfiles is pprof's measurement.ScaleProfiles for profiles whose
// sample types already match by name: each sample type, and the period,
// goes to the finest unit any of the profiles has it in.
func scaleProfiles(ps []*profile.Profile) error {
	var periods []*profile.ValueType
	for _, p := range ps {
		if p.PeriodType != nil {
			periods = append(periods, p.PeriodType)
		}
	}
	period, err := commonValueType(periods)
	if err != nil {
		return fmt.Errorf("period type: %v", err)
	}
	n := len(ps[0].SampleType)
	for _, p := range ps[1:] {
		if len(p.SampleType) != n {
			return fmt.Errorf("inconsistent samples type count: %d != %d", n, len(p.SampleType))
		}
	}
	common := make([]*profile.ValueType, n)
	for i := range n {
		ts := make([]*profile.ValueType, len(ps))
		for j, p := range ps {
			ts[j] = p.SampleType[i]
		}
		if common[i], err = commonValueType(ts); err != nil {
			return fmt.Errorf("sample types: %v", err)
		}
	}
	for _, p := range ps {
		if p.PeriodType != nil && period != nil {
			v, _ := units.Scale(p.Period, p.PeriodType.Unit, period.Unit)
			p.Period, p.PeriodType.Unit = int64(v), period.Unit
		}
		ratios := make([]float64, len(p.SampleType))
		for i, st := range p.SampleType {
			if common[i] == nil {
				ratios[i] = 1
				continue
			}
			ratios[i], _ = units.Scale(1, st.Unit, common[i].Unit)
			st.Unit = common[i].Unit
		}
		if err := p.ScaleN(ratios); err != nil {
			return fmt.Errorf("scale: %v", err)
		}
	}
	return nil
}

// commonValueType is the finest of compatible value types (nil for fewer
// than two): types equal but for a trailing "s", units equal or of one
// family.
func commonValueType(ts []*profile.ValueType) (*profile.ValueType, error) {
	if len(ts) <= 1 {
		return nil, nil
	}
	min := ts[0]
	for _, t := range ts[1:] {
		if !compatible(min, t) {
			return nil, fmt.Errorf("incompatible types: %s/%s and %s/%s", min.Type, min.Unit, t.Type, t.Unit)
		}
		if r, _ := units.Scale(1, t.Unit, min.Unit); r < 1 {
			min = t
		}
	}
	c := *min
	return &c, nil
}

func compatible(a, b *profile.ValueType) bool {
	if a == nil || b == nil {
		return true
	}
	if strings.TrimSuffix(a.Type, "s") != strings.TrimSuffix(b.Type, "s") {
		return false
	}
	return a.Unit == b.Unit || units.SameFamily(a.Unit, b.Unit)
}

// BaseSamples returns a test of d's samples: true for those labelled
// pprof::base=true, BASE's in a profile Diff made without Subtract.
func BaseSamples(d *model.Profile) func(*model.Sample) bool {
	base := make([]bool, len(d.LabelSets))
	for i, ls := range d.LabelSets {
		for _, l := range ls.Labels {
			if l.Str != 0 && d.String(l.Key) == "pprof::base" && d.String(l.Str) == "true" {
				base[i] = true
			}
		}
	}
	return func(s *model.Sample) bool {
		return s.LabelSet >= 0 && int(s.LabelSet) < len(base) && base[s.LabelSet]
	}
}
