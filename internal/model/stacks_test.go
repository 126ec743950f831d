package model

import (
	"slices"
	"strings"
	"testing"
)

func stacksOf(s *Stacks) [][]int32 {
	var out [][]int32
	for i := range s.Len() {
		out = append(out, s.Append(nil, i))
	}
	return out
}

// A table stays at 2 bytes a frame until an index does not fit, then holds
// every stack, old and new, at 4.
func TestStacksWiden(t *testing.T) {
	var s Stacks
	s.Add([]int32{0, 1, 65535})
	s.Add(nil)
	if s.isWide || len(s.narrow) != 3 {
		t.Fatalf("narrow indices: wide %v, %d narrow frames", s.isWide, len(s.narrow))
	}
	s.Add([]int32{2, 65536})
	if !s.isWide || s.narrow != nil {
		t.Fatalf("index 65536 left the table narrow")
	}
	s.Add([]int32{7})
	want := [][]int32{{0, 1, 65535}, nil, {2, 65536}, {7}}
	got := stacksOf(&s)
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("stacks %v, want %v", got, want)
	}
	if s.NumFrames() != 6 || s.StackLen(2) != 2 || s.Frame(2, 1) != 65536 || s.Frame(0, 2) != 65535 {
		t.Fatalf("NumFrames %d, StackLen(2) %d, Frame(2,1) %d, Frame(0,2) %d", s.NumFrames(), s.StackLen(2), s.Frame(2, 1), s.Frame(0, 2))
	}
	if !s.Equal(0, []int32{0, 1, 65535}) || s.Equal(0, []int32{0, 1}) || s.Equal(2, []int32{2, 0}) {
		t.Fatal("Equal")
	}
}

// A negative index (which Validate refuses) is kept as it is, not
// truncated to 16 bits.
func TestStacksNegative(t *testing.T) {
	var s Stacks
	s.Add([]int32{3})
	s.AddFrame(-1)
	s.EndStack()
	if got := s.Frame(1, 0); got != -1 || !s.isWide {
		t.Fatalf("Frame = %d, wide %v", got, s.isWide)
	}
	p := New()
	p.Locations = []Location{{Mapping: NoMapping}, {Mapping: NoMapping}, {Mapping: NoMapping}, {Mapping: NoMapping}}
	p.Stacks = s
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "stack[1][0]: location index -1") {
		t.Fatalf("Validate = %v", err)
	}
}

// AddFrame builds a stack in place; DropStack takes it back, EndStack
// keeps it.
func TestStacksInPlace(t *testing.T) {
	var s Stacks
	s.Grow(2, 4)
	if s.FrameRoom() != 4 || s.StackRoom() != 2 {
		t.Fatalf("room: %d frames, %d stacks", s.FrameRoom(), s.StackRoom())
	}
	s.AddFrame(5)
	s.AddFrame(6)
	s.DropStack()
	if s.NumFrames() != 0 || s.Len() != 0 {
		t.Fatalf("after DropStack: %d frames, %d stacks", s.NumFrames(), s.Len())
	}
	s.AddFrame(8)
	if i := s.EndStack(); i != 0 {
		t.Fatalf("EndStack = %d", i)
	}
	if i := s.EndStack(); i != 1 || s.StackLen(1) != 0 {
		t.Fatalf("empty stack: %d, %d frames", i, s.StackLen(1))
	}
	s.AddFrame(70000)
	s.AddFrame(9)
	s.DropStack()
	want := [][]int32{{8}, nil}
	if got := stacksOf(&s); !slices.EqualFunc(got, want, slices.Equal) || s.NumFrames() != 1 {
		t.Fatalf("stacks %v (%d frames), want %v", got, s.NumFrames(), want)
	}
}

// Fit widens an empty table for a profile of more than 65536 locations,
// and leaves a smaller one narrow.
func TestStacksFit(t *testing.T) {
	var s, w Stacks
	s.Fit(65536)
	w.Fit(65537)
	if s.isWide || !w.isWide {
		t.Fatalf("Fit(65536) wide %v, Fit(65537) wide %v", s.isWide, w.isWide)
	}
	w.Add([]int32{1, 2})
	if got := w.Append(nil, 0); !slices.Equal(got, []int32{1, 2}) {
		t.Fatalf("Append = %v", got)
	}
}

func TestFrameBytes(t *testing.T) {
	for _, c := range []struct{ locations, want int }{{0, 2}, {65536, 2}, {65537, 4}} {
		if got := FrameBytes(c.locations); got != c.want {
			t.Errorf("FrameBytes(%d) = %d, want %d", c.locations, got, c.want)
		}
	}
}
