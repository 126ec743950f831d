// Package diff compares two profiles as google/pprof's -diff_base and
// -base do: NEW and BASE merged, BASE's values negated.
//
// It does on the model what pprof's driver does with its library
// (CompatibilizeSampleTypes, ScaleProfiles, Normalize, Scale, SetLabel,
// Merge, RemoveUninteresting), step by step and with pprof's keys: which
// samples, locations, functions and mappings are the same, BASE's
// addresses moved into NEW's mapping of a binary loaded elsewhere, the
// headers combined. The result is the profile pprof -proto writes, read
// back as pprofx's pprof reader reads it; the tests hold it to what the
// library and the pprof command make of the same inputs. What pprof
// cannot hold (OpenTelemetry attributes, sample timestamps and links, the
// resource) is named in a warning, as a pprof output would name it.
//
// Working on the model, a comparison holds the two inputs and the result
// at once, and little more: the library's profiles take a pointer and a
// location id a frame, and a string key a sample.
package diff

import (
	"fmt"
	"strings"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
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
	return fmt.Sprintf("no sample type in common (base: %s; new: %s)", typeList(e.Base), typeList(e.New))
}

func typeList(types []string) string {
	if len(types) == 0 {
		return "none"
	}
	return strings.Join(types, ", ")
}

// Diff returns NEW minus BASE as pprof -proto -diff_base=BASE NEW (or
// -base=BASE with Subtract) writes it. base and newp are not modified.
// warn is told what the inputs hold that the result cannot.
func Diff(base, newp *model.Profile, o Options, warn func(string)) (*model.Profile, error) {
	for _, p := range []*model.Profile{base, newp} {
		if err := p.Validate(); err != nil {
			return nil, err
		}
	}
	if warn != nil {
		for _, p := range []*model.Profile{newp, base} {
			if m := pprof.Unrepresentable(p); m != "" {
				warn(m)
			}
		}
	}
	if err := model.CheckAvailableNow("diff", mergeMem(base, newp), "comparing the two profiles"); err != nil {
		return nil, err
	}
	pb, pn := newSide(base), newSide(newp)
	pb.base = !o.Subtract
	if o.Normalize {
		if err := pn.normalize(pb); err != nil {
			return nil, fmt.Errorf("--normalize: %v", err)
		}
	}
	pb.scale(-1)
	ps := []*side{pn, pb}
	if !sharesType(ps) {
		return nil, &NoCommonTypeError{Base: pb.typeNames(), New: pn.typeNames()}
	}
	types := commonTypes(ps)
	if len(types) == 0 {
		return nil, fmt.Errorf("profiles have empty common sample type list")
	}
	for _, s := range ps {
		if err := s.compatibilize(types); err != nil {
			return nil, err
		}
	}
	if err := scaleUnits(ps); err != nil {
		return nil, err
	}
	h, err := combine(ps)
	if err != nil {
		return nil, err
	}
	m := newMerger(len(h.types), ps)
	for _, s := range ps {
		m.add(s, s.base)
		// Diff holds an input no longer once it is merged: a caller that
		// does not either lets it go (the command line does).
		s.p, s.samples, s.rowOf, s.rows = nil, nil, nil, nil
	}
	m.done()
	m.compact()
	if err := m.prune(h.dropFrames, h.keepFrames); err != nil {
		return nil, err
	}
	// What pprof's driver does to mappings named by a URL without a
	// build id: it forgets the name.
	for i := range m.mappings {
		if mp := &m.mappings[i]; mp.buildID == "" && isAbsURL(mp.file) {
			mp.file = ""
		}
	}
	return m.profile(h), nil
}

// mergeMem is about what a comparison takes beside its inputs: the
// result, at most both (each input's MemSize), the merge's indexes of
// locations, stacks and samples, and its label sets: pprof's key of each
// (the labels' bytes), its index, the result's label sets and its index
// of them, about 128 bytes a set and 48 a label. (Comparing two perf scripts of 1M
// samples, each its own label set, ran out of memory under ulimit -v
// while label sets were not counted.)
func mergeMem(ps ...*model.Profile) int64 {
	var n int64
	for _, p := range ps {
		n += p.MemSize() + 40*int64(len(p.Locations)+p.Stacks.Len()+len(p.Samples))
		n += 128 * int64(len(p.LabelSets))
		for i := range p.LabelSets {
			n += 48 * int64(len(p.LabelSets[i].Labels())+len(p.LabelSets[i].Attributes()))
		}
	}
	return n
}

// BaseSamples returns a test of d's samples: true for those labelled
// pprof::base=true, BASE's in a profile Diff made without Subtract.
func BaseSamples(d *model.Profile) func(*model.Sample) bool {
	base := make([]bool, len(d.LabelSets))
	for i, ls := range d.LabelSets {
		for _, l := range ls.Labels() {
			if l.Str != 0 && d.String(l.Key) == "pprof::base" && d.String(l.Str) == "true" {
				base[i] = true
			}
		}
	}
	return func(s *model.Sample) bool {
		return s.LabelSet >= 0 && int(s.LabelSet) < len(base) && base[s.LabelSet]
	}
}
