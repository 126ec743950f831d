package otlp

import "github.com/pprofx/pprofx/internal/model"

// Conventions (pprofx's, documented in docs/otlp.md): a mapping's
// pprof.mapping.has_functions, has_filenames and has_line_numbers
// attributes may be left out when their value is the one a reader infers
// from the dictionary, and are then inferred:
//
//	has_functions is true when the mapping has at least one location in
//	the dictionary's location_table, and every location of it has at least
//	one line, and every such line names a function whose name or
//	system name is not empty; false otherwise.
//
//	has_filenames is true when the mapping has has_inline_frames true and
//	some line of a location of it names a function with a file name;
//	has_line_numbers likewise with a line whose line number is not 0;
//	false otherwise.
//
// The writer omits an attribute when the flag equals its inference and
// writes it (true or false) when not, so a round trip restores every flag
// exactly. has_inline_frames itself is never inferred: absent means false.
//
// Why these rules: a Go runtime profile's binary has has_functions set and
// all its frames named, and its unused [vdso]/[vsyscall] mappings have no
// location; Go sets no other flag, and never has_inline_frames. A
// symbolizer sets has_inline_frames on each mapping it symbolized, and
// has_filenames / has_line_numbers when some frame got a file / a line
// (google/pprof's internal/symbolizer, and pprofx's with DWARF). Both kinds
// of profile then need none of these attributes, which saves their 27- to
// 30-byte keys in every small profile (gperftools profiles symbolized by
// pprof: about 30 of 1,200 gzipped bytes).

// And for functions: a function's system_name_strindex may be left out
// (0) when the system name is the name, and a reader then takes the name
// for it. A function whose system name is empty while its name is not
// points it at an empty string other than string_table[0] (the one the
// writer also uses for functions that name nothing). Go writes the same
// string for both names of every function: 2 bytes a function, 3-4 % of a
// gzipped Go profile. A reader that does not know the convention reads an
// empty system name ("not available", as the proto says) where pprofx left
// out a copy of the name.

// Per-mapping inference state: the has_functions state in the low bits,
// and what some line of the mapping has.
const (
	fnUnused  uint8 = iota // no location of the mapping
	fnNamed                // every location has lines, every line a named function
	fnUnnamed              // some location of the mapping is not fully named
	fnMask    uint8 = 3

	seenFile uint8 = 4 // some line's function has a file name
	seenLine uint8 = 8 // some line has a line number
)

// inferFunctions returns the state of each mapping of p, from p's locations.
func inferFunctions(p *model.Profile, out []uint8) []uint8 {
	out = resize(out, len(p.Mappings))
	clear(out)
	for i := range p.Locations {
		l := &p.Locations[i]
		if l.Mapping < 0 || int(l.Mapping) >= len(out) {
			continue
		}
		st := fnNamed
		if len(l.Lines) == 0 {
			st = fnUnnamed
		}
		for _, ln := range l.Lines {
			if ln.Line != 0 {
				st |= seenLine
			}
			if ln.Function < 0 || int(ln.Function) >= len(p.Functions) {
				st = st&^fnMask | fnUnnamed
				continue
			}
			f := &p.Functions[ln.Function]
			if p.String(f.Name) == "" && p.String(f.SystemName) == "" {
				st = st&^fnMask | fnUnnamed
			}
			if p.String(f.Filename) != "" {
				st |= seenFile
			}
		}
		out[l.Mapping] = mergeFn(out[l.Mapping], st)
	}
	return out
}

// mergeFn is the state of a mapping whose locations are those of two.
func mergeFn(a, b uint8) uint8 {
	return max(a&fnMask, b&fnMask) | (a|b)&^fnMask
}

// inferred returns the flags a reader infers for a mapping of state st
// whose has_inline_frames is inline.
func inferred(st uint8, inline bool) (functions, filenames, lineNumbers bool) {
	return st&fnMask == fnNamed, inline && st&seenFile != 0, inline && st&seenLine != 0
}

// Which of a mapping's inferable flags differ from their inference (or,
// reading, were given by an attribute).
const (
	flagFunctions uint8 = 1 << iota
	flagFilenames
	flagLineNumbers
)

// differs returns the flags of m that differ from their inference.
func differs(m *model.Mapping, st uint8) uint8 {
	fn, fl, ln := inferred(st, m.HasInlineFrames)
	var d uint8
	if m.HasFunctions != fn {
		d |= flagFunctions
	}
	if m.HasFilenames != fl {
		d |= flagFilenames
	}
	if m.HasLineNumbers != ln {
		d |= flagLineNumbers
	}
	return d
}

// inferFlags sets the flags of each mapping of the dictionary template p
// that no attribute gave (given[i], or all when given is nil) to their
// inference (the reading side of the conventions above). has_inline_frames
// must have been read first.
func inferFlags(p *model.Profile, given []uint8) {
	if len(p.Mappings) == 0 {
		return
	}
	st := inferFunctions(p, nil)
	for i := range p.Mappings {
		m := &p.Mappings[i]
		var g uint8
		if given != nil {
			g = given[i]
		}
		fn, fl, ln := inferred(st[i], m.HasInlineFrames)
		if g&flagFunctions == 0 {
			m.HasFunctions = fn
		}
		if g&flagFilenames == 0 {
			m.HasFilenames = fl
		}
		if g&flagLineNumbers == 0 {
			m.HasLineNumbers = ln
		}
	}
}
