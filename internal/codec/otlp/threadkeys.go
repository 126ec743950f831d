package otlp

// The thread's keys. pprof labels name a sample's thread "thread" (its
// name, a string) and "thread_id" (its id, a number), as JFR converters
// and Go's runtime/pprof users do; OpenTelemetry's semantic conventions
// name the same sample attributes "thread.name" and "thread.id". The
// writer writes a label "thread" as the attribute "thread.name" and a
// label "thread_id" as "thread.id"; the reader reads them back the other
// way. So pprof -> OTLP -> pprof and OTLP -> OTLP both keep every key.
//
// The rule applies to a whole message (its dictionary is shared), and only
// where it is a bijection, so that no two values ever end up under one key:
//   - writing: every label keyed "thread" is a string (every one keyed
//     "thread_id" a number), and no label or label-set attribute is keyed
//     "thread.name" ("thread.id"), nor a label-set attribute "thread"
//     ("thread_id");
//   - reading: every sample attribute keyed "thread.name" is a non-empty
//     string without a unit, or an array of two or more of these (every one
//     keyed "thread.id" an integer or an array of two or more integers), and
//     no sample attribute is keyed "thread" ("thread_id").
// Otherwise both keys are written and read as they are, with a warning.

import (
	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/model"
)

const (
	labelThread    = "thread"
	labelThreadID  = "thread_id"
	AttrThreadName = "thread.name"
	AttrThreadID   = "thread.id"
)

// threadRename is the writer's decision for a message: which label keys it
// writes under their semantic conventions' names.
type threadRename struct {
	name, id bool
}

// threadKeys decides the writer's threadRename for e.ps.
func (e *encoder) threadKeys() threadRename {
	var hasName, hasID bool // a label keyed thread / thread_id
	var badName, badID bool // something forbids renaming
	attrs := func(as []model.Attribute) {
		for _, a := range as {
			switch a.Key {
			case labelThread, AttrThreadName:
				badName = true
			case labelThreadID, AttrThreadID:
				badID = true
			}
		}
	}
	for _, p := range e.ps {
		for i := range p.LabelSets {
			ls := &p.LabelSets[i]
			attrs(ls.Attributes())
			for _, l := range ls.Labels() {
				switch p.String(l.Key) {
				case labelThread:
					hasName = true
					badName = badName || l.IsNumeric()
				case AttrThreadName:
					badName = true
				case labelThreadID:
					hasID = true
					badID = badID || !l.IsNumeric()
				case AttrThreadID:
					badID = true
				}
			}
		}
	}
	if hasName && badName {
		e.warn("otlp: the label thread was written as it is, not as the semantic conventions' thread.name, as the profile also has a thread.name key or a thread that is not a string")
	}
	if hasID && badID {
		e.warn("otlp: the label thread_id was written as it is, not as the semantic conventions' thread.id, as the profile also has a thread.id key or a thread_id that is not a number")
	}
	return threadRename{name: hasName && !badName, id: hasID && !badID}
}

// renamed reports the attribute key a label key is written under, and
// whether it differs from the label's own.
func (r threadRename) renamed(key string) (string, bool) {
	switch {
	case r.name && key == labelThread:
		return AttrThreadName, true
	case r.id && key == labelThreadID:
		return AttrThreadID, true
	}
	return key, false
}

// threadSampleKeys sets the sampleKey of t's attributes: the key a sample
// attribute takes as a label (see the rule above). Only the attributes
// samples refer to count: a location's attributes never become labels.
func (d *decoder) threadSampleKeys(t *dict, pd *pb.ProfilesData) {
	var hasName, hasID, badName, badID bool
	used := make([]bool, len(t.attrs))
	for _, rp := range pd.GetResourceProfiles() {
		for _, sp := range rp.GetScopeProfiles() {
			for _, pr := range sp.GetProfiles() {
				for _, s := range pr.GetSamples() {
					for _, a := range s.GetAttributeIndices() {
						if a > 0 && int(a) < len(used) {
							used[a] = true
						}
					}
				}
			}
		}
	}
	for i := 1; i < len(t.attrs); i++ {
		if !used[i] {
			continue
		}
		a := &t.attrs[i]
		switch a.key {
		case AttrThreadName:
			hasName = true
			badName = badName || !labelValue(a.value, a.unit, false) || !allKind(a.value, model.KindString)
		case labelThread:
			badName = true
		case AttrThreadID:
			hasID = true
			badID = badID || !labelValue(a.value, a.unit, false) || !allKind(a.value, model.KindInt)
		case labelThreadID:
			badID = true
		}
	}
	if hasName && badName {
		d.warn("otlp: the sample attribute thread.name was read as it is, not as the label thread, as a sample also has a thread attribute or a thread.name that is not a string")
	}
	if hasID && badID {
		d.warn("otlp: the sample attribute thread.id was read as it is, not as the label thread_id, as a sample also has a thread_id attribute or a thread.id that is not an integer")
	}
	for i := 1; i < len(t.attrs); i++ {
		a := &t.attrs[i]
		switch {
		case a.key == AttrThreadName && hasName && !badName:
			a.sampleKey = labelThread
		case a.key == AttrThreadID && hasID && !badID:
			a.sampleKey = labelThreadID
		default:
			a.sampleKey = a.key
		}
	}
}

// allKind reports whether v, or every element of the array v, is of kind k.
func allKind(v model.Value, k model.ValueKind) bool {
	if v.Kind == model.KindArray {
		for _, e := range v.Array {
			if e.Kind != k {
				return false
			}
		}
		return true
	}
	return v.Kind == k
}
