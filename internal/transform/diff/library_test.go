package diff_test

import (
	"bytes"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/diff"
	"github.com/pprofx/pprofx/internal/transform/units"
)

// libraryDiff is the comparison made by google/pprof's own library, as
// pprof's driver makes it for -diff_base and -base: the model written
// as pprof, parsed by the library, merged there, and read back. It is
// the reference Diff is held to.
func libraryDiff(base, newp *model.Profile, o diff.Options) (*model.Profile, error) {
	pb, err := toLibrary(base)
	if err != nil {
		return nil, fmt.Errorf("base: %v", err)
	}
	pn, err := toLibrary(newp)
	if err != nil {
		return nil, fmt.Errorf("new: %v", err)
	}
	if !o.Subtract {
		pb.SetLabel("pprof::base", []string{"true"})
	}
	if o.Normalize {
		if err := pn.Normalize(pb); err != nil {
			return nil, fmt.Errorf("--normalize: %v", err)
		}
	}
	pb.Scale(-1)
	ps := []*profile.Profile{pn, pb}
	if err := profile.CompatibilizeSampleTypes(ps); err != nil {
		return nil, err
	}
	if err := libraryScale(ps); err != nil {
		return nil, err
	}
	merged, err := profile.Merge(ps)
	if err != nil {
		return nil, err
	}
	if err := merged.RemoveUninteresting(); err != nil {
		return nil, err
	}
	for _, m := range merged.Mapping {
		if u, err := url.Parse(m.File); m.BuildID == "" && filepath.VolumeName(m.File) == "" && err == nil && u.IsAbs() {
			m.File = ""
		}
	}
	if err := merged.CheckValid(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := merged.WriteUncompressed(&buf); err != nil {
		return nil, err
	}
	return pprof.DecodeRaw(buf.Bytes())
}

func toLibrary(p *model.Profile) (*profile.Profile, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return profile.ParseUncompressed(pprof.AppendRaw(nil, p))
}

// libraryScale is pprof's measurement.ScaleProfiles for profiles whose
// sample types match by name.
func libraryScale(ps []*profile.Profile) error {
	var periods []*profile.ValueType
	for _, p := range ps {
		periods = append(periods, p.PeriodType)
	}
	period, err := libraryCommon(periods)
	if err != nil {
		return err
	}
	common := make([]*profile.ValueType, len(ps[0].SampleType))
	for i := range common {
		var ts []*profile.ValueType
		for _, p := range ps {
			ts = append(ts, p.SampleType[i])
		}
		if common[i], err = libraryCommon(ts); err != nil {
			return err
		}
	}
	for _, p := range ps {
		v, _ := units.Scale(p.Period, p.PeriodType.Unit, period.Unit)
		p.Period, p.PeriodType.Unit = int64(v), period.Unit
		ratios := make([]float64, len(p.SampleType))
		for i, st := range p.SampleType {
			ratios[i], _ = units.Scale(1, st.Unit, common[i].Unit)
			st.Unit = common[i].Unit
		}
		if err := p.ScaleN(ratios); err != nil {
			return err
		}
	}
	return nil
}

func libraryCommon(ts []*profile.ValueType) (*profile.ValueType, error) {
	min := ts[0]
	for _, t := range ts[1:] {
		if strings.TrimSuffix(min.Type, "s") != strings.TrimSuffix(t.Type, "s") ||
			(min.Unit != t.Unit && !units.SameFamily(min.Unit, t.Unit)) {
			return nil, fmt.Errorf("incompatible types: %s/%s and %s/%s", min.Type, min.Unit, t.Type, t.Unit)
		}
		if r, _ := units.Scale(1, t.Unit, min.Unit); r < 1 {
			min = t
		}
	}
	c := *min
	return &c, nil
}
