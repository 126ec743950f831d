package symbolize

import (
	"cmp"
	"debug/elf"
	"slices"
	"sort"
	"strings"

	"github.com/pprofx/pprofx/internal/symbolize/catch"
)

// symbol is an ELF symbol with an address, from .symtab or .dynsym.
type symbol struct {
	addr, size uint64
	name       string
	code       bool   // a function (or an untyped label) in an executable section
	typed      bool   // STT_FUNC or STT_GNU_IFUNC, not an untyped label
	secEnd     uint64 // the end of its section: an unsized symbol reaches no further
}

// symtab is a binary's symbols sorted by address.
type symtab []symbol

// readSymtab reads .symtab, or, with dynamic, .dynsym.
func readSymtab(ef *elf.File, dynamic bool) (st symtab, err error) {
	defer catch.Recover(&err)
	var syms []elf.Symbol
	if dynamic {
		syms, err = ef.DynamicSymbols()
	} else {
		syms, err = ef.Symbols()
	}
	if err != nil {
		return nil, err
	}
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		if s.Name == "" || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			continue
		}
		switch typ {
		case elf.STT_FUNC, elf.STT_GNU_IFUNC, elf.STT_NOTYPE, elf.STT_OBJECT, elf.STT_TLS:
		default:
			continue
		}
		code := false
		var secEnd uint64
		if int(s.Section) < len(ef.Sections) {
			sec := ef.Sections[s.Section]
			secEnd = sec.Addr + sec.Size
			if typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC || typ == elf.STT_NOTYPE {
				code = sec.Flags&elf.SHF_EXECINSTR != 0
			}
		}
		// An untyped label outside code stays (not code: it names no
		// function), as nm lists it: pprof's lookup in nm's list
		// (nmAt) depends on every entry of it.
		if typ == elf.STT_NOTYPE && isLocalLabel(s.Name) {
			continue
		}
		// The name as it is, a symbol version included
		// ("_ZNSi6ignoreEv@@GLIBCXX_3.4.5"), as nm and addr2line give it;
		// the demangler reads past the version.
		st = append(st, symbol{addr: s.Value, size: s.Size, name: s.Name, code: code,
			typed: typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC, secEnd: secEnd})
	}
	// By address; at one address, the sized symbols after the unsized and
	// globals (which sort after locals in .symtab) last, so that a lookup
	// that takes the last one at an address takes the best name.
	slices.SortStableFunc(st, func(x, y symbol) int {
		if x.addr != y.addr {
			return cmp.Compare(x.addr, y.addr)
		}
		return cmp.Compare(b2i(x.size != 0), b2i(y.size != 0))
	})
	return st, nil
}

// aliasBefore tells whether alias x is to be named before y, as binutils
// names them (their order in the table breaks a tie, not this).
func aliasBefore(x, y symbol) bool {
	if (x.size != 0) != (y.size != 0) {
		return x.size != 0
	}
	return x.size < y.size
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isLocalLabel recognises assembler-local labels (.L123), which name no
// function.
func isLocalLabel(s string) bool { return len(s) > 1 && s[0] == '.' && s[1] == 'L' }

// funcAt returns the function symbol that holds file address a: the
// nearest code symbol at or below a, when a is inside its size (or, for a
// symbol without a size, inside its section).
func (st symtab) funcAt(a uint64) (symbol, bool) {
	i := sort.Search(len(st), func(i int) bool { return st[i].addr > a }) - 1
	// Of several code symbols at one address that hold a (aliases:
	// __gttf2 and __getf2), the one binutils' addr2line names: a sized
	// one before an unsized one, the shortest, the first in the table.
	if i >= 0 {
		best := -1
		for j := i; j >= 0 && st[j].addr == st[i].addr; j-- {
			s := st[j]
			if !s.code || !(s.size == 0 && a < s.secEnd || a-s.addr < s.size) {
				continue
			}
			if best < 0 || aliasBefore(s, st[best]) || !aliasBefore(st[best], s) {
				best = j
			}
		}
		if best >= 0 {
			return st[best], true
		}
	}
	for ; i >= 0; i-- {
		s := st[i]
		if !s.code {
			continue
		}
		if s.size == 0 && a < s.secEnd || a-s.addr < s.size {
			return s, true
		}
		// Past the end of the nearest function: padding or code no
		// symbol names. A larger function below may still hold a
		// (a function with a nested label); look no further than one.
		if i > 0 && st[i-1].code && st[i-1].size > a-st[i-1].addr {
			return st[i-1], true
		}
		return symbol{}, false
	}
	return symbol{}, false
}

// nmTable is st as `nm --numeric-sort --print-size --format=posix` lists
// it and pprof reads that: the symbols with a size, by address and, at one
// address, by name.
func (st symtab) nmTable() symtab {
	var m symtab
	for _, s := range st {
		if s.size != 0 {
			m = append(m, s)
		}
	}
	slices.SortStableFunc(m, func(x, y symbol) int {
		if x.addr != y.addr {
			return cmp.Compare(x.addr, y.addr)
		}
		return strings.Compare(x.name, y.name)
	})
	return m
}

// nmAt is the lookup pprof makes in its nm table (nmTable), used only to
// prefer a longer symbol name to DWARF's for the non-inlined frame (a
// clone's "f.constprop.0", a mangled name where DWARF has a plain one, a
// versioned "_ZNSi6ignoreEv@GLIBCXX_3.4"): its binary search, which at an
// address several symbols share takes the one the search meets. Unlike
// pprof's, a must be inside the symbol: a name from past a symbol's end
// could be a wrong one.
func (m symtab) nmAt(a uint64) (symbol, bool) {
	if len(m) == 0 || a < m[0].addr {
		return symbol{}, false
	}
	low, high := 0, len(m)
	for low+1 < high {
		mid := (low + high) / 2
		if v := m[mid].addr; a == v {
			low = mid
			break
		} else if a > v {
			low = mid
		} else {
			high = mid
		}
	}
	if s := m[low]; a-s.addr < s.size {
		return s, true
	}
	return symbol{}, false
}

// at returns the code symbol at exactly file address a that binutils'
// addr2line names there: of several, a function before an untyped label,
// a sized one, the shortest, and of equal ones the first in the table.
func (st symtab) at(a uint64) (symbol, bool) {
	i := sort.Search(len(st), func(i int) bool { return st[i].addr > a }) - 1
	best := -1
	for ; i >= 0 && st[i].addr == a; i-- {
		s := st[i]
		if !s.code {
			continue
		}
		if best < 0 || !atBefore(st[best], s) {
			best = i
		}
	}
	if best < 0 {
		return symbol{}, false
	}
	return st[best], true
}

// atBefore tells whether x is named before y at one address (at).
func atBefore(x, y symbol) bool {
	if x.typed != y.typed {
		return x.typed
	}
	return aliasBefore(x, y)
}
