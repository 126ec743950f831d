package cli

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/transform/filter"
)

// FilterFlags are pprof's sample filters, with pprof's names (show_from
// and prune_from spelled with a hyphen), as convert, top, push and diff
// take them: one registration, one meaning (docs/diff-and-filters.md).
type FilterFlags struct {
	filter.Options
	compiled *filter.Filter
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
function. Regexps are unanchored.`

func (ff *FilterFlags) register(f *pflag.FlagSet) {
	f.StringVar(&ff.Focus, "focus", "", "keep samples with a frame matching REGEXP (function, file or mapping)")
	f.StringVar(&ff.Ignore, "ignore", "", "drop samples with a frame matching REGEXP")
	f.StringVar(&ff.Hide, "hide", "", "remove frames (inline ones too) matching REGEXP")
	f.StringVar(&ff.Show, "show", "", "keep only frames (inline ones too) matching REGEXP")
	f.StringVar(&ff.ShowFrom, "show-from", "", "drop frames above (rootward of) the most rootward one matching REGEXP")
	f.StringVar(&ff.PruneFrom, "prune-from", "", "drop frames below (leafward of) a function matching REGEXP")
	f.StringVar(&ff.TagFocus, "tagfocus", "", "keep samples with labels matching [KEY=]REGEXP,... or a range (bytes=1kb:10kb)")
	f.StringVar(&ff.TagIgnore, "tagignore", "", "drop samples with labels matching [KEY=]REGEXP,... or a range")
}

// compile checks the expressions: a bad one is a usage error that names
// its flag.
func (ff *FilterFlags) compile() error {
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

// active reports whether any filter is set.
func (ff *FilterFlags) active() bool { return !ff.Empty() }
