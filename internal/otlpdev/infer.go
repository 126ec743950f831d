package otlpdev

import "github.com/pprofx/pprofx/internal/model"

// Convention (pprofx's, documented in README): a mapping's
// pprof.mapping.has_functions attribute may be left out when its value is
// the one a reader infers from the location table, and is then inferred:
//
//	has_functions is true when the mapping has at least one location in
//	the dictionary's location_table, and every location of it has at least
//	one line, and every such line names a function whose name or
//	system name is not empty; false otherwise.
//
// The writer omits the attribute when the flag equals that inference and
// writes it (true or false) when not, so a round trip restores the flag
// exactly. A Go runtime profile's symbolized binary (has_functions set, all
// frames named) and its unused [vdso]/[vsyscall] mappings then need no
// attribute, which saves the 27-byte key in every small profile.
//
// has_filenames, has_line_numbers and has_inline_frames are not inferred:
// absent means false, as every other reader takes it.

// Per-mapping states of the inference.
const (
	fnUnused  uint8 = iota // no location of the mapping
	fnNamed                // every location has lines, every line a named function
	fnUnnamed              // some location of the mapping is not fully named
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
			if ln.Function < 0 || int(ln.Function) >= len(p.Functions) {
				st = fnUnnamed
				break
			}
			f := &p.Functions[ln.Function]
			if p.String(f.Name) == "" && p.String(f.SystemName) == "" {
				st = fnUnnamed
				break
			}
		}
		out[l.Mapping] = mergeFn(out[l.Mapping], st)
	}
	return out
}

// mergeFn is the state of a mapping whose locations are those of two.
func mergeFn(a, b uint8) uint8 {
	return max(a, b)
}

// inferHasFunctions sets the HasFunctions flag of each mapping of the
// dictionary template p that had no has_functions attribute (set[i] false,
// or set nil) to its inference (the reading side of the convention above).
func inferHasFunctions(p *model.Profile, set []bool) {
	if len(p.Mappings) == 0 {
		return
	}
	st := inferFunctions(p, nil)
	for i := range p.Mappings {
		if set == nil || !set[i] {
			p.Mappings[i].HasFunctions = st[i] == fnNamed
		}
	}
}
