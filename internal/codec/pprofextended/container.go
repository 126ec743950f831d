// The ProfileContainer around each profile: its id, times and attributes.

package pprofextended

import (
	"bytes"
	"crypto/sha256"
	"slices"

	"github.com/pprofx/pprofx/internal/model"
)

// container appends the ProfileContainer of p, the i-th profile. A profile
// id derived from the content (see deriveID) is patched in once the
// Profile message is written; when the bodies are spilled, the Profile
// message is left empty, to be spliced in, and the id is the one the body
// had when its size was counted.
func (e *encoder) container(b []byte, p *model.Profile, i int) []byte {
	b, c := begin(b, fScopeProfilesProfiles)
	id := e.opts.ProfileID
	if len(id) == 0 {
		id = p.ProfileID
	}
	derive := len(id) == 0
	if derive {
		id = make([]byte, 16)
	}
	b = appendBytesField(b, fContainerProfileID, id)
	idAt := len(b) - 16
	start, endTime := p.StartTimeUnixNano, p.EndTimeUnixNano
	if start == 0 && p.TimeNanos > 0 {
		start = uint64(p.TimeNanos)
	}
	if endTime == 0 && p.TimeNanos > 0 && p.DurationNanos >= 0 {
		endTime = uint64(p.TimeNanos) + uint64(p.DurationNanos)
	}
	b = appendFixed64Field(b, fContainerStartTime, start)
	b = appendFixed64Field(b, fContainerEndTime, endTime)
	for _, a := range p.Attributes {
		if a.Key == DocURLAttribute && p.DocURL != 0 {
			continue // written from DocURL below
		}
		b = e.appendKeyValue(b, fContainerAttributes, a)
	}
	if p.DocURL != 0 {
		b = e.appendKeyValue(b, fContainerAttributes, model.Attribute{Key: DocURLAttribute,
			Value: model.Value{Kind: model.KindString, Str: p.String(p.DocURL)}})
	}
	b = appendVarintField(b, fContainerDroppedAttributesCount, uint64(p.DroppedAttributesCount))
	if e.opts.KeepOriginal && len(p.OriginalPayload) > 0 {
		b = e.appendStringField(b, fContainerOriginalPayloadFormat, p.OriginalPayloadFormat)
		b = appendBytesField(b, fContainerOriginalPayload, p.OriginalPayload)
	}
	b, pr := begin(b, fContainerProfile)
	if e.bodies != nil {
		if derive {
			copy(b[idAt:], e.bodies[i].id[:])
		}
		b = end(b, pr)
		return end(b, c)
	}
	b = e.profile(b, p)
	if derive {
		did := deriveID(b[pr:])
		copy(b[idAt:], did[:])
	}
	b = end(b, pr)
	return end(b, c)
}

// deriveID returns the profile id derived from a Profile message body: the
// first 12 bytes of its SHA-256, then a 4-byte mark, the first 4 bytes of
// the SHA-256 of derivedIDTag and those 12 bytes. The mark lets a reader
// recognise a derived id from the id alone (IsDerivedID), whatever layout
// the writer that derived it had: re-encoding the profile and comparing
// would call every id foreign once the layout changes. A foreign id passes
// for derived with probability 2^-32. (All zero, which OTLP forbids, would
// need both hashes to start with zero bytes: 2^-128.)
func deriveID(body []byte) [16]byte {
	sum := sha256.Sum256(body)
	var id [16]byte
	copy(id[:12], sum[:12])
	copy(id[12:], derivedIDMark(id[:12]))
	return id
}

func derivedIDMark(content []byte) []byte {
	h := sha256.New()
	h.Write([]byte(derivedIDTag))
	h.Write(content)
	return h.Sum(nil)[:4]
}

// IsDerivedID reports whether id is a profile id pprofx derived from a
// profile's content (see deriveID), not one given to it.
func IsDerivedID(id []byte) bool {
	return len(id) == 16 && bytes.Equal(id[12:], derivedIDMark(id[:12]))
}

// mergeAttributes returns base with over applied: a key in over replaces
// the same key in base, other keys are added in order.
func mergeAttributes(base, over []model.Attribute) []model.Attribute {
	if len(over) == 0 {
		return base
	}
	out := slices.Clone(base)
	for _, a := range over {
		i := slices.IndexFunc(out, func(b model.Attribute) bool { return b.Key == a.Key })
		if i >= 0 {
			out[i] = a
		} else {
			out = append(out, a)
		}
	}
	return out
}

func sameAttributes(a, b []model.Attribute) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !sameValue(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

func sameValue(a, b model.Value) bool {
	if a.Kind != b.Kind || a.Str != b.Str || a.Bool != b.Bool || a.Int != b.Int ||
		a.Double != b.Double || string(a.Bytes) != string(b.Bytes) || len(a.Array) != len(b.Array) {
		return false
	}
	for i := range a.Array {
		if !sameValue(a.Array[i], b.Array[i]) {
			return false
		}
	}
	return sameAttributes(a.Map, b.Map)
}
