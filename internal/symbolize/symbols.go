package symbolize

import (
	"debug/elf"
	"debug/gosym"
	"errors"
	"fmt"
	"slices"

	"github.com/pprofx/pprofx/internal/symbolize/catch"
	"github.com/pprofx/pprofx/internal/symbolize/dwarfread"
)

// frame is one function at an address, as dwarfread gives it (from
// DWARF, .symtab or Go's pclntab alike).
type frame = dwarfread.Frame

// source says where a binary's answers came from, for the mapping's
// has_* flags.
type source uint8

const (
	srcNone   source = iota
	srcDWARF         // functions, files, lines, inline frames
	srcGo            // functions, files, lines (no inline frames)
	srcSymtab        // function names only
)

// tables are what a binary (with its debug file, if any) can answer
// addresses from, read once per binary.
type tables struct {
	dw    *dwarfread.Table
	dwErr error // why there is no DWARF, when that needs saying
	// syms is the binary's own .symtab, which binutils (and so pprof)
	// consult beside DWARF; names is what names functions where nothing
	// else does: .symtab, else the debug file's .symtab, else .dynsym.
	// names is read on the first address nothing else answers.
	syms       symtab
	nm         symtab // syms as pprof reads `nm` (nmTable), made on first use
	names      symtab
	namesRead  bool
	debugNames *binary
	gosym      *gosym.Table

	bin *binary
	// dwFiles have DWARF: the debug file first, then the binary. Their
	// DWARF is read by lookup, which knows the addresses.
	dwFiles []*binary
	dwRead  bool // the whole DWARF was tried: dw (nil if none) answers any address
}

// loadTables reads a binary's ELF symbols, and finds its DWARF: in its
// separate debug file (found by locate) or in itself. The DWARF (else Go's
// pclntab) is read on the first lookup.
func (b *binary) loadTables(debug *binary) *tables {
	if b.tables != nil {
		return b.tables
	}
	t := &tables{bin: b}
	b.tables = t
	t.syms, _ = readSymtab(b.ef, false)
	t.debugNames = debug
	for _, f := range []*binary{debug, b} {
		if f != nil && dwarfread.Has(f.ef) {
			t.dwFiles = append(t.dwFiles, f)
		}
	}
	return t
}

// lookupDWARF answers what it can of addrs from DWARF into out: from the
// units that hold them (dwarfread's Lazy), else from the whole DWARF, read
// once; without readable DWARF, it reads Go's pclntab.
func (t *tables) lookupDWARF(addrs []uint64, out [][]frame) error {
	if !t.dwRead {
		for _, f := range t.dwFiles {
			df := dwarfread.NewFile(f.ef, f.r, f.size)
			dw, err := df.Lazy(addrs)
			if err == nil {
				if err = dw.Lookup(addrs, out); err == nil {
					t.dw = dw
					return nil
				}
				clear(out)
			}
			if dw, err = df.Whole(); err != nil {
				t.dwErr = fmt.Errorf("%s: %v", f.path, err)
				continue
			}
			t.dw = dw
			break
		}
		t.dwRead = true
		if t.dw == nil {
			t.gosym, _ = readGosym(t.bin.ef)
		}
	}
	if t.dw == nil {
		return nil
	}
	return t.dw.Lookup(addrs, out)
}

// readGosym reads a Go binary's function and line table (.gopclntab).
func readGosym(ef *elf.File) (t *gosym.Table, err error) {
	defer catch.Recover(&err)
	pcln := ef.Section(".gopclntab")
	text := ef.Section(".text")
	if pcln == nil || text == nil || pcln.Type == elf.SHT_NOBITS {
		return nil, errors.New("no .gopclntab")
	}
	data, err := pcln.Data()
	if err != nil {
		return nil, err
	}
	var sym []byte
	if s := ef.Section(".gosymtab"); s != nil && s.Type != elf.SHT_NOBITS {
		sym, _ = s.Data()
	}
	return gosym.NewTable(sym, gosym.NewLineTable(data, text.Addr))
}

// lookup resolves file addresses (sorted, distinct). It returns each
// one's frames (nil where nothing is known) and the best source used.
func (t *tables) lookup(addrs []uint64) ([][]frame, source, error) {
	out := make([][]frame, len(addrs))
	src := srcNone
	var err error
	err = t.lookupDWARF(addrs, out)
	if t.dw != nil {
		for i, fr := range out {
			if fr == nil {
				continue
			}
			src = srcDWARF
			last := &fr[len(fr)-1]
			// A function DWARF names without its linkage name (a template
			// instance, a clone) takes the name of the symbol at its first
			// address, as binutils does (which also does it for an inlined
			// frame whose code starts there: a wrong name, not copied).
			if !last.Linkage {
				if s, ok := t.syms.at(last.Low); ok {
					last.Name = s.name
				}
			}
			// pprof (binutils) prefers nm's name for the non-inlined frame
			// when it is longer by two or more: a clone's suffix, or a
			// mangled name where DWARF gives a plain one.
			if t.nm == nil {
				t.nm = t.syms.nmTable()
			}
			if s, ok := t.nm.nmAt(addrs[i]); ok && len(s.name) > len(last.Name)+1 {
				last.Name = s.name
			}
			// A line in no function DWARF describes: the symbol's name.
			if last.Name == "" {
				if s, ok := t.symbolNames().funcAt(addrs[i]); ok {
					last.Name = s.name
				}
			}
		}
	}
	if t.gosym != nil {
		for i, a := range addrs {
			if out[i] != nil {
				continue
			}
			if fr := goFrames(t.gosym, a); fr != nil {
				out[i] = fr
				if src == srcNone {
					src = srcGo
				}
			}
		}
	}
	for i, a := range addrs {
		if out[i] != nil {
			continue
		}
		if s, ok := t.symbolNames().funcAt(a); ok {
			out[i] = []frame{{Name: s.name}}
			if src == srcNone {
				src = srcSymtab
			}
		}
	}
	return out, src, err
}

// symbolNames returns the symbols that name functions where nothing else
// does: the binary's .symtab, else its debug file's (the whole symbol
// table of a stripped binary, local functions included, which addr2line
// reads too), else its .dynsym (read on the first call: a binary whose
// addresses DWARF answers all does not need them).
func (t *tables) symbolNames() symtab {
	if !t.namesRead {
		t.namesRead = true
		t.names = t.syms
		if len(t.names) == 0 && t.debugNames != nil {
			t.names, _ = readSymtab(t.debugNames.ef, false)
		}
		if len(t.names) == 0 {
			t.names, _ = readSymtab(t.bin.ef, true)
		}
	}
	return t.names
}

func goFrames(t *gosym.Table, a uint64) (fr []frame) {
	var err error
	defer func() {
		if err != nil {
			fr = nil
		}
	}()
	defer catch.Recover(&err)
	file, line, fn := t.PCToLine(a)
	if fn == nil {
		return nil
	}
	start := int64(0)
	if _, l, _ := t.PCToLine(fn.Entry); l > 0 {
		start = int64(l)
	}
	return []frame{{Name: fn.Name, File: file, Line: int64(line), StartLine: start}}
}

// sortedDistinct returns the sorted distinct values of a.
func sortedDistinct(a []uint64) []uint64 {
	s := append([]uint64(nil), a...)
	slices.Sort(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
