//go:build ignore

// swapslots turns a 32-bit little-endian gperftools CPU profile into the
// 32-bit big-endian file the same profiler would write on a 32-bit
// big-endian machine: every 4-byte slot of the binary part (header, records,
// trailer) is byte-swapped; the maps text after the trailer is copied as is.
//
//	go run swapslots.go IN OUT
package main

import (
	"encoding/binary"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run swapslots.go IN OUT")
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	le, be := binary.LittleEndian, binary.BigEndian
	slot := func(i int) uint32 { return le.Uint32(b[4*i:]) }
	if len(b) < 20 || slot(0) != 0 || slot(1) != 3 || slot(2) != 0 {
		fmt.Fprintln(os.Stderr, "not a 32-bit little-endian gperftools CPU profile with a 3-word header")
		os.Exit(1)
	}
	out := append([]byte(nil), b...)
	n := 2 + int(slot(1)) // header slots
	for i := 0; 4*i < len(b) && i < n; i++ {
		be.PutUint32(out[4*i:], slot(i))
	}
	i := n
	for 4*(i+2) <= len(b) {
		count, npcs := slot(i), slot(i+1)
		end := i + 2 + int(npcs)
		if 4*end > len(b) {
			fmt.Fprintf(os.Stderr, "record at byte %d runs past the end\n", 4*i)
			os.Exit(1)
		}
		for j := i; j < end; j++ {
			be.PutUint32(out[4*j:], slot(j))
		}
		if count == 0 && npcs == 1 && slot(i+2) == 0 {
			break // trailer; the maps text follows
		}
		i = end
	}
	if err := os.WriteFile(os.Args[2], out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
