package dwarfread

import (
	"debug/dwarf"
	"math/rand"
	"reflect"
	"testing"
)

// TestScanTreeMatchesReadTree: the scanner's function tree of every unit
// read is the standard reader's, on the fixtures (plain, 32-bit,
// big-endian, compressed) and this machine's libc debug file where there
// is one; and the scanner takes every one of those units (no fallback).
func TestScanTreeMatchesReadTree(t *testing.T) {
	type bin struct {
		name  string
		b     *File // the file with the DWARF
		addrs []uint64
	}
	open := func(fn string) *File { return openFile(t, fn) }
	var bins []bin
	for _, fn := range []string{"bin/cprog", "bin/cxxprog", "bin/libwork.so", "bin/cprog-i386", "bin/cprog-s390x",
		"compressed/cprog", "compressed/cxxprog", "compressed/libwork.so"} {
		b := open(fixtures + fn)
		bins = append(bins, bin{fn, b, execAddrs(b, 1)})
	}
	// A separate debug file: the addresses are the stripped binary's.
	bins = append(bins, bin{"stripped/cprog.debug", open(fixtures + "stripped/cprog.debug"),
		execAddrs(open(fixtures+"stripped/cprog"), 1)})
	if dbg, err := DebugFileOf(libcPath); err == nil {
		bins = append(bins, bin{"libc debug file", open(dbg), execAddrs(open(libcPath), 101)})
	}
	for _, bn := range bins {
		dw, err := bn.b.lazyDWARF(bn.addrs)
		if err != nil {
			t.Fatalf("%s: %v", bn.name, err)
		}
		functions := 0
		for _, u := range dw.units {
			r := dw.d.Reader()
			r.Seek(dwarf.Offset(u.die))
			var w walk
			cu, err := next(r, &w)
			if err != nil || cu == nil || !cu.Children {
				continue
			}
			var read, scanned funcTree
			if err := dw.readTree(r, &w, &read); err != nil {
				t.Fatalf("%s: unit at %#x: standard reader: %v", bn.name, u.off, err)
			}
			if err := dw.scanTree(cu, &scanned); err != nil {
				t.Fatalf("%s: unit at %#x: scanner: %v", bn.name, u.off, err)
			}
			if !reflect.DeepEqual(read, scanned) {
				t.Fatalf("%s: unit at %#x: trees differ:\nread    %+v\nscanned %+v", bn.name, u.off, read, scanned)
			}
			functions += len(read.nodes)
		}
		t.Logf("%s: %d units, %d function bodies", bn.name, len(dw.units), functions)
		if functions == 0 {
			t.Errorf("%s: no function read", bn.name)
		}
	}
}

// rangeIndex answers as a scan of the list does: the first node whose
// ranges hold the address, overlapping ranges, several ranges a node,
// empty ones and gaps included.
func TestRangeIndexMatchesScan(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		nodes := make([]node, 1+r.Intn(40))
		list := make([]int32, len(nodes))
		for i := range nodes {
			list[i] = int32(i)
			for k := 0; k < 1+r.Intn(3); k++ {
				lo := uint64(r.Intn(1000))
				nodes[i].ranges = append(nodes[i].ranges, [2]uint64{lo, lo + uint64(r.Intn(60))})
			}
		}
		r.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		x := newRangeIndex(nodes, list)
		for a := uint64(0); a < 1100; a++ {
			want := -1
			for p, n := range list {
				if inRanges(nodes[n].ranges, a) {
					want = p
					break
				}
			}
			if got := x.find(a); got != want {
				t.Fatalf("round %d, address %d: find = %d, the scan says %d", round, a, got, want)
			}
		}
	}
}
