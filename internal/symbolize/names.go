package symbolize

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// demangleOpts are pprof's default demangling: names without parameters,
// enclosing parameters or template arguments.
var demangleOpts = []demangle.Option{demangle.NoParams, demangle.NoEnclosingParams, demangle.NoTemplateParams}

// displayName returns the Function.Name for a symbol name (which stays in
// SystemName): the demangled C++ name, simplified as pprof shows it by
// default; a name that does not demangle but looks like C++ already loses
// its parameters and template arguments the same way.
func displayName(sys string) string {
	if sys == "" {
		return ""
	}
	if d := demangle.Filter(sys, demangleOpts...); d != sys {
		return d
	}
	if looksLikeCPlusPlus(sys) {
		return removeNested(removeNested(sys, '(', ')'), '<', '>')
	}
	return sys
}

// looksLikeCPlusPlus: a qualified or templated name that is not a Java
// "class.<init>" or a Go "pkg.(*T[...]).M".
func looksLikeCPlusPlus(s string) bool {
	if strings.Contains(s, ".<") || strings.Contains(s, "]).") {
		return false
	}
	return strings.ContainsAny(s, "<>[]") || strings.Contains(s, "::")
}

// removeNested removes every outermost open...close group from s; an
// unbalanced s is returned as it is.
func removeNested(s string, open, close byte) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
			continue
		case close:
			depth--
			if depth < 0 {
				return s
			}
			continue
		}
		if depth == 0 {
			b.WriteByte(s[i])
		}
	}
	if depth != 0 {
		// pprof keeps what it removed before the unclosed group.
		return s
	}
	return b.String()
}
