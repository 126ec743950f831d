package top

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A unit family: the canonical names and sizes of its units, smallest
// first, the aliases a profile may name them by, and the unit used when
// a value is below the smallest.
type family struct {
	units    []unit
	fallback string
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
	}, fallback: "B"},
	{units: []unit{
		{"ns", []string{"ns", "nanosecond"}, 1},
		{"us", []string{"μs", "us", "microsecond"}, 1e3},
		{"ms", []string{"ms", "millisecond"}, 1e6},
		{"s", []string{"s", "sec", "second"}, 1e9},
		{"hrs", []string{"hour", "hr"}, 3600e9},
	}, fallback: "s"},
}

// find returns the family and unit a profile's unit name belongs to.
func find(name string) (*family, *unit) {
	name = strings.ToLower(name)
	if utf8.RuneCountInString(name) > 2 {
		name = strings.TrimSuffix(name, "s")
	}
	for fi := range families {
		f := &families[fi]
		for ui := range f.units {
			for _, a := range f.units[ui].aliases {
				if a == name {
					return f, &f.units[ui]
				}
			}
		}
	}
	return nil, nil
}

func (f *family) byName(name string) *unit {
	for i := range f.units {
		if f.units[i].name == name {
			return &f.units[i]
		}
	}
	return nil
}

// scale converts v (in unit from) to unit to, or, when to is "auto", to
// the largest unit it is at least one of.
func scale(v int64, from, to string) (float64, string) {
	if v < 0 && -v > 0 {
		x, u := scale(-v, from, to)
		return -x, u
	}
	f, u := find(from)
	if f == nil {
		switch to {
		case "count", "sample", "unit", "auto":
			return float64(v), ""
		}
		return float64(v), to
	}
	base := float64(v) * u.factor
	if to == "auto" {
		best := (*unit)(nil)
		for i := range f.units {
			if base/f.units[i].factor >= 1 && (best == nil || f.units[i].factor >= best.factor) {
				best = &f.units[i]
			}
		}
		if best == nil {
			best = f.byName(f.fallback)
		}
		return base / best.factor, best.name
	}
	tu := f.byName(to)
	if tu == nil {
		tu = f.byName(f.fallback)
	}
	return base / tu.factor, tu.name
}

// outputUnit picks the unit every value of the table is printed in, as
// pprof does: the unit of the smallest non-zero row value, moved up when
// the total is over 100 times larger and in a larger unit.
func outputUnit(rows []Row, total int64, sampleUnit string) string {
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	var minV int64
	for _, r := range rows {
		m := abs(r.Flat)
		if m == 0 {
			m = abs(r.Cum)
		}
		if m > 0 && (minV == 0 || m < minV) {
			minV = m
		}
	}
	if minV == 0 {
		minV = total
	}
	_, minU := scale(minV, sampleUnit, "auto")
	_, maxU := scale(total, sampleUnit, "auto")
	u := minU
	if minU != maxU && minV*100 < total {
		_, u = scale(100*minV, sampleUnit, "auto")
	}
	if u == "" {
		return sampleUnit
	}
	return u
}

// label formats v (in unit from) in unit to: two decimals, ".00" dropped.
func label(v int64, from, to string) string {
	x, u := scale(v, from, to)
	s := strings.TrimSuffix(fmt.Sprintf("%.2f", x), ".00")
	if s == "0" || s == "-0" {
		return "0"
	}
	return s + u
}
