package sum

import (
	"fmt"
	"reflect"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/units"
)

// header combines the inputs' profile-level fields as profile.Merge's
// combineHeaders does (after pprof's ScaleProfiles has put the periods in
// one unit): the period types must be equal; the earliest time, the
// durations added, the largest period, comments without repeats, the
// first default sample type and doc URL, the first input's drop and keep
// frames. OpenTelemetry's fields, which pprof has not, are kept when every
// input has the same, else dropped with a warning.
func (s *summer) header(in []Input, warn func(string)) error {
	out, b := s.b.P, s.b
	p0 := in[0].Profile
	ptype, punit := p0.String(p0.PeriodType.Type), p0.String(p0.PeriodType.Unit)
	for _, x := range in[1:] {
		p := x.Profile
		t, u := p.String(p.PeriodType.Type), p.String(p.PeriodType.Unit)
		if t != ptype || (u != punit && !units.SameFamily(u, punit)) {
			return &Error{[]string{in[0].Name, x.Name}, fmt.Errorf("incompatible period types %s/%s and %s/%s", ptype, punit, t, u)}
		}
		if r, _ := units.Scale(1, u, punit); r < 1 {
			punit = u
		}
	}
	out.PeriodType = model.ValueType{Type: b.String(ptype), Unit: b.String(punit), AggregationTemporality: p0.PeriodType.AggregationTemporality}
	var timeNanos, duration, period int64
	seen := map[string]bool{}
	var defaultType, docURL string
	for _, x := range in {
		p := x.Profile
		if timeNanos == 0 || p.TimeNanos < timeNanos {
			timeNanos = p.TimeNanos
		}
		duration += p.DurationNanos
		pp := p.Period
		if u := p.String(p.PeriodType.Unit); u != punit {
			v, _ := units.Scale(p.Period, u, punit)
			pp = int64(v)
		}
		if period == 0 || period < pp {
			period = pp
		}
		for _, c := range p.Comments {
			if cs := p.String(c); !seen[cs] {
				seen[cs] = true
				out.Comments = append(out.Comments, b.String(cs))
			}
		}
		if defaultType == "" {
			defaultType = p.String(p.DefaultSampleType)
		}
		if docURL == "" {
			docURL = p.String(p.DocURL)
		}
		if p.PeriodType.AggregationTemporality != out.PeriodType.AggregationTemporality {
			out.PeriodType.AggregationTemporality = 0
		}
	}
	// No default names the last type; when the sum's last type is not
	// the first input's, that one is named.
	if defaultType == "" && len(p0.SampleTypes) > 0 {
		if last := p0.String(p0.SampleTypes[len(p0.SampleTypes)-1].Type); last != s.ty.names[len(s.ty.names)-1] {
			defaultType = last
		}
	}
	out.TimeNanos, out.DurationNanos, out.Period = timeNanos, duration, period
	out.DefaultSampleType, out.DocURL = b.String(defaultType), b.String(docURL)
	out.DropFrames, out.KeepFrames = b.String(p0.String(p0.DropFrames)), b.String(p0.String(p0.KeepFrames))
	if defaultType == "" {
		out.DefaultSampleType = 0
	}
	if docURL == "" {
		out.DocURL = 0
	}

	same := func(what string, get func(*model.Profile) any) bool {
		v := get(p0)
		for _, x := range in[1:] {
			if !reflect.DeepEqual(get(x.Profile), v) {
				if !reflect.ValueOf(v).IsZero() || !reflect.ValueOf(get(x.Profile)).IsZero() {
					warn(fmt.Sprintf("the inputs' %s differ: the sum has none", what))
				}
				return false
			}
		}
		return true
	}
	if same("resources", func(p *model.Profile) any { return p.Resource }) {
		out.Resource = p0.Resource
	}
	if same("instrumentation scopes", func(p *model.Profile) any { return p.Scope }) {
		out.Scope = p0.Scope
	}
	if same("profile attributes", func(p *model.Profile) any {
		return struct {
			A []model.Attribute
			D uint32
		}{p.Attributes, p.DroppedAttributesCount}
	}) {
		out.Attributes, out.DroppedAttributesCount = p0.Attributes, p0.DroppedAttributesCount
	}
	if same("profile ids", func(p *model.Profile) any { return p.ProfileID }) {
		out.ProfileID = p0.ProfileID
	}
	if same("original payloads", func(p *model.Profile) any {
		return struct {
			F string
			P []byte
		}{p.OriginalPayloadFormat, p.OriginalPayload}
	}) {
		out.OriginalPayloadFormat, out.OriginalPayload = p0.OriginalPayloadFormat, p0.OriginalPayload
	}
	// OpenTelemetry's start and end, when every input has them: the
	// earliest start, the latest end.
	var start, end uint64
	all := true
	for _, x := range in {
		p := x.Profile
		if p.StartTimeUnixNano == 0 || p.EndTimeUnixNano == 0 {
			all = false
			break
		}
		if start == 0 || p.StartTimeUnixNano < start {
			start = p.StartTimeUnixNano
		}
		end = max(end, p.EndTimeUnixNano)
	}
	if all {
		out.StartTimeUnixNano, out.EndTimeUnixNano = start, end
	}
	return nil
}
