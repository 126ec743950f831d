// Package summary computes what `pprofx inspect` shows of a profile:
// totals per sample type and the sizes of its tables.
package summary

import (
	"sort"
	"time"

	"github.com/pprofx/pprofx/internal/model"
)

// SampleType is one sample type and the sum of its values over all samples.
type SampleType struct {
	Type    string `json:"type"`
	Unit    string `json:"unit"`
	Total   int64  `json:"total"`
	Default bool   `json:"default,omitempty"`
}

// Summary is the shape and totals of one profile.
type Summary struct {
	Name          string       `json:"name,omitempty"`
	SampleTypes   []SampleType `json:"sample_types"`
	Samples       int          `json:"samples"`
	Stacks        int          `json:"stacks"`
	Locations     int          `json:"locations"`
	Functions     int          `json:"functions"`
	Mappings      int          `json:"mappings"`
	LabelKeys     []string     `json:"label_keys,omitempty"`
	PeriodType    string       `json:"period_type,omitempty"`
	Period        int64        `json:"period"`
	Time          string       `json:"time,omitempty"` // RFC 3339, UTC
	TimeNanos     int64        `json:"time_nanos"`
	DurationNanos int64        `json:"duration_nanos"`
	Comments      []string     `json:"comments,omitempty"`
}

// Of summarizes p. Totals saturate instead of overflowing.
func Of(p *model.Profile) Summary {
	s := Summary{
		Samples:       len(p.Samples),
		Locations:     len(p.Locations),
		Functions:     len(p.Functions),
		Mappings:      len(p.Mappings),
		Period:        p.Period,
		TimeNanos:     p.TimeNanos,
		DurationNanos: p.DurationNanos,
	}
	def := p.String(p.DefaultSampleType)
	for i, t := range p.SampleTypes {
		st := SampleType{Type: p.String(t.Type), Unit: p.String(t.Unit)}
		if def != "" && st.Type == def || def == "" && i == len(p.SampleTypes)-1 {
			st.Default = true
		}
		s.SampleTypes = append(s.SampleTypes, st)
	}
	stacks := make(map[int32]bool)
	keys := make(map[string]bool)
	seenSets := make(map[int32]bool)
	for i := range p.Samples {
		smp := &p.Samples[i]
		stacks[smp.Stack] = true
		for j, v := range smp.Values() {
			if j < len(s.SampleTypes) {
				s.SampleTypes[j].Total = satAdd(s.SampleTypes[j].Total, v)
			}
		}
		if !seenSets[smp.LabelSet] {
			seenSets[smp.LabelSet] = true
			if int(smp.LabelSet) < len(p.LabelSets) {
				for _, l := range p.LabelSets[smp.LabelSet].Labels() {
					keys[p.String(l.Key)] = true
				}
			}
		}
	}
	s.Stacks = len(stacks)
	for k := range keys {
		s.LabelKeys = append(s.LabelKeys, k)
	}
	sort.Strings(s.LabelKeys)
	if p.PeriodType.Type != 0 || p.PeriodType.Unit != 0 {
		s.PeriodType = p.String(p.PeriodType.Type) + "/" + p.String(p.PeriodType.Unit)
	}
	if p.TimeNanos != 0 {
		s.Time = time.Unix(0, p.TimeNanos).UTC().Format(time.RFC3339Nano)
	}
	for _, c := range p.Comments {
		s.Comments = append(s.Comments, p.String(c))
	}
	return s
}

// OfStream summarizes a profile whose samples are not held: its tables are
// in p (no samples), n samples each of a distinct stack and without labels,
// whose values sum to totals.
func OfStream(p *model.Profile, n int, totals []int64) Summary {
	s := Of(p)
	s.Samples, s.Stacks = n, n
	for i := range s.SampleTypes {
		if i < len(totals) {
			s.SampleTypes[i].Total = totals[i]
		}
	}
	return s
}

func satAdd(a, b int64) int64 {
	c := a + b
	if a > 0 && b > 0 && c < 0 {
		return 1<<63 - 1
	}
	if a < 0 && b < 0 && c >= 0 {
		return -1 << 63
	}
	return c
}
