package top

import (
	"fmt"
	"strings"

	"github.com/pprofx/pprofx/internal/transform/units"
)

// scale converts v (in unit from) to unit to, or, when to is "auto", to
// the largest unit it is at least one of: pprof's measurement rules, the
// same the transforms scale by.
func scale(v int64, from, to string) (float64, string) { return units.Scale(v, from, to) }

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
