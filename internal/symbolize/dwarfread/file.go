// Package dwarfread answers addresses from a linked ELF file's DWARF:
// the function at each, the functions inlined there, innermost first, and
// their files, lines and columns, as binutils' addr2line gives them.
//
// It reads as little as the addresses need (Lazy): .debug_aranges names
// the compilation units that hold them, and only those are read, with
// their abbreviations and line tables, compressed sections inflated only
// as far as the last of them. Where that cannot answer, the whole DWARF
// is read (Whole).
//
// Concerns, one file each: dwarf.go (a unit's function tree, inline
// chains and line table: the answers), diescan.go (a fast walk of a
// unit's entries by their shape), linenames.go (file paths as binutils
// joins them), dwarflazy.go (the lazy reading: sections read on demand,
// the units wanted), dwarfpipe.go (walking units while the later ones
// inflate), dwarfload.go (the whole reading), inflaters.go and inflate.go
// (DEFLATE), bigbuf.go (one buffer for a binary's sections).
package dwarfread

import (
	"debug/elf"
	"io"
)

// File is an ELF file whose DWARF is read: its headers (from debug/elf),
// its bytes and their size.
type File struct {
	ef   *elf.File
	r    io.ReaderAt
	size int64
}

// NewFile makes a File of the ELF file ef, whose size bytes r reads.
func NewFile(ef *elf.File, r io.ReaderAt, size int64) *File {
	return &File{ef: ef, r: r, size: size}
}

// Lazy reads the part of the DWARF that can hold addrs (sorted,
// distinct), for a table that answers those addresses exactly as one over
// the whole DWARF would, or says it cannot. Any error means: read the
// whole DWARF instead (Whole).
func (b *File) Lazy(addrs []uint64) (*Table, error) { return b.lazyDWARF(addrs) }

// Whole reads the whole DWARF, for a table that answers any address.
func (b *File) Whole() (*Table, error) {
	d, sections, err := b.readDWARF()
	if err != nil {
		return nil, err
	}
	return newTable(d, lineNamesOf(sections, b.ef.ByteOrder)), nil
}

// Has reports whether ef has DWARF to read: a .debug_info (or
// .zdebug_info) section with bytes.
func Has(ef *elf.File) bool {
	s := ef.Section(".debug_info")
	if s == nil {
		s = ef.Section(".zdebug_info")
	}
	return s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0
}
