package units

import "testing"

// TestScale: pprof's conversions (internal/measurement), case by case.
func TestScale(t *testing.T) {
	for _, c := range []struct {
		v        int64
		from, to string
		want     float64
		unit     string
	}{
		{1, "kb", "b", 1024, "B"},          // kb = 1024
		{3, "MB", "kilobytes", 3072, "kB"}, // plural and case
		{1500, "ms", "s", 1.5, "s"},        //
		{2, "hours", "minutes", 7200, "s"}, // an unknown target: the family's default
		{1, "microseconds", "nanosecond", 1000, "ns"},
		{-2048, "bytes", "auto", -2, "kB"},      // auto: the largest unit it is one of
		{5, "count", "auto", 5, ""},             // no family: as is
		{5, "widgets", "widgets", 5, "widgets"}, //
		{7, "", "", 7, ""},                      //
		{1, "gcu", "milligcu", 1000, "m*GCU"},
	} {
		v, u := Scale(c.v, c.from, c.to)
		if v != c.want || u != c.unit {
			t.Errorf("Scale(%d, %q, %q) = %v %q, want %v %q", c.v, c.from, c.to, v, u, c.want, c.unit)
		}
	}
	if !SameFamily("ms", "nanoseconds") || SameFamily("ms", "bytes") || SameFamily("count", "count") {
		t.Error("SameFamily")
	}
}
