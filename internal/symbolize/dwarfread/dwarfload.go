package dwarfread

import (
	"bufio"
	"debug/dwarf"
	"debug/elf"
	ebin "encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/klauspost/compress/zlib"
	"github.com/pprofx/pprofx/internal/symbolize/catch"
)

// The DWARF sections symbolization reads. Location lists, call frame
// information, type units, macros and the like are not read: in a
// distribution's debug file they are a third of the bytes.
var dwarfSections = []string{"abbrev", "info", "str", "line", "ranges", "addr", "line_str", "rnglists", "str_offsets"}

// readDWARF reads the DWARF sections of a linked binary (or debug file),
// each read (and decompressed) whole on a goroutine of its own: the
// reading when lazy reading (lazyDWARF) cannot answer. Relocatable
// objects, whose DWARF needs relocating, are read by debug/elf.
func (b *File) readDWARF() (d *dwarf.Data, sections [][]byte, err error) {
	defer catch.Recover(&err)
	if b.ef.Type == elf.ET_REL {
		d, err = b.ef.DWARF()
		return d, nil, err
	}
	secs := dwarfSectionsOf(b.ef)
	data := make([][]byte, len(dwarfSections))
	errs := make([]error, len(dwarfSections))
	var wg sync.WaitGroup
	for i, name := range dwarfSections {
		s := secs[name]
		if s == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer catch.Recover(&errs[i])
			data[i], errs[i] = b.sectionData(s)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, nil, fmt.Errorf("section .debug_%s: %v", dwarfSections[i], err)
		}
	}
	d, err = newDWARF(data)
	return d, data, err
}

// newDWARF makes the standard reader of the sections data, in
// dwarfSections' order (nil: absent).
func newDWARF(data [][]byte) (*dwarf.Data, error) {
	d, err := dwarf.New(data[0], nil, nil, data[1], data[3], nil, data[4], data[2])
	if err != nil {
		return nil, err
	}
	for i := 5; i < len(dwarfSections); i++ {
		if data[i] != nil {
			if err := d.AddSection(".debug_"+dwarfSections[i], data[i]); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// maxSectionSize bounds a decompressed section.
const maxSectionSize = 1 << 32

// sectionData returns a section's bytes, decompressed: SHF_COMPRESSED
// (zlib or zstd, after an Elf32/64_Chdr), which debug/elf decompresses,
// or a GNU .zdebug section ("ZLIB" and a big-endian size), for which it
// has no reader of a section (only File.DWARF reads them). The size a
// header claims is checked against what deflate or zstd can make of the
// compressed bytes first.
func (b *File) sectionData(s *elf.Section) ([]byte, error) {
	compressed := s.Flags&elf.SHF_COMPRESSED != 0
	zdebug := strings.HasPrefix(s.Name, ".zdebug_")
	if !compressed && !zdebug {
		return s.Data()
	}
	if s.FileSize > uint64(b.size) || s.Offset > uint64(b.size)-s.FileSize {
		return nil, errors.New("beyond the end of the file")
	}
	_, size, skip, err := b.compression(s, compressed)
	if err != nil {
		return nil, err
	}
	if compressed {
		// s.Size is the Chdr's size, checked above.
		return s.Data()
	}
	// The compressed bytes are read from the file as they are inflated,
	// not copied into memory first.
	src := bufio.NewReaderSize(io.NewSectionReader(b.r, int64(s.Offset+skip), int64(s.FileSize-skip)), 64<<10)
	zr, err := zlib.NewReader(src)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, fmt.Errorf("decompressing: %v", err)
	}
	return out, nil
}

// compression reads the header of a compressed section (an ELF
// Chdr, or .zdebug's "ZLIB" and big-endian size): the compression type,
// the size it declares decompressed, and where the compressed bytes start.
// A declared size past maxSectionSize, or past what DEFLATE's best ratio
// can make of the bytes, is refused.
func (b *File) compression(s *elf.Section, compressed bool) (typ uint32, size, skip uint64, err error) {
	var hdr [24]byte
	n, _ := b.r.ReadAt(hdr[:min(uint64(len(hdr)), s.FileSize)], int64(s.Offset))
	raw := hdr[:n]
	order := b.ef.ByteOrder
	switch {
	case compressed && b.ef.Class == elf.ELFCLASS64:
		if len(raw) < 24 {
			return 0, 0, 0, errors.New("short compression header")
		}
		typ, size, skip = order.Uint32(raw), order.Uint64(raw[8:]), 24
	case compressed:
		if len(raw) < 12 {
			return 0, 0, 0, errors.New("short compression header")
		}
		typ, size, skip = order.Uint32(raw), uint64(order.Uint32(raw[4:])), 12
	default:
		if len(raw) < 12 || string(raw[:4]) != "ZLIB" {
			return 0, 0, 0, errors.New("bad .zdebug header")
		}
		typ, size, skip = uint32(elf.COMPRESS_ZLIB), ebin.BigEndian.Uint64(raw[4:]), 12
	}
	if clen := s.FileSize - skip; size > maxSectionSize || size > clen*1032+1024 {
		return 0, 0, 0, fmt.Errorf("claims %d bytes decompressed from %d", size, clen)
	}
	return typ, size, skip, nil
}
