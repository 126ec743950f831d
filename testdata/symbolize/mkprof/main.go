// Command mkprof writes a gperftools CPU profile for a binary that cannot
// be profiled here (i386, s390x): the word size and byte order are the
// binary's, the maps text maps its PT_LOAD segments as the kernel would
// (page-aligned, at -base for a PIE), and the samples are addresses inside
// its functions (from .symtab): every -step bytes of each function, each as
// a one-frame stack, and each function's first address as a three-frame
// stack under main's. It is a fixture maker (testdata/symbolize/gen.sh),
// not part of pprofx.
package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"os"
	"sort"
)

func main() {
	bin := flag.String("bin", "", "ELF binary")
	path := flag.String("path", "", "the binary's path in the maps text")
	base := flag.Uint64("base", 0, "load address of a PIE (ET_DYN)")
	step := flag.Uint64("step", 6, "bytes between sampled addresses")
	out := flag.String("o", "", "output profile")
	labels := flag.Bool("labels", false, "also sample code labels without a type (assembly): their size, else up to the next symbol")
	symsFrom := flag.String("syms", "", "take the functions from this file's .symtab (a stripped binary's debug file)")
	flag.Parse()
	f, err := elf.Open(*bin)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		*base = 0
	}
	order := f.ByteOrder.(binary.AppendByteOrder)
	word := 8
	if f.Class == elf.ELFCLASS32 {
		word = 4
	}
	var buf bytes.Buffer
	put := func(v uint64) {
		if word == 4 {
			buf.Write(order.AppendUint32(nil, uint32(v)))
		} else {
			buf.Write(order.AppendUint64(nil, v))
		}
	}
	put(0)
	put(3)
	put(0)
	put(10000) // sampling period, microseconds
	put(0)

	sf := f
	if *symsFrom != "" {
		if sf, err = elf.Open(*symsFrom); err != nil {
			log.Fatal(err)
		}
		defer sf.Close()
	}
	syms, err := sf.Symbols()
	if err != nil {
		log.Fatal(err)
	}
	sort.Slice(syms, func(i, j int) bool { return syms[i].Value < syms[j].Value })
	var mainPC uint64
	type fn struct{ start, size uint64 }
	var fns []fn
	for k, s := range syms {
		if *labels && elf.ST_TYPE(s.Info) == elf.STT_NOTYPE && s.Name != "" &&
			int(s.Section) < len(f.Sections) && f.Sections[s.Section].Flags&elf.SHF_EXECINSTR != 0 {
			// Its size, or up to the next symbol above it, within its
			// section.
			sec := f.Sections[s.Section]
			end := sec.Addr + sec.Size
			if s.Size != 0 {
				end = s.Value + s.Size
			}
			for _, n := range syms[k+1:] {
				if n.Value > s.Value {
					end = min(end, n.Value)
					break
				}
			}
			fns = append(fns, fn{s.Value + *base, end - s.Value})
			continue
		}
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || s.Section == elf.SHN_UNDEF {
			continue
		}
		fns = append(fns, fn{s.Value + *base, s.Size})
		if s.Name == "main" {
			mainPC = s.Value + *base + 4
		}
	}
	for _, fn := range fns {
		for a := fn.start; a < fn.start+fn.size; a += *step {
			put(1)
			put(1)
			put(a)
		}
		// A stack: this function's start, called from main (return
		// addresses are one past the call, as gperftools records them).
		put(2)
		put(3)
		put(fn.start)
		put(mainPC + 1)
		put(mainPC + 1)
	}
	put(0)
	put(1)
	put(0)

	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		const page = 4096
		start := (p.Vaddr &^ (page - 1)) + *base
		end := (p.Vaddr+p.Memsz+page-1)&^(page-1) + *base
		perm := []byte("---p")
		if p.Flags&elf.PF_R != 0 {
			perm[0] = 'r'
		}
		if p.Flags&elf.PF_W != 0 {
			perm[1] = 'w'
		}
		if p.Flags&elf.PF_X != 0 {
			perm[2] = 'x'
		}
		fmt.Fprintf(&buf, "%08x-%08x %s %08x 08:01 1234567 %s\n", start, end, perm, p.Off&^(page-1), *path)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
