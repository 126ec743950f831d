package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/transform/filter"
	"github.com/pprofx/pprofx/internal/transform/window"
)

// FilterFlags are pprof's sample filters, with pprof's names (show_from
// and prune_from spelled with a hyphen), as convert, top, push and diff
// take them: one registration, one meaning (docs/diff-and-filters.md).
type FilterFlags struct {
	filter.Options
	compiled *filter.Filter

	// From and Until are the time window (--from, --until): RFC 3339 or
	// a duration from the profile's start. Not --to: convert's --to is
	// the output format.
	From, Until string
	window      *window.Window
}

// filterHelp is the text --help shows after a command's own.
const filterHelp = `
Filters (google/pprof's, with its meaning and order; see
docs/diff-and-filters.md): --focus and --ignore keep the samples with a frame
whose function, file or mapping matches (and none matching --ignore);
--hide and --show remove (keep) the matching frames, inline ones too;
--show-from drops the frames above the most rootward match; --tagfocus and
--tagignore match labels ([KEY=]REGEXP,... or a numeric range such as
bytes=1kb:10kb, kb = 1024); --prune-from drops the frames below a matching
function. Regexps are unanchored.

Time window (profiles whose samples carry timestamps: OTLP, JFR): --from
and --until keep the samples taken at or after --from and before --until,
each RFC 3339 (2026-11-21T12:14:25.5Z) or a duration from the profile's
start (1.5s, 2m); either may be left out. It applies first, before the
filters above (to both inputs of diff). An input without timestamps is an
error.`

func (ff *FilterFlags) register(f *pflag.FlagSet) {
	f.StringVar(&ff.Focus, "focus", "", "keep samples with a frame matching REGEXP (function, file or mapping)")
	f.StringVar(&ff.Ignore, "ignore", "", "drop samples with a frame matching REGEXP")
	f.StringVar(&ff.Hide, "hide", "", "remove frames (inline ones too) matching REGEXP")
	f.StringVar(&ff.Show, "show", "", "keep only frames (inline ones too) matching REGEXP")
	f.StringVar(&ff.ShowFrom, "show-from", "", "drop frames above (rootward of) the most rootward one matching REGEXP")
	f.StringVar(&ff.PruneFrom, "prune-from", "", "drop frames below (leafward of) a function matching REGEXP")
	f.StringVar(&ff.TagFocus, "tagfocus", "", "keep samples with labels matching [KEY=]REGEXP,... or a range (bytes=1kb:10kb)")
	f.StringVar(&ff.TagIgnore, "tagignore", "", "drop samples with labels matching [KEY=]REGEXP,... or a range")
	f.StringVar(&ff.From, "from", "", "keep samples taken at or after TIME: RFC 3339, or a duration from the start (1.5s)")
	f.StringVar(&ff.Until, "until", "", "keep samples taken before TIME: RFC 3339, or a duration from the start (1.5s)")
}

// compile checks the expressions: a bad one is a usage error that names
// its flag.
func (ff *FilterFlags) compile() error {
	if ff.From != "" || ff.Until != "" {
		w := &window.Window{}
		for _, b := range []struct {
			flag, expr string
			dst        *window.Bound
		}{{"from", ff.From, &w.From}, {"until", ff.Until, &w.Until}} {
			if b.expr == "" {
				continue
			}
			v, err := window.ParseBound(b.expr)
			if err != nil {
				return &UsageError{fmt.Sprintf("--%s: %v", b.flag, err)}
			}
			*b.dst = v
		}
		ff.window = w
	}
	if ff.Empty() {
		return nil
	}
	f, err := filter.Compile(ff.Options)
	if err != nil {
		var fe *filter.Error
		if errors.As(err, &fe) {
			return &UsageError{fe.Error()}
		}
		return &UsageError{err.Error()}
	}
	ff.compiled = f
	return nil
}

// apply filters every profile of items; warn is told of expressions that
// matched nothing.
func (ff *FilterFlags) apply(items []formats.Item, warn func(string)) {
	if ff.compiled == nil {
		return
	}
	for _, it := range items {
		if it.Profile != nil {
			ff.compiled.Apply(it.Profile, warn)
		}
	}
}

// cut keeps the samples of p inside the time window, if one is set; name
// is p's input, which an error names.
func (ff *FilterFlags) cut(p *model.Profile, name string, warn func(string)) error {
	if ff.window == nil || p == nil {
		return nil
	}
	n, err := ff.window.Apply(p)
	if err != nil {
		return &FileError{name, err}
	}
	if n == 0 {
		warn("no sample is inside the window of --from and --until")
	}
	return nil
}

// cutAll is cut on every profile of items.
func (ff *FilterFlags) cutAll(items []formats.Item, name string, warn func(string)) error {
	for _, it := range items {
		if err := ff.cut(it.Profile, name, warn); err != nil {
			return err
		}
	}
	return nil
}

// active reports whether any filter or window is set.
func (ff *FilterFlags) active() bool { return !ff.Empty() || ff.From != "" || ff.Until != "" }
