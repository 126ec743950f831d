package dwarfread

import (
	"bytes"
	"debug/dwarf"
	ebin "encoding/binary"
	"strings"
)

// Source file paths as binutils' addr2line and llvm-symbolizer print them
// (and so pprof): a relative directory of the line table joined to the
// compilation directory, and nothing cleaned. debug/dwarf's names differ
// where the compilation directory is relative, as in every Debian package
// built with -ffile-prefix-map (libc's "./csu"):
//
//   - DWARF 5: debug/dwarf leaves a relative directory unjoined, so that
//     libc's ./csu/../sysdeps/nptl/libc_start_call_main.h came out as
//     ../sysdeps/nptl/libc_start_call_main.h, which no source tree holds;
//   - any version: debug/dwarf cleans the path (csu/../csu/libc-start.c
//     came out as csu/libc-start.c, an include directory
//     /usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12 as
//     /usr/include/c++/12).
//
// One difference from the two tools is kept on purpose: a DWARF 5 file in
// directory 0, the compilation directory itself, is that directory and the
// name ("./stdlib" and "msort.c": ./stdlib/msort.c), where both tools join
// the compilation directory to it a second time (./stdlib/./stdlib/msort.c,
// a file no source tree holds; DWARF 5, 6.2.4, item 20).

// lineSecs are the sections lineNames reads.
type lineSecs struct {
	line, str, lineStr []byte
	order              ebin.ByteOrder
}

// lineNamesOf takes .debug_line, .debug_str and .debug_line_str from
// sections in dwarfSections' order (nil: none).
func lineNamesOf(sections [][]byte, order ebin.ByteOrder) *lineSecs {
	if sections == nil || order == nil {
		return nil
	}
	pick := func(name string) []byte {
		for i, n := range dwarfSections {
			if n == name && i < len(sections) {
				return sections[i]
			}
		}
		return nil
	}
	return &lineSecs{line: pick("line"), str: pick("str"), lineStr: pick("line_str"), order: order}
}

// names returns the path of each file of the line table at off, in the
// order of debug/dwarf's LineReader.Files (for DWARF 2-4, "" first, as
// file numbers start at 1 there), or ok false where the header cannot be
// read here (a form it does not know, a string index): then debug/dwarf's
// names stand. compDir is the unit's DW_AT_comp_dir.
func (s *lineSecs) names(off uint64, compDir string) (names []string, ok bool) {
	if s == nil || off >= uint64(len(s.line)) {
		return nil, false
	}
	length, hl, ok := unitLength(s.line, off, s.order)
	if !ok || length > uint64(len(s.line))-off-hl {
		return nil, false
	}
	dwarf64 := hl == 12
	r := lineReader{b: s.line[off+hl : off+hl+length], order: s.order}
	version := r.u16()
	if version < 2 || version > 5 {
		return nil, false
	}
	if version >= 5 {
		r.skip(2) // address and segment selector sizes
	}
	var hlen uint64
	if dwarf64 {
		hlen = r.u64()
	} else {
		hlen = uint64(r.u32())
	}
	if r.bad || hlen > uint64(len(r.b)) {
		return nil, false
	}
	r.b = r.b[:hlen] // the header's rest: the tables end within it
	r.skip(1)        // minimum_instruction_length
	if version >= 4 {
		r.skip(1) // maximum_operations_per_instruction
	}
	r.skip(3) // default_is_stmt, line_base, line_range
	opcodeBase := r.u8()
	if opcodeBase > 0 {
		r.skip(int(opcodeBase) - 1)
	}
	if r.bad {
		return nil, false
	}
	if version < 5 {
		return r.names4(compDir)
	}
	return r.names5(s, dwarf64)
}

// names4 reads DWARF 2-4's include_directories and file_names.
func (r *lineReader) names4(compDir string) ([]string, bool) {
	dirs := []string{compDir}
	for {
		d := r.cstr()
		if r.bad {
			return nil, false
		}
		if d == "" {
			break
		}
		if !isAbsPath(d) {
			d = joinPath(compDir, d)
		}
		dirs = append(dirs, d)
	}
	names := []string{""}
	for {
		name := r.cstr()
		if r.bad {
			return nil, false
		}
		if name == "" {
			break
		}
		di := r.uleb()
		r.uleb() // modification time
		r.uleb() // length
		if r.bad {
			return nil, false
		}
		if !isAbsPath(name) {
			if di >= uint64(len(dirs)) {
				return nil, false
			}
			name = joinPath(dirs[di], name)
		}
		names = append(names, name)
	}
	return names, true
}

// DWARF 5 line table content types (the forms are diescan.go's).
const (
	lnctPath     = 1
	lnctDirIndex = 2
)

// names5 reads DWARF 5's directory and file name tables.
func (r *lineReader) names5(s *lineSecs, dwarf64 bool) ([]string, bool) {
	// entries reads a table: each entry's path and directory index.
	entries := func() (paths []string, dirIdx []uint64, ok bool) {
		nf := int(r.u8())
		formats := make([][2]uint64, 0, nf)
		for range nf {
			formats = append(formats, [2]uint64{r.uleb(), r.uleb()})
		}
		n := r.uleb()
		// Each entry takes a byte at least, when it takes any.
		if r.bad || (nf > 0 && n > uint64(len(r.b))) || (nf == 0 && n > 0) {
			return nil, nil, false
		}
		paths, dirIdx = make([]string, n), make([]uint64, n)
		for i := range n {
			for _, f := range formats {
				var str string
				var val uint64
				switch f[1] {
				case formString:
					str = r.cstr()
				case formStrp, formLineStrp:
					var off uint64
					if dwarf64 {
						off = r.u64()
					} else {
						off = uint64(r.u32())
					}
					sec := s.str
					if f[1] == formLineStrp {
						sec = s.lineStr
					}
					if off >= uint64(len(sec)) {
						return nil, nil, false
					}
					e := bytes.IndexByte(sec[off:], 0)
					if e < 0 {
						return nil, nil, false
					}
					str = string(sec[off : off+uint64(e)])
				case formUdata:
					val = r.uleb()
				case formData1:
					val = uint64(r.u8())
				case formData2:
					val = uint64(r.u16())
				case formData4:
					val = uint64(r.u32())
				case formData8:
					val = r.u64()
				case formData16:
					r.skip(16)
				case formBlock:
					k := r.uleb()
					if k > uint64(len(r.b)) {
						return nil, nil, false
					}
					r.skip(int(k))
				default:
					// strx (an index into .debug_str_offsets, which
					// needs the unit's base), strp_sup: debug/dwarf's
					// names stand.
					return nil, nil, false
				}
				switch f[0] {
				case lnctPath:
					paths[i] = str
				case lnctDirIndex:
					dirIdx[i] = val
				}
			}
			if r.bad {
				return nil, nil, false
			}
		}
		return paths, dirIdx, true
	}
	dirs, _, ok := entries()
	if !ok {
		return nil, false
	}
	// Directory 0 is the compilation's; the others are relative to it
	// where they are not absolute.
	for i := 1; i < len(dirs); i++ {
		if !isAbsPath(dirs[i]) {
			dirs[i] = joinPath(dirs[0], dirs[i])
		}
	}
	files, dirIdx, ok := entries()
	if !ok {
		return nil, false
	}
	for i, name := range files {
		if isAbsPath(name) {
			continue
		}
		if dirIdx[i] >= uint64(len(dirs)) {
			return nil, false
		}
		files[i] = joinPath(dirs[dirIdx[i]], name)
	}
	return files, true
}

// isAbsPath tells whether p is absolute: on Unix, or with a drive letter
// or as a UNC path (a binary built on Windows).
func isAbsPath(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\\`) ||
		len(p) >= 3 && p[1] == ':' && (p[2] == '/' || p[2] == '\\')
}

// joinPath joins as binutils does: a slash between, nothing cleaned.
func joinPath(dir, name string) string {
	switch {
	case dir == "":
		return name
	case name == "":
		return dir
	case strings.HasSuffix(dir, "/"):
		return dir + name
	}
	return dir + "/" + name
}

// lineReader reads a line table header; past its end it reads zeros and
// sets bad.
type lineReader struct {
	b     []byte
	order ebin.ByteOrder
	bad   bool
}

func (r *lineReader) take(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.bad, r.b = true, nil
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *lineReader) skip(n int) { r.take(n) }

func (r *lineReader) u8() uint8 {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *lineReader) u16() uint16 {
	if p := r.take(2); p != nil {
		return r.order.Uint16(p)
	}
	return 0
}

func (r *lineReader) u32() uint32 {
	if p := r.take(4); p != nil {
		return r.order.Uint32(p)
	}
	return 0
}

func (r *lineReader) u64() uint64 {
	if p := r.take(8); p != nil {
		return r.order.Uint64(p)
	}
	return 0
}

func (r *lineReader) uleb() uint64 {
	v, n := readULEB(r.b)
	if n == 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *lineReader) cstr() string {
	e := bytes.IndexByte(r.b, 0)
	if e < 0 {
		r.bad, r.b = true, nil
		return ""
	}
	s := string(r.b[:e])
	r.b = r.b[e+1:]
	return s
}

// fileNamer gives a row's or a call's file path: lineNames' where the
// header was read, else debug/dwarf's.
type fileNamer map[*dwarf.LineFile]string

func newFileNamer(files []*dwarf.LineFile, names []string) fileNamer {
	if len(names) != len(files) {
		return nil
	}
	m := make(fileNamer, len(files))
	for i, f := range files {
		if f != nil {
			m[f] = names[i]
		}
	}
	return m
}

func (m fileNamer) name(f *dwarf.LineFile) string {
	if f == nil {
		return ""
	}
	if n, ok := m[f]; ok {
		return n
	}
	return f.Name
}
