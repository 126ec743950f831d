package perfscript_test

import (
	"slices"
	"testing"
)

// TestLabelSetsOnce checks that equal label sets share one index however
// the samples come: in time order, at one time, back in time (a text
// repeated), with no time, and with time again, and that distinct sets stay apart.
func TestLabelSetsOnce(t *testing.T) {
	const text = `a 1/10 [000] 1.000001: cycles: 
	1 f (/x)

a 1/10 [000] 1.000002: cycles: 
	1 f (/x)

a 1/11 [000] 1.000002: cycles: 
	1 f (/x)

a 1/10 [000] 1.000002: cycles: 
	1 f (/x)

a 1/10 [001] 1.000002: cycles: 
	1 f (/x)

a 1/10 [000] 1.000001: cycles: 
	1 f (/x)

a 1/10 [000] 1.000002: cycles: 
	1 f (/x)

a 1/10 [000] 1.000003: cycles: 
	1 f (/x)

b 1/10 [000] 1.000003: cycles: 
	1 f (/x)

a 1/10 [000] 1.000003: cycles: 
	1 f (/x)

a 1/10 [000] cycles: 
	1 f (/x)

a 1/10 [000] 1.000003: cycles: 
	1 f (/x)

a 1/10 [000] cycles: 
	1 f (/x)
`
	p := decode(t, text)
	got := make([]int32, len(p.Samples))
	for i, s := range p.Samples {
		got[i] = s.LabelSet
	}
	// Sets numbered by their first sample.
	want := []int32{1, 2, 3, 2, 4, 1, 2, 5, 6, 5, 7, 5, 7}
	if !slices.Equal(got, want) {
		t.Errorf("label sets %v, want %v", got, want)
	}
	if len(p.LabelSets) != 8 {
		t.Errorf("%d label sets, want 8 (with the empty one)", len(p.LabelSets))
	}
	for i := range p.LabelSets {
		for j := i + 1; j < len(p.LabelSets); j++ {
			if slices.Equal(p.LabelSets[i].Labels(), p.LabelSets[j].Labels()) {
				t.Errorf("label sets %d and %d are equal: %v", i, j, p.LabelSets[i].Labels())
			}
		}
	}
}
