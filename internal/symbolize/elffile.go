package symbolize

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pprofx/pprofx/internal/symbolize/catch"
)

// maxBinarySize bounds the files opened as binaries: the ELF reader trusts
// the header's section sizes only as far as the file's own size.
const maxBinarySize = 4 << 30

// binary is one opened ELF file: its load segments, build ids and, read
// once on first use, its symbols (DWARF, .symtab, Go's pclntab).
type binary struct {
	path    string
	file    *os.File
	r       io.ReaderAt // the file's bytes
	ef      *elf.File
	size    int64
	typ     elf.Type
	loads   []elf.ProgHeader // PT_LOAD segments, in file order
	buildID string           // GNU build id, lowercase hex; "" if none
	goID    string           // Go build id; "" if none

	tables *tables // read on first use (symbols.go)
}

// openBinary opens path as an ELF file and reads its headers and notes.
// Whatever is wrong with the file is an error, never a panic.
func openBinary(path string) (b *binary, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, errors.New("not a regular file")
	}
	b, err = newBinary(f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	b.path, b.file = path, f
	return b, nil
}

// newBinary reads an ELF file's headers from r (size bytes).
func newBinary(r io.ReaderAt, size int64) (b *binary, err error) {
	defer catch.Recover(&err)
	if size > maxBinarySize {
		return nil, fmt.Errorf("larger than %d bytes", int64(maxBinarySize))
	}
	var magic [4]byte
	if _, err := r.ReadAt(magic[:], 0); err != nil || string(magic[:]) != elf.ELFMAG {
		return nil, errors.New("not an ELF file")
	}
	ef, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("bad ELF file: %v", err)
	}
	b = &binary{ef: ef, r: r, size: size, typ: ef.Type}
	for _, p := range ef.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		// A separate debug file keeps the segments' headers but not their
		// bytes, which are never read here: only their places are used.
		if p.Off+p.Filesz < p.Off || p.Vaddr+p.Memsz < p.Vaddr || p.Filesz > p.Memsz && p.Memsz != 0 {
			return nil, fmt.Errorf("bad ELF file: load segment at offset %#x overflows", p.Off)
		}
		b.loads = append(b.loads, p.ProgHeader)
	}
	b.buildID, b.goID = readBuildIDs(ef, size)
	return b, nil
}

func (b *binary) close() {
	if b.file != nil {
		b.file.Close()
	}
}

const (
	ntGNUBuildID = 3
	ntGoBuildID  = 4
)

// readBuildIDs reads the GNU build id (hex) and the Go build id from the
// notes: the note sections, or, in a file without section headers, the
// PT_NOTE segments.
func readBuildIDs(ef *elf.File, size int64) (gnu, goID string) {
	var notes [][]byte
	for _, s := range ef.Sections {
		if s.Type == elf.SHT_NOTE && s.Size <= uint64(size) && s.Size < 1<<20 {
			if d, err := s.Data(); err == nil {
				notes = append(notes, d)
			}
		}
	}
	if len(notes) == 0 {
		for _, p := range ef.Progs {
			if p.Type == elf.PT_NOTE && p.Filesz < 1<<20 && p.Off < uint64(size) && p.Filesz <= uint64(size)-p.Off {
				d := make([]byte, p.Filesz)
				if _, err := p.ReadAt(d, 0); err == nil {
					notes = append(notes, d)
				}
			}
		}
	}
	for _, d := range notes {
		parseNotes(d, ef.ByteOrder, func(name string, typ uint32, desc []byte) {
			switch {
			case name == "GNU" && typ == ntGNUBuildID && gnu == "" && len(desc) > 0:
				gnu = hex.EncodeToString(desc)
			case name == "Go" && typ == ntGoBuildID && goID == "" && len(desc) > 0:
				goID = string(desc)
			}
		})
	}
	return gnu, goID
}

// parseNotes calls fn for each note in d (ELF note format: namesz, descsz,
// type, name and desc padded to 4 bytes). It stops at the first note that
// does not fit.
func parseNotes(d []byte, order interface{ Uint32([]byte) uint32 }, fn func(name string, typ uint32, desc []byte)) {
	for len(d) >= 12 {
		namesz, descsz, typ := uint64(order.Uint32(d)), uint64(order.Uint32(d[4:])), order.Uint32(d[8:])
		d = d[12:]
		nameEnd := (namesz + 3) &^ 3
		descEnd := (descsz + 3) &^ 3
		if nameEnd > uint64(len(d)) || descsz > uint64(len(d))-nameEnd {
			return
		}
		name := string(bytes.TrimRight(d[:namesz], "\x00"))
		desc := d[nameEnd : nameEnd+descsz]
		fn(name, typ, desc)
		if nameEnd+descEnd > uint64(len(d)) {
			return
		}
		d = d[nameEnd+descEnd:]
	}
}

// Page sizes a mapping's offset may be aligned to (x86/s390x 4 KiB, and the
// 16 and 64 KiB of some arm64 and ppc64 kernels).
var pageSizes = []uint64{4 << 10, 16 << 10, 64 << 10}

// fits reports whether a mapping of [start, limit) from file offset off
// is a mapping of this file's code as a loader makes one: it starts at the
// page that holds an executable load segment and is as long as that
// segment's pages; or it maps the whole file from offset 0. Otherwise it
// says why not.
func (b *binary) fits(start, limit, off uint64) error {
	if limit <= start {
		return fmt.Errorf("empty mapping")
	}
	size := limit - start
	for _, p := range b.loads {
		if p.Filesz == 0 || p.Flags&elf.PF_X == 0 {
			continue
		}
		for _, page := range pageSizes {
			segStart := p.Off &^ (page - 1)
			if segStart != off {
				continue
			}
			min := p.Off + p.Filesz - segStart
			max := (p.Off + p.Memsz + page - 1) &^ (page - 1)
			if size >= min && size <= max-segStart {
				return nil
			}
		}
	}
	if off == 0 && len(b.loads) > 0 {
		lo, hi := b.loads[0].Vaddr, uint64(0)
		for _, p := range b.loads {
			lo = min(lo, p.Vaddr)
			hi = max(hi, p.Vaddr+p.Memsz)
		}
		if hi > lo && size >= hi-(lo&^(pageSizes[0]-1)) && size <= hi-lo+pageSizes[len(pageSizes)-1] {
			return nil
		}
	}
	var x []string
	for _, p := range b.loads {
		if p.Flags&elf.PF_X != 0 {
			x = append(x, fmt.Sprintf("%#x+%#x", p.Off, p.Filesz))
		}
	}
	return fmt.Errorf("its executable segments (file offset+size %v) do not fit the mapping (offset %#x, size %#x)", x, off, size)
}

// fileAddr turns a runtime address in a mapping of [start, limit) from
// file offset off into the address the ELF file's symbols use: the file
// offset the address maps is looked up in the load segments. An address
// that maps no part of a load segment has none.
func (b *binary) fileAddr(addr, start, off uint64) (uint64, bool) {
	if addr < start {
		return 0, false
	}
	fo := addr - start + off
	if fo < off { // overflow
		return 0, false
	}
	for _, p := range b.loads {
		if fo >= p.Off && fo-p.Off < p.Filesz {
			return fo - p.Off + p.Vaddr, true
		}
	}
	return 0, false
}

// isExec reports whether the file address a is inside an executable
// load segment.
func (b *binary) isExec(a uint64) bool {
	for _, p := range b.loads {
		if p.Flags&elf.PF_X != 0 && a >= p.Vaddr && a-p.Vaddr < p.Memsz {
			return true
		}
	}
	return false
}
