package model

// Stacks is a table of stacks stored back to back in one slice: stack i is
// Frames[Offsets[i]:Offsets[i+1]], a leaf-first list of location indices.
// The zero value is an empty table.
type Stacks struct {
	Frames  []int32
	Offsets []int32 // len == Len()+1 when non-empty
}

// Len returns the number of stacks.
func (s *Stacks) Len() int {
	if len(s.Offsets) == 0 {
		return 0
	}
	return len(s.Offsets) - 1
}

// Get returns stack i, leaf first. The slice aliases the table: do not modify it.
func (s *Stacks) Get(i int) []int32 {
	return s.Frames[s.Offsets[i]:s.Offsets[i+1]:s.Offsets[i+1]]
}

// Add appends a stack (leaf first) and returns its index. It does not look
// for an identical stack already in the table; see Builder for that.
func (s *Stacks) Add(frames []int32) int32 {
	if len(s.Offsets) == 0 {
		s.Offsets = append(s.Offsets, 0)
	}
	s.Frames = append(s.Frames, frames...)
	s.Offsets = append(s.Offsets, int32(len(s.Frames)))
	return int32(len(s.Offsets) - 2)
}

// Grow makes room for n more stacks holding frames more frames in all.
func (s *Stacks) Grow(n, frames int) {
	if cap(s.Offsets)-len(s.Offsets) < n+1 {
		o := make([]int32, len(s.Offsets), len(s.Offsets)+n+1)
		copy(o, s.Offsets)
		s.Offsets = o
	}
	if cap(s.Frames)-len(s.Frames) < frames {
		f := make([]int32, len(s.Frames), len(s.Frames)+frames)
		copy(f, s.Frames)
		s.Frames = f
	}
}
