// Package window keeps the samples of a profile taken inside a time
// window, by their timestamps (model.Sample.Timestamps: OTLP's
// timestamps_unix_nano, JFR's event start times, perf script's sample
// times when its header ties perf's clock to the time of day).
package window

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pprofx/pprofx/internal/model"
)

// Bound is one end of a window: an instant, or a duration from the
// profile's start.
type Bound struct {
	set      bool
	abs      time.Time
	relative bool
	rel      time.Duration
}

// ParseBound reads RFC 3339 ("2026-11-21T12:14:25Z", fractions of a
// second allowed) or a duration from the profile's start, as Go writes
// durations ("500ms", "1m30s"; not negative).
func ParseBound(s string) (Bound, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return Bound{set: true, abs: t}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if strings.ContainsAny(s, "T:") {
			return Bound{}, fmt.Errorf("%q is not RFC 3339 (2026-11-21T12:14:25Z)", s)
		}
		return Bound{}, fmt.Errorf("%q is neither RFC 3339 (2026-11-21T12:14:25Z) nor a duration from the start (1m30s)", s)
	}
	if d < 0 {
		return Bound{}, fmt.Errorf("%q: a duration from the start is not negative", s)
	}
	return Bound{set: true, relative: true, rel: d}, nil
}

// IsSet reports whether b was given.
func (b Bound) IsSet() bool { return b.set }

// at is b in nanoseconds since the epoch, for a profile starting at start.
// An instant past what int64 nanoseconds hold (after 2262, or a duration
// that reaches past it) is the largest; one before 1678, the smallest.
func (b Bound) at(start int64) int64 {
	if b.relative {
		if int64(b.rel) > math.MaxInt64-start {
			return math.MaxInt64
		}
		return start + int64(b.rel)
	}
	switch {
	case b.abs.After(maxInstant):
		return math.MaxInt64
	case b.abs.Before(minInstant):
		return math.MinInt64
	}
	return b.abs.UnixNano()
}

// The instants int64 nanoseconds since the epoch hold.
var (
	minInstant = time.Unix(0, math.MinInt64)
	maxInstant = time.Unix(0, math.MaxInt64)
)

// Window keeps the samples taken at or after From and before Until (an
// unset bound leaves that side open).
type Window struct{ From, Until Bound }

// NoTimestampsError says that a profile has a sample without a timestamp.
type NoTimestampsError struct{ Samples, Without int }

func (e *NoTimestampsError) Error() string {
	if e.Without == e.Samples {
		return "no sample has a timestamp: --from and --until need sample times (OTLP with timestamps, JFR, perf script with a time-of-day reference)"
	}
	return fmt.Sprintf("%d of %d samples have no timestamp: --from and --until need every sample's time", e.Without, e.Samples)
}

// Start is the instant durations are counted from: OpenTelemetry's start
// time when the profile has one, else its time (pprof's time_nanos).
func Start(p *model.Profile) int64 {
	if p.StartTimeUnixNano != 0 {
		return int64(p.StartTimeUnixNano)
	}
	return p.TimeNanos
}

// Apply keeps p's samples inside w, in place. A sample with several
// timestamps is kept whole when all are inside and dropped when none is;
// when some are, it is cut to those inside only if each of its values is
// its number of timestamps (one per timestamp, as the OTLP reader counts
// a sample with timestamps and no values), each value becoming the number
// kept; otherwise its values cannot be divided between its times and it
// is an error. The profile's time and duration (and OpenTelemetry's start
// and end) become the window's, where it is narrower. It returns how many
// samples were kept.
func (w Window) Apply(p *model.Profile) (int, error) {
	without := 0
	for i := range p.Samples {
		if len(p.Samples[i].Timestamps()) == 0 {
			without++
		}
	}
	if without > 0 || len(p.Samples) == 0 {
		return 0, &NoTimestampsError{len(p.Samples), without}
	}
	start := Start(p)
	lo, hi := int64(-1<<63), int64(1<<63-1)
	if w.From.set {
		lo = w.From.at(start)
	}
	if w.Until.set {
		hi = w.Until.at(start)
	}
	inside := func(t uint64) bool { return t <= 1<<63-1 && int64(t) >= lo && int64(t) < hi }
	kept := p.Samples[:0]
	for i := range p.Samples {
		s := p.Samples[i]
		n := 0
		for _, t := range s.Timestamps() {
			if inside(t) {
				n++
			}
		}
		switch {
		case n == 0:
			continue
		case n < len(s.Timestamps()):
			for _, v := range s.Values() {
				if v != int64(len(s.Timestamps())) {
					return 0, fmt.Errorf("sample %d has %d timestamps, %d inside the window, and values (%v) that are not one per timestamp: they cannot be divided between its times", i, len(s.Timestamps()), n, s.Values())
				}
			}
			ts := make([]uint64, 0, n)
			for _, t := range s.Timestamps() {
				if inside(t) {
					ts = append(ts, t)
				}
			}
			vals := make([]int64, len(s.Values()))
			for j := range vals {
				vals[j] = int64(n)
			}
			s.SetTimestamps(ts)
			s.SetValues(vals)
		}
		kept = append(kept, s)
	}
	clear(p.Samples[len(kept):])
	p.Samples = kept
	narrow(p, lo, hi)
	return len(kept), nil
}

// narrow makes p's time span the part of it inside [lo, hi).
func narrow(p *model.Profile, lo, hi int64) {
	if p.TimeNanos != 0 {
		t0, t1 := p.TimeNanos, p.TimeNanos+p.DurationNanos
		if lo > t0 {
			t0 = lo
		}
		if p.DurationNanos > 0 && hi < t1 {
			t1 = hi
		}
		p.TimeNanos = t0
		if p.DurationNanos > 0 {
			p.DurationNanos = max(0, t1-t0)
		}
	}
	if p.StartTimeUnixNano != 0 && lo > int64(p.StartTimeUnixNano) {
		p.StartTimeUnixNano = uint64(lo)
	}
	if p.EndTimeUnixNano != 0 && hi < int64(p.EndTimeUnixNano) {
		p.EndTimeUnixNano = uint64(max(hi, int64(p.StartTimeUnixNano)))
	}
}
