package dwarfread

import (
	"bytes"
	"debug/elf"
	"math/rand"
	"os"
	"reflect"
	"testing"
)

// wholeAnswers resolves addrs from the whole DWARF, as without
// .debug_aranges.
func wholeAnswers(t *testing.T, b *File, addrs []uint64) [][]Frame {
	t.Helper()
	dw, err := b.Whole()
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]Frame, len(addrs))
	if err := dw.Lookup(addrs, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkLazy checks that reading only the units .debug_aranges names gives
// the answers the whole DWARF gives, for all of addrs and for random
// subsets of them (which leave units out, before, between and after those
// read). The lazy reading must not have fallen back, except, where
// unlisted is set, for errFull from lookup (a unit .debug_aranges does not
// list, after those read, could answer an address none of them did).
func checkLazy(t *testing.T, name string, b *File, addrs []uint64, subsets int, unlisted bool) {
	t.Helper()
	whole := wholeAnswers(t, b, addrs)
	r := rand.New(rand.NewSource(1))
	for k := 0; k <= subsets; k++ {
		var idx []int
		for i := range addrs {
			if k == 0 || r.Intn(len(addrs)) < 1+k%7 {
				idx = append(idx, i)
			}
		}
		sub := make([]uint64, len(idx))
		for j, i := range idx {
			sub[j] = addrs[i]
		}
		dw, err := b.lazyDWARF(sub)
		if err != nil {
			t.Fatalf("%s subset %d: lazy reading not used: %v", name, k, err)
		}
		if pipelineUnits && !unlisted && len(dw.units) > 0 && dw.pipe == nil {
			t.Fatalf("%s subset %d: the unit walker gave no answers", name, k)
		}
		out := make([][]Frame, len(sub))
		if err := dw.Lookup(sub, out); err == errFull && unlisted {
			continue
		} else if err != nil {
			t.Fatalf("%s subset %d (%d addresses): %v", name, k, len(sub), err)
		}
		answered := 0
		for j, i := range idx {
			if !reflect.DeepEqual(out[j], whole[i]) {
				t.Fatalf("%s subset %d: %#x: lazy %+v, whole %+v", name, k, sub[j], out[j], whole[i])
			}
			if out[j] != nil {
				answered++
			}
		}
		if k == 0 {
			t.Logf("%s: %d addresses, %d answered from DWARF, %d units read", name, len(sub), answered, len(dw.units))
			if answered == 0 {
				t.Errorf("%s: nothing answered", name)
			}
		}
	}
}

func TestLazyMatchesWhole(t *testing.T) {
	for _, fn := range []string{"bin/cprog", "bin/cxxprog", "bin/libwork.so", "bin/cprog-i386", "bin/cprog-s390x",
		"compressed/cprog", "compressed/cxxprog", "compressed/libwork.so"} {
		b := openFile(t, fixtures+fn)
		checkLazy(t, fn, b, execAddrs(b, 3), 20, false)
	}
}

// TestLazyWithoutWalker: the same answers when lookup walks the units
// after they are all read, as it does when the walker stops.
func TestLazyWithoutWalker(t *testing.T) {
	pipelineUnits = false
	defer func() { pipelineUnits = true }()
	TestLazyMatchesWhole(t)
	TestLazyMatchesWholeLibc(t)
}

// TestLazyMatchesWholeLibc does the same with this machine's libc's
// separate debug file, thousands of units in compressed sections, where
// installed (libc6-dbg); CI may not have it.
func TestLazyMatchesWholeLibc(t *testing.T) {
	dbg := openFile(t, libcDebugFile(t))
	// exec addresses of libc.so.6 are the debug file's addresses too
	checkLazy(t, "libc", dbg, execAddrs(openFile(t, libcPath), 997), 12, false)
}

// TestLazyUnlistedUnit: a unit .debug_aranges does not list is read
// whatever the addresses (only the unit can tell its ranges), and a table
// naming a unit that is not there is not used at all.
func TestLazyUnlistedUnit(t *testing.T) {
	orig, err := os.ReadFile(fixtures + "bin/cprog-i386")
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	ar := ef.Section(".debug_aranges")
	ib := fileOf(t, orig)
	intact := answers(t, ib, execAddrs(ib, 1))
	// The second set (at 40: 4+36) names the unit at 0x4a5.
	const second = 40
	if ef.ByteOrder.Uint32(orig[ar.Offset+second+6:]) != 0x4a5 {
		t.Fatal("the fixture's .debug_aranges is not as expected")
	}
	for _, tc := range []struct {
		name     string
		unit     uint32
		fallback bool
	}{
		{"second set names the first unit", 0, false},
		{"second set names no unit", 0x4a4, true},
	} {
		bin := append([]byte(nil), orig...)
		ef.ByteOrder.PutUint32(bin[ar.Offset+second+6:], tc.unit)
		b := fileOf(t, bin)
		addrs := execAddrs(b, 1)
		if _, err := b.lazyDWARF(addrs); (err != nil) != tc.fallback {
			t.Fatalf("%s: lazy reading error %v", tc.name, err)
		}
		if !tc.fallback {
			checkLazy(t, tc.name, b, addrs, 20, true)
		}
		// Reading the damaged file gives the intact file's answers.
		got := answers(t, b, addrs)
		if !reflect.DeepEqual(got, intact) {
			t.Errorf("%s: answers differ from the intact file's", tc.name)
		}
	}
}
