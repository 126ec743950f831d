package window

import (
	"math"
	"strings"
	"testing"
	"time"
)

// ParseBound never panics, answers in one line, and a bound it accepts
// lands where it says: a duration at or after the start (never wrapped
// round past the largest instant), an instant at its own nanosecond or,
// out of int64's range, at the end of it on its side.
func FuzzParseBound(f *testing.F) {
	for _, s := range []string{"2026-11-21T12:14:25Z", "2026-11-21T12:14:25.123456789+02:00", "500ms", "1m30s", "0",
		"-1s", "2562047h47m16.854775807s", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "2262-04-11T23:47:16.854775808Z", "T:", ""} {
		f.Add(s, int64(1_763_727_265_000_000_000))
	}
	f.Fuzz(func(t *testing.T, s string, start int64) {
		b, err := ParseBound(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error on more than one line: %v", s, err)
			}
			if b.IsSet() {
				t.Fatalf("%q: error %v and a bound set", s, err)
			}
			return
		}
		if !b.IsSet() {
			t.Fatalf("%q: no error and no bound", s)
		}
		at := b.at(start)
		if b.relative {
			if b.rel < 0 || at < start {
				t.Fatalf("%q from %d: at %d, before the start", s, start, at)
			}
			if want := start + int64(b.rel); want >= start && at != want {
				t.Fatalf("%q from %d: at %d, want %d", s, start, at, want)
			}
			return
		}
		switch {
		case b.abs.After(time.Unix(0, math.MaxInt64)):
			if at != math.MaxInt64 {
				t.Fatalf("%q: at %d, want the largest instant", s, at)
			}
		case b.abs.Before(time.Unix(0, math.MinInt64)):
			if at != math.MinInt64 {
				t.Fatalf("%q: at %d, want the smallest instant", s, at)
			}
		case !time.Unix(0, at).Equal(b.abs):
			t.Fatalf("%q: at %d is %v, want %v", s, at, time.Unix(0, at).UTC(), b.abs)
		}
	})
}
