package officialtest

import (
	"fmt"
	"strings"

	"github.com/google/pprof/profile"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// pdataToPprof reads the one scope of ps through pdata's own API, by the
// semantic conventions alone (nothing inferred), into a google/pprof
// profile: what a collector component sees of pprofx's output.
func pdataToPprof(ps pprofile.Profiles) (*profile.Profile, error) {
	d := ps.Dictionary()
	strs := d.StringTable()
	str := func(i int32) string { return strs.At(int(i)) }
	if ps.ResourceProfiles().Len() != 1 || ps.ResourceProfiles().At(0).ScopeProfiles().Len() != 1 {
		return nil, fmt.Errorf("want one resource and one scope")
	}
	sp := ps.ResourceProfiles().At(0).ScopeProfiles().At(0)
	p := &profile.Profile{}
	n := sp.Profiles().Len()
	order := make([]int, n)
	for k := range order {
		order[k] = k
	}
	if v, ok := sp.Scope().Attributes().Get("pprof.scope.sample_type_order"); ok {
		for k := range order {
			order[k] = int(v.Slice().At(k).Int())
		}
	}
	if v, ok := sp.Scope().Attributes().Get("pprof.scope.default_sample_type"); ok {
		p.DefaultSampleType = v.Str()
	}
	attr := func(i int32) (string, pcommon.Value, string) {
		a := d.AttributeTable().At(int(i))
		return str(a.KeyStrindex()), a.Value(), str(a.UnitStrindex())
	}
	mt := d.MappingTable()
	for i := 1; i < mt.Len(); i++ {
		m := mt.At(i)
		pm := &profile.Mapping{ID: uint64(i), Start: m.MemoryStart(), Limit: m.MemoryLimit(), Offset: m.FileOffset(), File: str(m.FilenameStrindex())}
		for j := 0; j < m.AttributeIndices().Len(); j++ {
			k, v, _ := attr(m.AttributeIndices().At(j))
			if err := setMappingAttr(pm, k, v.Str, v.Bool); err != nil {
				return nil, err
			}
		}
		p.Mapping = append(p.Mapping, pm)
	}
	ft := d.FunctionTable()
	funcs := make([]*profile.Function, ft.Len())
	for i := 1; i < ft.Len(); i++ {
		f := ft.At(i)
		funcs[i] = &profile.Function{ID: uint64(i), Name: str(f.NameStrindex()), SystemName: str(f.SystemNameStrindex()),
			Filename: str(f.FilenameStrindex()), StartLine: f.StartLine()}
		p.Function = append(p.Function, funcs[i])
	}
	lt := d.LocationTable()
	locs := make([]*profile.Location, lt.Len())
	for i := 1; i < lt.Len(); i++ {
		l := lt.At(i)
		pl := &profile.Location{ID: uint64(i), Address: l.Address()}
		if l.MappingIndex() > 0 {
			pl.Mapping = p.Mapping[l.MappingIndex()-1]
		}
		for j := 0; j < l.Lines().Len(); j++ {
			ln := l.Lines().At(j)
			pl.Line = append(pl.Line, profile.Line{Function: funcs[ln.FunctionIndex()], Line: ln.Line(), Column: ln.Column()})
		}
		for j := 0; j < l.AttributeIndices().Len(); j++ {
			if k, v, _ := attr(l.AttributeIndices().At(j)); k == "pprof.location.is_folded" {
				pl.IsFolded = v.Bool()
			} else {
				return nil, fmt.Errorf("location attribute %q", k)
			}
		}
		locs[i] = pl
		p.Location = append(p.Location, pl)
	}
	first := sp.Profiles().At(0)
	p.SampleType = make([]*profile.ValueType, n)
	for k := 0; k < n; k++ {
		st := sp.Profiles().At(k).SampleType()
		p.SampleType[order[k]] = &profile.ValueType{Type: str(st.TypeStrindex()), Unit: str(st.UnitStrindex())}
	}
	pt := first.PeriodType()
	if pt.TypeStrindex() != 0 || pt.UnitStrindex() != 0 {
		p.PeriodType = &profile.ValueType{Type: str(pt.TypeStrindex()), Unit: str(pt.UnitStrindex())}
	}
	p.Period, p.TimeNanos, p.DurationNanos = first.Period(), int64(first.Time()), int64(first.DurationNano())
	for j := 0; j < first.AttributeIndices().Len(); j++ {
		k, v, _ := attr(first.AttributeIndices().At(j))
		switch k {
		case "pprof.profile.comment":
			for c := 0; c < v.Slice().Len(); c++ {
				p.Comments = append(p.Comments, v.Slice().At(c).Str())
			}
		case "pprof.profile.drop_frames":
			p.DropFrames = v.Str()
		case "pprof.profile.keep_frames":
			p.KeepFrames = v.Str()
		case "pprof.profile.doc_url":
			p.DocURL = v.Str()
		}
	}
	key := func(s pprofile.Sample) string {
		return fmt.Sprint(s.StackIndex(), s.LinkIndex(), s.AttributeIndices().AsRaw(), s.TimestampsUnixNano().AsRaw())
	}
	// A later Profile may leave out a sample whose value is 0 there: its
	// next sample has the key of the first Profile's i-th, or the i-th
	// is 0 in it.
	next := make([]int, n)
	for i := 0; i < first.Samples().Len(); i++ {
		s := first.Samples().At(i)
		ps := &profile.Sample{Value: make([]int64, n)}
		for k := 0; k < n; k++ {
			pr := sp.Profiles().At(k).Samples()
			if next[k] == pr.Len() || key(pr.At(next[k])) != key(s) {
				if k == 0 {
					return nil, fmt.Errorf("profile 0 sample %d", i)
				}
				continue
			}
			o := pr.At(next[k])
			next[k]++
			if o.Values().Len() != 1 {
				return nil, fmt.Errorf("profile %d sample %d: %d values", k, i, o.Values().Len())
			}
			ps.Value[order[k]] = o.Values().At(0)
		}
		st := d.StackTable().At(int(s.StackIndex())).LocationIndices()
		for j := 0; j < st.Len(); j++ {
			ps.Location = append(ps.Location, locs[st.At(j)])
		}
		for j := 0; j < s.AttributeIndices().Len(); j++ {
			k, v, unit := attr(s.AttributeIndices().At(j))
			k = labelKey(k)
			vals := []pcommon.Value{v}
			if v.Type() == pcommon.ValueTypeSlice {
				vals = vals[:0]
				for e := 0; e < v.Slice().Len(); e++ {
					vals = append(vals, v.Slice().At(e))
				}
			}
			for _, e := range vals {
				switch e.Type() {
				case pcommon.ValueTypeStr:
					if ps.Label == nil {
						ps.Label = map[string][]string{}
					}
					ps.Label[k] = append(ps.Label[k], e.Str())
				case pcommon.ValueTypeInt:
					if ps.NumLabel == nil {
						ps.NumLabel, ps.NumUnit = map[string][]int64{}, map[string][]string{}
					}
					ps.NumLabel[k] = append(ps.NumLabel[k], e.Int())
					ps.NumUnit[k] = append(ps.NumUnit[k], unit)
				default:
					return nil, fmt.Errorf("sample attribute %q of type %v", k, e.Type())
				}
			}
		}
		p.Sample = append(p.Sample, ps)
	}
	for k := 0; k < n; k++ {
		if l := sp.Profiles().At(k).Samples().Len(); next[k] != l {
			return nil, fmt.Errorf("profile %d: %d of its %d samples match none of profile 0", k, l-next[k], l)
		}
	}
	for _, s := range p.Sample {
		for k, us := range s.NumUnit {
			if strings.Join(us, "") == "" {
				delete(s.NumUnit, k)
			}
		}
		if len(s.NumUnit) == 0 {
			s.NumUnit = nil
		}
	}
	return p, p.CheckValid()
}
