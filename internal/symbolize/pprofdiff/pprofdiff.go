// Package pprofdiff knows the ways google/pprof's symbolization (binutils'
// addr2line and nm under it) is wrong where pprofx's differs from it, as
// testdata/symbolize/ref/README lists them, so that a comparison of the
// two (the reference tests, internal/tools/symcmp) sets those right and
// counts them, and fails on any other difference.
package pprofdiff

import "strings"

// Frame is one frame of a location, as google/pprof's profile package
// reads it.
type Frame struct {
	Name, SystemName, File string
	Line                   int64
}

// NoLineFile turns the file name pprof keeps for a frame without a line
// ("??:?", addr2line's; README item 1) into pprofx's, "", and says whether
// it did.
func NoLineFile(file string) (string, bool) {
	if file == "??:?" || file == ":?" || file == "??" {
		return "", true
	}
	return file, false
}

// CompDirTwice says whether want is got with a relative compilation
// directory joined to it a second time (README item 4): got
// ./app/relprog.c, want ./app/./app/relprog.c.
func CompDirTwice(got, want string) bool {
	for k := strings.IndexByte(got, '/'); k > 0; {
		if d := got[:k]; !strings.HasPrefix(d, "/") && want == d+"/"+got {
			return true
		}
		j := strings.IndexByte(got[k+1:], '/')
		if j < 0 {
			break
		}
		k += 1 + j
	}
	return false
}

// Known says whether frame i of pprof's chain want differs from pprofx's
// got in one of the ways pprof is wrong, and which:
//
// "comp-dir-twice" (README item 4): the same frame, the file with the
// compilation directory joined twice.
//
// "inlined-named-as-caller" (item 2): addr2line names the innermost frame
// after the ELF symbol at the first address of the innermost function's
// code when DWARF gives that function no linkage name. For an inlined
// frame (std:: templates, atoi) that symbol is the function it was inlined
// into: the chain then names that function twice, the innermost time at a
// line of the inlined function's source (stl_algo.h:1937 is std::__sort's,
// not geo::Cloud::sortByNorm's).
//
// "unqualified-outer-name" (item 3): the same out-of-line template
// instance (std::__introsort_loop<...>) is named by its symbol where it is
// the innermost frame, but by DWARF's unqualified "__introsort_loop<...>"
// where code is inlined into it: one function, two names. pprofx names it
// by its symbol in both places.
func Known(i int, got, want []Frame) string {
	g, w := got[i], want[i]
	if g.Name == w.Name && g.SystemName == w.SystemName && g.Line == w.Line && g.File != w.File &&
		CompDirTwice(g.File, w.File) {
		return "comp-dir-twice"
	}
	if g == w || g.File != w.File || g.Line != w.Line || len(got) < 2 {
		return ""
	}
	last := got[len(got)-1]
	if i == 0 && w.Name == last.Name && w.SystemName == last.SystemName {
		return "inlined-named-as-caller"
	}
	if i == len(got)-1 && strings.HasPrefix(g.SystemName, "_Z") && !strings.HasPrefix(w.SystemName, "_Z") &&
		strings.HasSuffix(g.Name, "::"+w.Name) {
		return "unqualified-outer-name"
	}
	return ""
}
