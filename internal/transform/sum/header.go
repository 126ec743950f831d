package sum

import (
	"fmt"
	"reflect"

	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/units"
)

// headers combine the inputs' profile-level fields as profile.Merge's
// combineHeaders does (after pprof's ScaleProfiles has put the periods in
// one unit): the period types must be equal; the earliest time, the
// durations added, the largest period, comments without repeats, the
// first default sample type and doc URL, the first input's drop and keep
// frames. OpenTelemetry's fields, which pprof has not, are kept when every
// input has the same, else dropped with a warning. They are taken input
// by input, and what needs them all (the period's finest unit, the
// largest period in it) is made by finish.
type headers struct {
	first               string // the first input's name
	p0                  *model.Profile
	ptype, punit        string // the period type, its unit the finest so far
	temporality         int32
	periods             []period
	timeNanos, duration int64
	comments            map[string]bool
	defaultType, docURL string
	lastType0           string // the first input's last sample type
	drop, keep          string

	// The first input's OpenTelemetry fields, while every input has them
	// the same.
	resource      model.Resource
	scope         model.Scope
	attrs         []model.Attribute
	droppedAttrs  uint32
	id            []byte
	payloadFormat string
	payload       []byte
	differ        [5]bool // resource, scope, attributes, id, payload
	// OpenTelemetry's start and end, while every input has them: the
	// earliest start, the latest end.
	start, end uint64
	noTimes    bool
}

type period struct {
	v    int64
	unit string
}

// add takes p's header.
func (h *headers) add(s *summer, name string, p *model.Profile, warn func(string)) error {
	t, u := p.String(p.PeriodType.Type), p.String(p.PeriodType.Unit)
	if h.comments == nil {
		h.first, h.ptype, h.punit, h.temporality = name, t, u, p.PeriodType.AggregationTemporality
		h.comments = map[string]bool{}
		h.timeNanos = p.TimeNanos
		if len(p.SampleTypes) > 0 {
			h.lastType0 = p.String(p.SampleTypes[len(p.SampleTypes)-1].Type)
		}
		h.drop, h.keep = p.String(p.DropFrames), p.String(p.KeepFrames)
		h.resource, h.scope, h.attrs, h.droppedAttrs = p.Resource, p.Scope, p.Attributes, p.DroppedAttributesCount
		h.id, h.payloadFormat, h.payload = p.ProfileID, p.OriginalPayloadFormat, p.OriginalPayload
		h.start, h.end = p.StartTimeUnixNano, p.EndTimeUnixNano
	} else {
		if t != h.ptype || (u != h.punit && !units.SameFamily(u, h.punit)) {
			return &Error{[]string{h.first, name}, fmt.Errorf("incompatible period types %s/%s and %s/%s", h.ptype, h.punit, t, u)}
		}
		if r, _ := units.Scale(1, u, h.punit); r < 1 {
			h.punit = u
		}
		h.same(0, "resources", h.resource, p.Resource, warn)
		h.same(1, "instrumentation scopes", h.scope, p.Scope, warn)
		type attrs struct {
			A []model.Attribute
			D uint32
		}
		h.same(2, "profile attributes", attrs{h.attrs, h.droppedAttrs}, attrs{p.Attributes, p.DroppedAttributesCount}, warn)
		h.same(3, "profile ids", h.id, p.ProfileID, warn)
		type payload struct {
			F string
			P []byte
		}
		h.same(4, "original payloads", payload{h.payloadFormat, h.payload}, payload{p.OriginalPayloadFormat, p.OriginalPayload}, warn)
		if h.timeNanos == 0 || p.TimeNanos < h.timeNanos {
			h.timeNanos = p.TimeNanos
		}
		if p.StartTimeUnixNano < h.start {
			h.start = p.StartTimeUnixNano
		}
		h.end = max(h.end, p.EndTimeUnixNano)
	}
	if p.StartTimeUnixNano == 0 || p.EndTimeUnixNano == 0 {
		h.noTimes = true
	}
	h.duration += p.DurationNanos
	h.periods = append(h.periods, period{p.Period, u})
	out, b := s.b.P, s.b
	for _, c := range p.Comments {
		if cs := p.String(c); !h.comments[cs] {
			h.comments[cs] = true
			out.Comments = append(out.Comments, b.String(cs))
		}
	}
	if h.defaultType == "" {
		h.defaultType = p.String(p.DefaultSampleType)
	}
	if h.docURL == "" {
		h.docURL = p.String(p.DocURL)
	}
	if p.PeriodType.AggregationTemporality != h.temporality {
		h.temporality = 0
	}
	return nil
}

// same notes a field of an input other than the first that differs from
// the first's (field k of differ), with a warning unless both are zero.
func (h *headers) same(k int, what string, first, v any, warn func(string)) {
	if h.differ[k] || reflect.DeepEqual(first, v) {
		return
	}
	h.differ[k] = true
	if !reflect.ValueOf(first).IsZero() || !reflect.ValueOf(v).IsZero() {
		warn(fmt.Sprintf("the inputs' %s differ: the sum has none", what))
	}
}

// finish writes the combined header into the sum.
func (h *headers) finish(s *summer) {
	out, b := s.b.P, s.b
	out.PeriodType = model.ValueType{Type: b.String(h.ptype), Unit: b.String(h.punit), AggregationTemporality: h.temporality}
	var p int64
	for _, x := range h.periods {
		v := x.v
		if x.unit != h.punit {
			f, _ := units.Scale(x.v, x.unit, h.punit)
			v = int64(f)
		}
		if p == 0 || p < v {
			p = v
		}
	}
	out.TimeNanos, out.DurationNanos, out.Period = h.timeNanos, h.duration, p
	// No default names the last type; when the sum's last type is not
	// the first input's, that one is named.
	defaultType := h.defaultType
	if defaultType == "" && h.lastType0 != "" && h.lastType0 != s.ty.names[len(s.ty.names)-1] {
		defaultType = h.lastType0
	}
	out.DefaultSampleType, out.DocURL = 0, 0
	if defaultType != "" {
		out.DefaultSampleType = b.String(defaultType)
	}
	if h.docURL != "" {
		out.DocURL = b.String(h.docURL)
	}
	out.DropFrames, out.KeepFrames = b.String(h.drop), b.String(h.keep)
	if !h.differ[0] {
		out.Resource = h.resource
	}
	if !h.differ[1] {
		out.Scope = h.scope
	}
	if !h.differ[2] {
		out.Attributes, out.DroppedAttributesCount = h.attrs, h.droppedAttrs
	}
	if !h.differ[3] {
		out.ProfileID = h.id
	}
	if !h.differ[4] {
		out.OriginalPayloadFormat, out.OriginalPayload = h.payloadFormat, h.payload
	}
	if !h.noTimes {
		out.StartTimeUnixNano, out.EndTimeUnixNano = h.start, h.end
	}
}
