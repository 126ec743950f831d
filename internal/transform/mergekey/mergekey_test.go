package mergekey

import (
	"testing"

	"github.com/google/pprof/profile"
)

// The key takes two mappings for one exactly when profile.Merge does.
func TestMappingAsMerge(t *testing.T) {
	ms := []*profile.Mapping{
		{Start: 0x1000, Limit: 0x2000, Offset: 0, File: "a", BuildID: "x"},
		{Start: 0x5000, Limit: 0x5fff, Offset: 0, File: "b", BuildID: "x"},      // size rounds up to the first's
		{Start: 0x5000, Limit: 0x6001, Offset: 0, File: "a", BuildID: "x"},      // a page larger
		{Start: 0x1000, Limit: 0x2000, Offset: 0x1000, File: "a", BuildID: "x"}, // another offset
		{Start: 0x9000, Limit: 0xa000, Offset: 0, File: "a"},                    // no build id: the file
		{Start: 0x1000, Limit: 0x2000, Offset: 0, File: "a", BuildID: "y"},
		{Start: 0x3000, Limit: 0x4000, Offset: 0, File: "c"},
		{Start: 0x3000, Limit: 0x4000, Offset: 0},
		{Start: 0x7000, Limit: 0x8000, Offset: 0},
	}
	for i, a := range ms {
		for j, b := range ms {
			merged, err := profile.Merge([]*profile.Profile{of(a), of(b)})
			if err != nil {
				t.Fatal(err)
			}
			same := MappingOf(a.Start, a.Limit, a.Offset, a.BuildID, a.File) == MappingOf(b.Start, b.Limit, b.Offset, b.BuildID, b.File)
			if want := len(merged.Mapping) == 1; same != want {
				t.Errorf("mappings %d and %d: keys equal %v, profile.Merge takes them for one %v", i, j, same, want)
			}
		}
	}
}

// of is a profile of one sample at the start of a copy of m.
func of(m *profile.Mapping) *profile.Profile {
	c := *m
	c.ID = 1
	loc := &profile.Location{ID: 1, Mapping: &c, Address: c.Start}
	return &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "s", Unit: "n"}},
		PeriodType: &profile.ValueType{Type: "s", Unit: "n"},
		Period:     1,
		Mapping:    []*profile.Mapping{&c},
		Location:   []*profile.Location{loc},
		Sample:     []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{1}}},
	}
}
