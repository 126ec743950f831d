package symbolize

import (
	"bytes"
	"debug/elf"
	"os"
	"testing"

	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// FuzzELF feeds arbitrary bytes through everything that reads a binary:
// the ELF headers and notes (build ids), the mapping checks and address
// translation, DWARF (units, DIE trees, abstract origins, line tables),
// .symtab/.dynsym and Go's pclntab. Nothing may panic or hang; answers
// for a damaged file are allowed to be missing, not to crash.
func FuzzELF(f *testing.F) {
	for _, p := range []string{"bin/cprog", "bin/libwork.so", "bin/cprog-i386", "bin/cprog-s390x", "stripped/cprog.debug", "stripped/libwork.so", "compressed/cprog", "compressed/libwork.so"} {
		b, err := os.ReadFile("../../testdata/symbolize/" + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if alloc, over := memcheck.Over(elfAllocBound(len(data)), func() { readBinary(data) }); over {
			t.Fatalf("allocated %d bytes for a %d-byte binary (bound %d)", alloc, len(data), elfAllocBound(len(data)))
		}
	})
}

// readBinary reads data as a binary the way symbolization does.
func readBinary(data []byte) {
	{
		b, err := newBinary(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		var addrs []uint64
		for _, p := range b.loads {
			_ = b.fits(p.Vaddr, p.Vaddr+p.Memsz, p.Off)
			if p.Flags&elf.PF_X == 0 {
				continue
			}
			for _, a := range []uint64{p.Vaddr, p.Vaddr + 1, p.Vaddr + p.Filesz/3, p.Vaddr + p.Filesz/2, p.Vaddr + p.Filesz - 1} {
				if fa, ok := b.fileAddr(a, p.Vaddr, p.Off); ok {
					addrs = append(addrs, fa)
				}
			}
		}
		if len(addrs) > 64 {
			addrs = addrs[:64]
		}
		tb := b.loadTables(nil)
		_, _, _ = tb.lookup(sortedDistinct(addrs))
	}
}

// elfAllocBound is what reading a binary of n bytes may allocate: a fixed
// part and a multiple of the file (its tables, symbols, decoded DWARF and
// line tables). The fixed part holds three of the 10 MiB chunks in which
// debug/elf (internal/saferio) reads a section whose header claims more
// than the file holds, before it finds the end of the file: elf.NewFile
// does so for the section name table (seed 185cce75b275e893, a 15 KB
// file), the pclntab and symbol table reads may too.
func elfAllocBound(n int) uint64 { return 4<<20 + 3*10<<20 + 64*uint64(n) }
