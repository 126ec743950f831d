package dwarfread

import (
	"testing"
)

func TestBigBuffer(t *testing.T) {
	for _, n := range []int{0, 1, bigMin - 1, bigMin, 5<<20 + 3} {
		b := bigBuffer(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("bigBuffer(%d): len %d cap %d", n, len(b), cap(b))
		}
		for i, c := range b {
			if c != 0 {
				t.Fatalf("bigBuffer(%d)[%d] = %d, not zero", n, i, c)
			}
		}
	}
}

func TestArena(t *testing.T) {
	a := newArena(bigMin + 100)
	x, y := a.take(bigMin), a.take(100)
	z := a.take(1) // beyond the arena: a slice of its own
	for _, b := range [][]byte{x, y, z} {
		for i, c := range b {
			if c != 0 {
				t.Fatalf("byte %d not zero", i)
			}
		}
	}
	if len(x) != bigMin || cap(x) != bigMin || len(y) != 100 || cap(y) != 100 || len(z) != 1 {
		t.Fatalf("lengths %d/%d %d/%d %d", len(x), cap(x), len(y), cap(y), len(z))
	}
	// The buffers do not overlap: writing one leaves the next zero.
	for i := range x {
		x[i] = 0xff
	}
	if y[0] != 0 || &x[len(x)-1] == &y[0] {
		t.Fatal("buffers overlap")
	}
	if b := newArena(10).take(20); len(b) != 20 { // a small arena reserves nothing
		t.Fatal("small arena")
	}
}
