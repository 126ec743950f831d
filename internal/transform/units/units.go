// Package units converts measurements between the units google/pprof
// knows (bytes, time, Google Compute Units), with pprof's rules: unit names
// are matched case-insensitively, a trailing "s" of a name longer than two
// characters is ignored, and a value in a unit of no known family is kept
// as it is. The transforms use it where pprof scales (numeric tag filter
// ranges such as 1kb:10kb, the sample types of profiles that are merged),
// and top where pprof prints values in a unit.
package units

import (
	"strings"
	"unicode/utf8"
)

type family struct {
	units    []unit
	fallback unit // the unit of a conversion to an unknown unit
}

type unit struct {
	name    string
	aliases []string
	factor  float64
}

var families = []family{
	{units: []unit{
		{"B", []string{"b", "byte"}, 1},
		{"kB", []string{"kb", "kbyte", "kilobyte"}, 1 << 10},
		{"MB", []string{"mb", "mbyte", "megabyte"}, 1 << 20},
		{"GB", []string{"gb", "gbyte", "gigabyte"}, 1 << 30},
		{"TB", []string{"tb", "tbyte", "terabyte"}, 1 << 40},
		{"PB", []string{"pb", "pbyte", "petabyte"}, 1 << 50},
	}, fallback: unit{"B", nil, 1}},
	{units: []unit{
		{"ns", []string{"ns", "nanosecond"}, 1},
		{"us", []string{"μs", "us", "microsecond"}, 1e3},
		{"ms", []string{"ms", "millisecond"}, 1e6},
		{"s", []string{"s", "sec", "second"}, 1e9},
		{"hrs", []string{"hour", "hr"}, 3600e9},
	}, fallback: unit{"s", nil, 1e9}},
	{units: []unit{
		{"n*GCU", []string{"nanogcu"}, 1e-9},
		{"u*GCU", []string{"microgcu"}, 1e-6},
		{"m*GCU", []string{"milligcu"}, 1e-3},
		{"GCU", []string{"gcu"}, 1},
		{"k*GCU", []string{"kilogcu"}, 1e3},
		{"M*GCU", []string{"megagcu"}, 1e6},
		{"G*GCU", []string{"gigagcu"}, 1e9},
		{"T*GCU", []string{"teragcu"}, 1e12},
		{"P*GCU", []string{"petagcu"}, 1e15},
	}, fallback: unit{"GCU", nil, 1}},
}

// sniff returns the unit of f that a name stands for, or nil.
func (f *family) sniff(name string) *unit {
	name = strings.ToLower(name)
	if utf8.RuneCountInString(name) > 2 {
		name = strings.TrimSuffix(name, "s")
	}
	for i := range f.units {
		for _, a := range f.units[i].aliases {
			if a == name {
				return &f.units[i]
			}
		}
	}
	return nil
}

// Scale converts v from unit from to unit to and returns the value and the
// canonical name of the unit it is in. to may be "auto" or "minimum" (the
// largest unit the value is at least one of). When from belongs to no
// family, v is returned unchanged, with unit "" for the uninteresting
// names (count, sample, unit, minimum, auto) and to otherwise.
func Scale(v int64, from, to string) (float64, string) {
	if v < 0 && -v > 0 {
		x, u := Scale(-v, from, to)
		return -x, u
	}
	for i := range families {
		f := &families[i]
		fu := f.sniff(from)
		if fu == nil {
			continue
		}
		base := float64(v) * fu.factor
		if to == "minimum" || to == "auto" {
			var best *unit
			for j := range f.units {
				u := &f.units[j]
				if (best == nil || u.factor >= best.factor) && base/u.factor >= 1 {
					best = u
				}
			}
			if best == nil {
				best = &f.fallback
			}
			return base / best.factor, best.name
		}
		tu := f.sniff(to)
		if tu == nil {
			tu = &f.fallback
		}
		return base / tu.factor, tu.name
	}
	switch to {
	case "count", "sample", "unit", "minimum", "auto":
		return float64(v), ""
	}
	return float64(v), to
}

// Known reports whether name is a unit of one of the families.
func Known(name string) bool {
	for i := range families {
		if families[i].sniff(name) != nil {
			return true
		}
	}
	return false
}

// SameFamily reports whether some family knows both units (pprof's test
// of compatible value types).
func SameFamily(a, b string) bool {
	for i := range families {
		if families[i].sniff(a) != nil && families[i].sniff(b) != nil {
			return true
		}
	}
	return false
}
