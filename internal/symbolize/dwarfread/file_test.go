package dwarfread

import (
	"bytes"
	"debug/elf"
	"os"
	"testing"
)

// fixtures holds the symbolization fixtures (testdata/README.md).
const fixtures = "../../../testdata/symbolize/"

// openFile opens the ELF file at path, closed when the test ends.
func openFile(t testing.TB, path string) *File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return NewFile(ef, f, st.Size())
}

// fileOf reads the ELF file data.
func fileOf(t testing.TB, data []byte) *File {
	t.Helper()
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return NewFile(ef, bytes.NewReader(data), int64(len(data)))
}

// execAddrs returns every step-th file address of b's executable load
// segments.
func execAddrs(b *File, step uint64) []uint64 {
	var addrs []uint64
	for _, p := range b.ef.Progs {
		if p.Type != elf.PT_LOAD || p.Flags&elf.PF_X == 0 {
			continue
		}
		for a := p.Vaddr; a < p.Vaddr+p.Filesz; a += step {
			addrs = append(addrs, a)
		}
	}
	return addrs
}

// answers resolves addrs as symbolization does: from the units that hold
// them, else from the whole DWARF.
func answers(t testing.TB, b *File, addrs []uint64) [][]Frame {
	t.Helper()
	out := make([][]Frame, len(addrs))
	if dw, err := b.Lazy(addrs); err == nil {
		if err := dw.Lookup(addrs, out); err == nil {
			return out
		}
		clear(out)
	}
	dw, err := b.Whole()
	if err != nil {
		t.Fatal(err)
	}
	if err := dw.Lookup(addrs, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// libcPath is the library whose separate debug file (Debian's libc6-dbg)
// has thousands of units in zlib-compressed sections. (Debian's
// libstdc++6-12-dbg is a build of libstdc++ whose DWARF is not
// compressed.)
const libcPath = "/lib/x86_64-linux-gnu/libc.so.6"

// libcDebugFile returns the path of libc's separate debug file, found by
// its build id under /usr/lib/debug, or skips the test or benchmark where
// there is none.
func libcDebugFile(tb testing.TB) string {
	tb.Helper()
	path, err := DebugFileOf(libcPath)
	if err != nil {
		tb.Skip(err)
	}
	return path
}
