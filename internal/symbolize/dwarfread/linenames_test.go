package dwarfread

import (
	"debug/elf"
	ebin "encoding/binary"
	"slices"
	"testing"
)

// lineHeader builds a line table whose header holds tables (the bytes
// after standard_opcode_lengths) and whose program is empty.
func lineHeader(version uint16, dwarf64 bool, tables []byte) []byte {
	le := ebin.LittleEndian
	var h []byte     // from minimum_instruction_length on
	h = append(h, 1) // minimum_instruction_length
	if version >= 4 {
		h = append(h, 1) // maximum_operations_per_instruction
	}
	h = append(h, 1, 0xfb, 14, 13)                    // default_is_stmt, line_base, line_range, opcode_base
	h = append(h, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1) // standard_opcode_lengths
	h = append(h, tables...)
	var u []byte // from version on
	u = le.AppendUint16(u, version)
	if version >= 5 {
		u = append(u, 8, 0)
	}
	if dwarf64 {
		u = le.AppendUint64(u, uint64(len(h)))
	} else {
		u = le.AppendUint32(u, uint32(len(h)))
	}
	u = append(u, h...)
	var b []byte
	if dwarf64 {
		b = le.AppendUint32(b, 0xffffffff)
		b = le.AppendUint64(b, uint64(len(u)))
	} else {
		b = le.AppendUint32(b, uint32(len(u)))
	}
	return append(b, u...)
}

func cstr(s string) []byte { return append([]byte(s), 0) }

func TestLineNamesDWARF4(t *testing.T) {
	var tab []byte
	tab = append(tab, cstr("../lib")...)
	tab = append(tab, cstr("/usr/include")...)
	tab = append(tab, 0)
	for _, f := range []struct {
		name string
		dir  byte
	}{{"relprog.c", 0}, {"mix.h", 1}, {"stdio.h", 2}, {"/abs/x.h", 1}, {"sub/y.h", 0}} {
		tab = append(tab, cstr(f.name)...)
		tab = append(tab, f.dir, 0, 0)
	}
	tab = append(tab, 0)
	s := &lineSecs{line: lineHeader(4, false, tab), order: ebin.LittleEndian}
	got, ok := s.names(0, "./app")
	want := []string{"", "./app/relprog.c", "./app/../lib/mix.h", "/usr/include/stdio.h", "/abs/x.h", "./app/sub/y.h"}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("names = %q, %v; want %q", got, ok, want)
	}
	// No compilation directory: the relative paths stay relative.
	got, _ = s.names(0, "")
	if want := []string{"", "relprog.c", "../lib/mix.h", "/usr/include/stdio.h", "/abs/x.h", "sub/y.h"}; !slices.Equal(got, want) {
		t.Errorf("without comp_dir: %q, want %q", got, want)
	}
}

func TestLineNamesDWARF5(t *testing.T) {
	for _, dwarf64 := range []bool{false, true} {
		// .debug_line_str: "./app" at 0, "/usr/include" at 6.
		lineStr := append(cstr("./app"), cstr("/usr/include")...)
		off := func(o int) []byte {
			if dwarf64 {
				return ebin.LittleEndian.AppendUint64(nil, uint64(o))
			}
			return ebin.LittleEndian.AppendUint32(nil, uint32(o))
		}
		var tab []byte
		// Directories, their path as line_strp: "./app", "/usr/include".
		tab = append(tab, 1, lnctPath, formLineStrp, 2)
		tab = append(tab, off(0)...)
		tab = append(tab, off(6)...)
		// Files: path (inline string), directory index (udata), MD5
		// (data16).
		tab = append(tab, 3, lnctPath, formString, lnctDirIndex, formUdata, 5, formData16, 4)
		for _, f := range []struct {
			name string
			dir  byte
		}{{"relprog.c", 0}, {"stdio.h", 1}, {"../lib/mix.h", 0}, {"/abs/z.h", 1}} {
			tab = append(tab, cstr(f.name)...)
			tab = append(tab, f.dir)
			tab = append(tab, make([]byte, 16)...)
		}
		s := &lineSecs{line: lineHeader(5, dwarf64, tab), lineStr: lineStr, order: ebin.LittleEndian}
		got, ok := s.names(0, "ignored: DWARF 5 takes directory 0")
		want := []string{"./app/relprog.c", "/usr/include/stdio.h", "./app/../lib/mix.h", "/abs/z.h"}
		if !ok || !slices.Equal(got, want) {
			t.Errorf("dwarf64 %v: names = %q, %v; want %q", dwarf64, got, ok, want)
		}

		// A relative directory other than 0 is joined to directory 0
		// (here given inline); a path as strp comes from .debug_str.
		tab = tab[:0]
		tab = append(tab, 1, lnctPath, formString, 2)
		tab = append(tab, cstr("./app")...)
		tab = append(tab, cstr("sub")...)
		tab = append(tab, 2, lnctPath, formStrp, lnctDirIndex, formData1, 1)
		tab = append(tab, off(0)...) // "mix.h"
		tab = append(tab, 1)
		s = &lineSecs{line: lineHeader(5, dwarf64, tab), str: cstr("mix.h"), order: ebin.LittleEndian}
		got, ok = s.names(0, "")
		if want := []string{"./app/sub/mix.h"}; !ok || !slices.Equal(got, want) {
			t.Errorf("dwarf64 %v: names = %q, %v; want %q", dwarf64, got, ok, want)
		}
	}
}

// Anything the reader cannot take leaves debug/dwarf's names: ok false,
// never a panic.
func TestLineNamesBad(t *testing.T) {
	good := lineHeader(4, false, append(append(cstr("d"), 0), append(cstr("f.c"), 1, 0, 0, 0)...))
	s := &lineSecs{line: good, order: ebin.LittleEndian}
	if got, ok := s.names(0, "/c"); !ok || !slices.Equal(got, []string{"", "/c/d/f.c"}) {
		t.Fatalf("good header: %q, %v", got, ok)
	}
	for n := range len(good) {
		s := &lineSecs{line: good[:n], order: ebin.LittleEndian}
		if _, ok := s.names(0, "/c"); ok {
			t.Errorf("cut to %d bytes: ok", n)
		}
	}
	for name, tab := range map[string][]byte{
		"directory index too large": append(cstr("d"), append([]byte{0}, append(cstr("f.c"), 7, 0, 0, 0)...)...),
		"strx form":                 {1, lnctPath, formStrx, 1, 0},
		"count beyond the bytes":    {1, lnctPath, formString, 0xff, 0x7f},
		"line_strp beyond":          {1, lnctPath, formLineStrp, 1, 9, 0, 0, 0, 0, 0},
	} {
		version := uint16(5)
		if name == "directory index too large" {
			version = 4
		}
		s := &lineSecs{line: lineHeader(version, false, tab), order: ebin.LittleEndian}
		if got, ok := s.names(0, "/c"); ok {
			t.Errorf("%s: ok, %q", name, got)
		}
	}
	var nilSecs *lineSecs
	if _, ok := nilSecs.names(0, ""); ok {
		t.Error("nil sections: ok")
	}
	if _, ok := s.names(uint64(len(good)), ""); ok {
		t.Error("offset past the section: ok")
	}
}

// FuzzLineNames: any bytes, no panic, and a path for each file.
func FuzzLineNames(f *testing.F) {
	for _, p := range []string{fixtures + "bin/relprog", fixtures + "bin/relprog-dwarf4",
		fixtures + "bin/cprog-s390x"} {
		ef, err := elf.Open(p)
		if err != nil {
			f.Fatal(err)
		}
		if s := ef.Section(".debug_line"); s != nil {
			b, _ := s.Data()
			f.Add(b, ef.ByteOrder == ebin.BigEndian)
		}
		ef.Close()
	}
	f.Fuzz(func(t *testing.T, line []byte, big bool) {
		var order ebin.ByteOrder = ebin.LittleEndian
		if big {
			order = ebin.BigEndian
		}
		s := &lineSecs{line: line, str: []byte("a\x00../b\x00"), lineStr: []byte("./c\x00d.c\x00"), order: order}
		names, ok := s.names(0, "./comp")
		if !ok && names != nil {
			t.Fatalf("not ok, yet %d names", len(names))
		}
	})
}
