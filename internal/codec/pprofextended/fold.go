package pprofextended

import (
	"encoding/hex"
	"fmt"

	"github.com/pprofx/pprofx/internal/codec/otlpcommon"

	"github.com/pprofx/pprofx/internal/model"
)

// FoldForPprof moves what pprof cannot hold of a profile read from OTLP into
// what it can, so that the pprof writer loses nothing silently. Call it on a
// decoded profile before writing pprof. It changes p:
//
//   - Resource attributes become comments "otlp.resource: KEY=VALUE", the
//     resource schema URL "otlp.resource.schema_url: URL".
//   - Container attributes become comments "otlp.attribute: KEY=VALUE",
//     and the unit of one that has a unit "otlp.attribute.unit: KEY=UNIT".
//   - Sample attributes that pprof's labels cannot hold as they are
//     (model.LabelSet.Attributes) become labels, one per value (per
//     element of an array): an integer a numeric label with the
//     attribute's unit, anything else a string label with the value's
//     text, an empty text a numeric 0 label (pprof has no empty string
//     label). Other value types and units are lost, which warn is told
//     once.
//   - The scope, unless it is pprofx's own, becomes the comment
//     "otlp.scope: NAME VERSION" (and its attributes "otlp.scope.attribute: KEY=VALUE").
//   - Start and end times that differ from time_nanos and
//     time_nanos+duration_nanos become "otlp.start_time_unix_nano: N" and
//     "otlp.end_time_unix_nano: N".
//   - Each sample's link becomes the string labels "trace_id" and "span_id"
//     (hex), and its timestamps the numeric label "timestamp" with unit
//     "nanoseconds", one value per timestamp.
//   - An aggregation temporality becomes "otlp.sample_type[I].aggregation_temporality: delta|cumulative"
//     ("otlp.period_type..." for the period type); a binary-hash build id
//     kind "otlp.mapping[I].build_id_kind: binary_hash".
//
// The fields moved are cleared. What cannot move (the original payload) is
// reported through warn, once. A profile id that pprofx derived from the
// content says nothing the profile does not, and is cleared; it is
// recognised by its mark (IsDerivedID), not by encoding p again, so ids in
// files from writers with another table layout are recognised too. Any
// other id is left for the pprof writer, which warns that it drops it.
func FoldForPprof(p *model.Profile, warn func(string)) {
	if IsDerivedID(p.ProfileID) {
		p.ProfileID = nil
	}
	// The builder (which indexes the whole profile) is made only when
	// something is folded: a profile with nothing OTLP-only costs a scan.
	var bld *model.Builder
	builder := func() *model.Builder {
		if bld == nil {
			bld = model.BuilderFor(p)
		}
		return bld
	}
	comment := func(s string) { p.Comments = append(p.Comments, builder().String(s)) }

	for _, a := range p.Resource.Attributes {
		comment("otlp.resource: " + a.Key + "=" + otlpcommon.ValueText(a.Value))
	}
	if p.Resource.SchemaURL != "" {
		comment("otlp.resource.schema_url: " + p.Resource.SchemaURL)
	}
	p.Resource = model.Resource{}
	for _, a := range p.Attributes {
		comment("otlp.attribute: " + a.Key + "=" + otlpcommon.ValueText(a.Value))
		if a.Unit != "" {
			comment("otlp.attribute.unit: " + a.Key + "=" + a.Unit)
		}
	}
	p.Attributes, p.DroppedAttributesCount = nil, 0
	if p.Scope.Name != "" && p.Scope.Name != ScopeName {
		comment(fmt.Sprintf("otlp.scope: %s %s", p.Scope.Name, p.Scope.Version))
		for _, a := range p.Scope.Attributes {
			comment("otlp.scope.attribute: " + a.Key + "=" + otlpcommon.ValueText(a.Value))
		}
	}
	p.Scope = model.Scope{}
	if p.StartTimeUnixNano != 0 && (p.TimeNanos <= 0 || p.StartTimeUnixNano != uint64(p.TimeNanos)) {
		comment(fmt.Sprintf("otlp.start_time_unix_nano: %d", p.StartTimeUnixNano))
		if p.TimeNanos == 0 {
			p.TimeNanos = int64(p.StartTimeUnixNano)
		}
	}
	if p.EndTimeUnixNano != 0 && (p.TimeNanos <= 0 || p.EndTimeUnixNano != uint64(p.TimeNanos)+uint64(p.DurationNanos)) {
		comment(fmt.Sprintf("otlp.end_time_unix_nano: %d", p.EndTimeUnixNano))
	}
	p.StartTimeUnixNano, p.EndTimeUnixNano = 0, 0

	temporality := func(what string, t int32) {
		switch t {
		case 1:
			comment(what + ".aggregation_temporality: delta")
		case 2:
			comment(what + ".aggregation_temporality: cumulative")
		case 0:
		default:
			comment(fmt.Sprintf("%s.aggregation_temporality: %d", what, t))
		}
	}
	for i := range p.SampleTypes {
		temporality(fmt.Sprintf("otlp.sample_type[%d]", i), p.SampleTypes[i].AggregationTemporality)
		p.SampleTypes[i].AggregationTemporality = 0
	}
	temporality("otlp.period_type", p.PeriodType.AggregationTemporality)
	p.PeriodType.AggregationTemporality = 0
	for i := range p.Mappings {
		if p.Mappings[i].BuildIDKind == 1 {
			comment(fmt.Sprintf("otlp.mapping[%d].build_id_kind: binary_hash", i))
		}
		p.Mappings[i].BuildIDKind = 0
	}

	foldSampleAttributes(p, builder, warn)

	// Links and timestamps become labels. Label sets are shared, so each
	// (label set, link, timestamps) combination gets its own set.
	var kTrace, kSpan, kTS, uNS int32
	var labels []model.Label
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Link == model.NoLink && len(s.Timestamps()) == 0 {
			continue
		}
		if kTrace == 0 {
			kTrace, kSpan = builder().String("trace_id"), builder().String("span_id")
			kTS, uNS = builder().String("timestamp"), builder().String("nanoseconds")
		}
		labels = append(labels[:0], p.LabelSets[s.LabelSet].Labels()...)
		if s.Link != model.NoLink {
			l := p.Links[s.Link]
			if len(l.TraceID) > 0 {
				labels = append(labels, model.Label{Key: kTrace, Str: builder().String(hex.EncodeToString(l.TraceID))})
			}
			if len(l.SpanID) > 0 {
				labels = append(labels, model.Label{Key: kSpan, Str: builder().String(hex.EncodeToString(l.SpanID))})
			}
		}
		for _, t := range s.Timestamps() {
			labels = append(labels, model.Label{Key: kTS, Num: int64(t), NumUnit: uNS})
		}
		s.LabelSet = builder().LabelSet(labels)
		s.Link = model.NoLink
		s.SetTimestamps(nil)
	}
	p.Links = nil

	if len(p.OriginalPayload) > 0 && warn != nil {
		warn(fmt.Sprintf("otlp: the embedded original payload (%s, %d bytes) cannot be kept in pprof; it is dropped", p.OriginalPayloadFormat, len(p.OriginalPayload)))
	}
	p.OriginalPayload, p.OriginalPayloadFormat = nil, ""
}

// foldSampleAttributes turns the attributes of p's label sets into labels
// (see FoldForPprof). Each set is changed in place: the builder's index of
// the sets is then stale for those sets only, whose keys no set without
// attributes can match.
func foldSampleAttributes(p *model.Profile, builder func() *model.Builder, warn func(string)) {
	folded, empty := false, false
	for i := range p.LabelSets {
		ls := &p.LabelSets[i]
		if len(ls.Attributes()) == 0 {
			continue
		}
		folded = true
		labels := ls.Labels()
		for _, a := range ls.Attributes() {
			key := builder().String(a.Key)
			vs := []model.Value{a.Value}
			if a.Value.Kind == model.KindArray {
				vs = a.Value.Array
			}
			for _, v := range vs {
				if v.Kind == model.KindInt {
					l := model.Label{Key: key, Num: v.Int}
					if a.Unit != "" {
						l.NumUnit = builder().String(a.Unit)
					}
					labels = append(labels, l)
					continue
				}
				text := otlpcommon.ValueText(v)
				if v.Kind == model.KindString {
					text = v.Str
				}
				empty = empty || text == ""
				labels = append(labels, model.Label{Key: key, Str: builder().String(text)})
			}
		}
		ls.SetLabels(labels)
		ls.SetAttributes(nil)
	}
	if warn == nil {
		return
	}
	if folded {
		warn("otlp: sample attributes that pprof labels cannot hold (not a string or an integer, or a string with a unit) became string labels; their types and units are lost")
	}
	if empty {
		warn("otlp: empty sample attribute values became numeric 0 labels (pprof has no empty string label)")
	}
}
