// Package filter applies google/pprof's sample filters to a profile of the
// model: focus, ignore, hide, show, show_from, tagfocus, tagignore and
// prune_from, with the rules of pprof's profile/filter.go, profile/prune.go
// and internal/driver, in the order pprof's driver applies them.
//
// It works on the model directly, not through pprof's library, so that
// what pprof's Profile has no field for (OpenTelemetry attributes, sample
// timestamps and links, the resource) is kept on the samples that stay.
package filter

import (
	"fmt"
	"regexp"

	"github.com/pprofx/pprofx/internal/model"
)

// Options are the filter expressions, as pprof's flags of the same names
// take them; "" leaves a filter out.
type Options struct {
	Focus, Ignore, Hide, Show string // regexps
	ShowFrom                  string // regexp
	TagFocus, TagIgnore       string // tag filter expressions
	PruneFrom                 string // regexp
}

// Empty reports whether no filter is set.
func (o Options) Empty() bool { return o == Options{} }

// Error is an expression that does not compile: Flag names its option
// (focus, tagignore, ...).
type Error struct {
	Flag string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("--%s: %v", e.Flag, e.Err) }

func (e *Error) Unwrap() error { return e.Err }

// Filter is a compiled set of filters.
type Filter struct {
	focus, ignore, hide, show, showFrom, pruneFrom *regexp.Regexp
	tagFocus, tagIgnore                            *tagFilter
}

// Compile compiles the expressions of o.
func Compile(o Options) (*Filter, error) {
	f := &Filter{}
	for _, r := range []struct {
		flag, expr string
		dst        **regexp.Regexp
	}{
		{"focus", o.Focus, &f.focus}, {"ignore", o.Ignore, &f.ignore},
		{"hide", o.Hide, &f.hide}, {"show", o.Show, &f.show},
		{"show-from", o.ShowFrom, &f.showFrom}, {"prune-from", o.PruneFrom, &f.pruneFrom},
	} {
		if r.expr == "" {
			continue
		}
		rx, err := regexp.Compile(r.expr)
		if err != nil {
			return nil, &Error{r.flag, err}
		}
		*r.dst = rx
	}
	for _, t := range []struct {
		flag, expr string
		dst        **tagFilter
	}{{"tagfocus", o.TagFocus, &f.tagFocus}, {"tagignore", o.TagIgnore, &f.tagIgnore}} {
		if t.expr == "" {
			continue
		}
		tf, err := parseTag(t.expr)
		if err != nil {
			return nil, &Error{t.flag, err}
		}
		*t.dst = tf
	}
	return f, nil
}

// Apply filters p in place, as pprof's driver does: focus, ignore, hide
// and show (FilterSamplesByName), then show_from, then tagfocus and
// tagignore, then prune_from. warn is told, as pprof tells, of each
// expression that matched nothing. Locations, functions and mappings that
// no sample uses any more stay in their tables, as in pprof's output.
func (f *Filter) Apply(p *model.Profile, warn func(string)) {
	if warn == nil {
		warn = func(string) {}
	}
	// Units of numeric labels: pprof finds them before filtering.
	numUnits := numLabelUnits(p)
	st := newStacks(p)
	if f.focus != nil || f.ignore != nil || f.hide != nil || f.show != nil {
		fm, im, hm, hnm := f.byName(p, st)
		noMatch(warn, f.focus == nil || fm, "focus")
		noMatch(warn, f.ignore == nil || im, "ignore")
		noMatch(warn, f.hide == nil || hm, "hide")
		noMatch(warn, f.show == nil || hnm, "show")
	}
	if f.showFrom != nil {
		noMatch(warn, f.showFromApply(p, st), "show-from")
	}
	if f.tagFocus != nil || f.tagIgnore != nil {
		st.removeDropped(p)
		tfm, tim := f.byTag(p, numUnits)
		noMatch(warn, f.tagFocus == nil || tfm, "tagfocus")
		noMatch(warn, f.tagIgnore == nil || tim, "tagignore")
	}
	if f.pruneFrom != nil {
		f.pruneFromApply(p, st)
	}
	st.finish(p)
}

func noMatch(warn func(string), matched bool, flag string) {
	if !matched {
		warn(fmt.Sprintf("--%s expression matched no samples", flag))
	}
}
