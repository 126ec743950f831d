package window_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/window"
)

func read(t *testing.T, name string) *model.Profile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	in, err := formats.Read(bytes.NewReader(b), formats.ReadOptions{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return in.Items[0].Profile
}

func bound(t *testing.T, s string) window.Bound {
	t.Helper()
	b, err := window.ParseBound(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// grouped returns p's samples of sample type ti alone, those of one stack
// and label set made one sample with all their timestamps, its value
// their number (as OTLP's timestamps-only samples read).
func grouped(p *model.Profile, ti int) *model.Profile {
	q := *p
	q.SampleTypes = []model.ValueType{p.SampleTypes[ti]}
	q.Samples = nil
	at := map[[2]int32]int{}
	for _, s := range p.Samples {
		if s.Values()[ti] == 0 {
			continue
		}
		k := [2]int32{s.Stack, s.LabelSet}
		i, ok := at[k]
		if !ok {
			i = len(q.Samples)
			at[k] = i
			q.Samples = append(q.Samples, withLabels(model.NewSample(s.Stack, []int64{0}), s.LabelSet))
		}
		q.Samples[i].SetTimestamps(append(q.Samples[i].Timestamps(), s.Timestamps()...))
		q.Samples[i].Values()[0] += s.Values()[ti]
	}
	return &q
}

func total(p *model.Profile, ti int) (sum int64) {
	for _, s := range p.Samples {
		sum += s.Values()[ti]
	}
	return sum
}

// TestJFR: on a real recording, the window keeps exactly the samples whose
// time is inside, [from, until); a duration counts from the profile's
// time; the profile's time and duration become the window's.
func TestJFR(t *testing.T) {
	p := read(t, "jfr/cpu.jfr")
	t0 := p.TimeNanos
	from, until := t0+300_000_000, t0+900_000_000
	want := 0
	for _, s := range p.Samples {
		if ts := int64(s.Timestamps()[0]); ts >= from && ts < until {
			want++
		}
	}
	if want == 0 || want == len(p.Samples) {
		t.Fatalf("%d of %d samples inside: the window tests nothing", want, len(p.Samples))
	}
	abs := window.Window{From: bound(t, time.Unix(0, from).UTC().Format(time.RFC3339Nano)), Until: bound(t, time.Unix(0, until).UTC().Format(time.RFC3339Nano))}
	rel := window.Window{From: bound(t, "300ms"), Until: bound(t, "900ms")}
	for name, w := range map[string]window.Window{"RFC 3339": abs, "durations": rel} {
		q := read(t, "jfr/cpu.jfr")
		n, err := w.Apply(q)
		if err != nil {
			t.Fatal(err)
		}
		if n != want || len(q.Samples) != want {
			t.Errorf("%s: kept %d samples, want %d", name, n, want)
		}
		for _, s := range q.Samples {
			if ts := int64(s.Timestamps()[0]); ts < from || ts >= until {
				t.Errorf("%s: a sample at %d is outside [%d, %d)", name, ts, from, until)
			}
		}
		if q.TimeNanos != from || q.DurationNanos != until-from {
			t.Errorf("%s: time %d duration %d, want %d %d", name, q.TimeNanos, q.DurationNanos, from, until-from)
		}
		if err := q.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// TestFarBounds: an --until far in the future (a duration past what int64
// nanoseconds hold from the start, or a year after 2262) keeps every
// sample, and a --from far in the past keeps them too, rather than
// wrapping round to an instant that keeps none.
func TestFarBounds(t *testing.T) {
	all := len(read(t, "jfr/cpu.jfr").Samples)
	for i, w := range []window.Window{
		{Until: bound(t, "2562047h")},
		{Until: bound(t, "9999-12-31T23:59:59Z")},
		{From: bound(t, "0001-01-01T00:00:00Z")},
		{From: bound(t, "0s"), Until: bound(t, "2562047h47m16.854775807s")},
	} {
		q := read(t, "jfr/cpu.jfr")
		n, err := w.Apply(q)
		if err != nil {
			t.Fatal(err)
		}
		if n != all {
			t.Errorf("case %d: kept %d of %d samples", i, n, all)
		}
	}
}

// TestSeveralTimestamps: a sample with several timestamps whose value is
// their number (one per timestamp) is cut to those inside; the totals are
// those of the same samples one timestamp each. With values that are not
// one per timestamp, a sample across a bound is an error.
func TestSeveralTimestamps(t *testing.T) {
	p := read(t, "jfr/cpu.jfr") // samples/count is type 0
	w := window.Window{From: bound(t, "200ms"), Until: bound(t, "600ms")}
	lo, hi := uint64(p.TimeNanos+200_000_000), uint64(p.TimeNanos+600_000_000)
	one := read(t, "jfr/cpu.jfr")
	if _, err := w.Apply(one); err != nil {
		t.Fatal(err)
	}
	g := grouped(p, 0)
	across := 0
	for _, s := range g.Samples {
		in := 0
		for _, ts := range s.Timestamps() {
			if ts >= lo && ts < hi {
				in++
			}
		}
		if in > 0 && in < len(s.Timestamps()) {
			across++
		}
	}
	if across == 0 {
		t.Fatal("no sample has timestamps on both sides of a bound: the test tests nothing")
	}
	if _, err := w.Apply(g); err != nil {
		t.Fatal(err)
	}
	if total(g, 0) != total(one, 0) || total(one, 0) == 0 {
		t.Errorf("grouped: %d samples inside, one by one %d", total(g, 0), total(one, 0))
	}
	for _, s := range g.Samples {
		if int(s.Values()[0]) != len(s.Timestamps()) {
			t.Errorf("a sample cut to %d timestamps has value %d", len(s.Timestamps()), s.Values()[0])
		}
	}

	// cpu/nanoseconds (type 1): values are not one per timestamp.
	cpu := grouped(p, 1)
	_, err := w.Apply(cpu)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("cannot be divided")) {
		t.Errorf("values not per timestamp across a bound: %v", err)
	}
}

func TestNoTimestamps(t *testing.T) {
	p := read(t, "go/cpu.pb.gz")
	_, err := window.Window{From: bound(t, "1s")}.Apply(p)
	var nt *window.NoTimestampsError
	if !errors.As(err, &nt) || nt.Without != len(p.Samples) {
		t.Errorf("%v", err)
	}
}

func TestParseBound(t *testing.T) {
	for _, s := range []string{"2026-11-21T12:14:25Z", "2026-11-21T12:14:25.123456789+01:00", "1.5s", "0s", "2m30s"} {
		if _, err := window.ParseBound(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"", "-1s", "2026-11-21", "12:00", "yesterday", "5"} {
		if _, err := window.ParseBound(s); err == nil {
			t.Errorf("%q was taken", s)
		}
	}
}

// withLabels is s with the label set ls.
func withLabels(s model.Sample, ls int32) model.Sample {
	s.LabelSet = ls
	return s
}
