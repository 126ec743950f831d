package filter

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pprofx/pprofx/internal/transform/units"
)

// tagRangeRx finds the numbers of a numeric tag filter: a signed integer
// and an optional unit of letters, as pprof's driver finds them.
var tagRangeRx = regexp.MustCompile("([+-]?[[:digit:]]+)([[:alpha:]]+)?")

// tagFilter is a compiled --tagfocus or --tagignore: either a numeric
// range over numeric labels or a list of regexps over string labels.
type tagFilter struct {
	key string // "" = any key

	// Numeric: the range, in unit (a canonical unit name, or the name
	// given when it belongs to no family).
	numeric  bool
	lo, hi   float64
	hasLo    bool
	hasHi    bool
	unit     string
	rxs      []*regexp.Regexp
	rxSource string
}

// parseTag compiles a tag filter expression as pprof's driver does:
//
//	[KEY=]VALUE
//
// where VALUE is a numeric range (32kb, :64kb, 4mb:, 12kb:64mb, a
// number without a unit) when it reads as one, and otherwise a
// comma-separated list of regexps. Without KEY=, a regexp is matched
// against "key:value" of every string label and every regexp of the list
// must match some label; with KEY=, against KEY's values, and any regexp
// of the list may match. A range matches a numeric label whose value,
// in the unit its key has in the profile, is inside it.
func parseTag(expr string) (*tagFilter, error) {
	t := &tagFilter{}
	value := expr
	if k, v, ok := strings.Cut(expr, "="); ok {
		t.key, value = k, v
	}
	ok, err := t.parseRange(value)
	if err != nil {
		return nil, err
	}
	if ok {
		return t, nil
	}
	t.rxSource = value
	for _, s := range strings.Split(value, ",") {
		rx, err := regexp.Compile(s)
		if err != nil {
			return nil, err
		}
		t.rxs = append(t.rxs, rx)
	}
	return t, nil
}

// parseRange reads value as a numeric range; false when it is not one
// (then it is a list of regexps). A number pprof cannot read (beyond
// 64 bits) is an error here, where pprof's driver panics.
func (t *tagFilter) parseRange(value string) (bool, error) {
	m := tagRangeRx.FindAllStringSubmatch(value, 2)
	if len(m) == 0 {
		return false, nil
	}
	num := func(s string) (int64, error) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q: a number out of the range of 64 bits", s)
		}
		return v, nil
	}
	if len(m) == 1 {
		match := m[0][0]
		switch value {
		case match:
			t.hasLo, t.hasHi = true, true
		case match + ":":
			t.hasLo = true
		case ":" + match:
			t.hasHi = true
		default:
			return false, nil
		}
		v, err := num(m[0][1])
		if err != nil {
			return false, err
		}
		x, u := units.Scale(v, m[0][2], m[0][2])
		t.numeric, t.lo, t.hi, t.unit = true, x, x, u
		return true, nil
	}
	if value != m[0][0]+":"+m[1][0] {
		return false, nil
	}
	v1, err := num(m[0][1])
	if err != nil {
		return false, err
	}
	lo, u := units.Scale(v1, m[0][2], m[0][2])
	v2, err := num(m[1][1])
	if err != nil {
		return false, err
	}
	hi, u2 := units.Scale(v2, m[1][2], u)
	if u != u2 {
		return false, nil
	}
	t.numeric, t.hasLo, t.hasHi, t.lo, t.hi, t.unit = true, true, true, lo, hi, u
	return true, nil
}

// inRange reports whether v, in unit u, is inside the numeric range.
func (t *tagFilter) inRange(v int64, u string) bool {
	x, su := units.Scale(v, u, t.unit)
	if su != t.unit {
		return false
	}
	return (!t.hasLo || x >= t.lo) && (!t.hasHi || x <= t.hi)
}

// sampleLabels is one sample's labels as pprof reads them: string labels
// by key, numeric ones by key (a numeric label with value 0 and no unit
// is no label to pprof).
type sampleLabels struct {
	str []strLabel
	num []numLabel
}

type strLabel struct{ key, value string }

type numLabel struct {
	key   string
	value int64
}

// match reports whether a sample with these labels matches; numUnits is
// the unit of each numeric key in the profile.
func (t *tagFilter) match(ls *sampleLabels, numUnits map[string]string) bool {
	if t.numeric {
		for _, l := range ls.num {
			if (t.key == "" || l.key == t.key) && t.inRange(l.value, numUnits[l.key]) {
				return true
			}
		}
		return false
	}
	if t.key == "" {
	next:
		for _, rx := range t.rxs {
			for _, l := range ls.str {
				if rx.MatchString(l.key + ":" + l.value) {
					continue next
				}
			}
			return false
		}
		return true
	}
	for _, rx := range t.rxs {
		for _, l := range ls.str {
			if l.key == t.key && rx.MatchString(l.value) {
				return true
			}
		}
	}
	return false
}
