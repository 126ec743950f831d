package model

import "slices"

// narrowLimit is the first location index a narrow frame cannot hold.
const narrowLimit = 1 << 16

// Stacks is a table of stacks stored back to back: stack i is frames
// offsets[i] to offsets[i+1], a leaf-first list of location indices.
// While every index is below 65536, as in most profiles, a frame takes 2
// bytes; the first one that is not widens the table to 4 bytes a frame.
// The zero value is an empty table.
type Stacks struct {
	narrow  []uint16 // the frames while they fit; nil once wide
	wide    []int32  // the frames once one did not fit
	isWide  bool
	offsets []int32 // len == Len()+1 when non-empty
}

// Len returns the number of stacks.
func (s *Stacks) Len() int {
	if len(s.offsets) == 0 {
		return 0
	}
	return len(s.offsets) - 1
}

// NumFrames returns the frames of all stacks together.
func (s *Stacks) NumFrames() int {
	if s.isWide {
		return len(s.wide)
	}
	return len(s.narrow)
}

// StackLen returns the number of frames of stack i.
func (s *Stacks) StackLen(i int) int { return int(s.offsets[i+1] - s.offsets[i]) }

// Append appends the frames of stack i, leaf first, to dst and returns
// the extended slice.
func (s *Stacks) Append(dst []int32, i int) []int32 {
	lo, hi := s.offsets[i], s.offsets[i+1]
	if s.isWide {
		return append(dst, s.wide[lo:hi]...)
	}
	dst = slices.Grow(dst, int(hi-lo))
	for _, f := range s.narrow[lo:hi] {
		dst = append(dst, int32(f))
	}
	return dst
}

// Frame returns frame j of stack i (0 is the leaf).
func (s *Stacks) Frame(i, j int) int32 {
	k := int(s.offsets[i]) + j
	if s.isWide {
		return s.wide[k]
	}
	return int32(s.narrow[k])
}

// Equal reports whether stack i holds exactly frames.
func (s *Stacks) Equal(i int, frames []int32) bool {
	lo, hi := s.offsets[i], s.offsets[i+1]
	if int(hi-lo) != len(frames) {
		return false
	}
	if s.isWide {
		return slices.Equal(s.wide[lo:hi], frames)
	}
	for k, f := range s.narrow[lo:hi] {
		if int32(f) != frames[k] {
			return false
		}
	}
	return true
}

// Add appends a stack (leaf first) and returns its index. It does not look
// for an identical stack already in the table; see Builder for that.
func (s *Stacks) Add(frames []int32) int32 {
	if len(s.offsets) == 0 {
		s.offsets = append(s.offsets, 0)
	}
	if !s.isWide {
		for _, f := range frames {
			if uint32(f) >= narrowLimit {
				s.widen(len(frames))
				break
			}
		}
	}
	if s.isWide {
		s.wide = append(s.wide, frames...)
	} else {
		s.narrow = slices.Grow(s.narrow, len(frames))
		for _, f := range frames {
			s.narrow = append(s.narrow, uint16(f))
		}
	}
	return s.close()
}

// AddFrame appends one frame to the stack being built: the frames added
// since the last Add or EndStack. EndStack ends it; DropStack drops it.
func (s *Stacks) AddFrame(f int32) {
	if len(s.offsets) == 0 {
		s.offsets = append(s.offsets, 0)
	}
	if !s.isWide {
		if uint32(f) < narrowLimit {
			s.narrow = append(s.narrow, uint16(f))
			return
		}
		s.widen(1)
	}
	s.wide = append(s.wide, f)
}

// EndStack ends the stack of the frames added by AddFrame (none makes an
// empty stack) and returns its index.
func (s *Stacks) EndStack() int32 {
	if len(s.offsets) == 0 {
		s.offsets = append(s.offsets, 0)
	}
	return s.close()
}

// DropStack drops the frames added by AddFrame since the last stack ended.
func (s *Stacks) DropStack() {
	end := 0
	if len(s.offsets) > 0 {
		end = int(s.offsets[len(s.offsets)-1])
	}
	if s.isWide {
		s.wide = s.wide[:end]
	} else {
		s.narrow = s.narrow[:end]
	}
}

func (s *Stacks) close() int32 {
	s.offsets = append(s.offsets, int32(s.NumFrames()))
	return int32(len(s.offsets) - 2)
}

// widen moves the frames to 4 bytes each, with room for more frames.
func (s *Stacks) widen(more int) {
	w := make([]int32, len(s.narrow), len(s.narrow)+max(more, cap(s.narrow)-len(s.narrow)))
	for k, f := range s.narrow {
		w[k] = int32(f)
	}
	s.wide, s.narrow, s.isWide = w, nil, true
}

// Fit prepares the table for a profile of this many locations: a table
// that will need 4 bytes a frame is widened before its frames are added,
// not after.
func (s *Stacks) Fit(locations int) {
	if !s.isWide && locations > narrowLimit {
		s.widen(0)
	}
}

// FrameBytes returns the bytes a frame takes in the stacks of a profile
// of this many locations (see Fit), for counting memory before decoding.
func FrameBytes(locations int) int {
	if locations > narrowLimit {
		return 4
	}
	return 2
}

// Grow makes room for n more stacks holding frames more frames in all.
// Room for frames is made exactly, not doubled: a caller that knows how
// many come asks for that many.
func (s *Stacks) Grow(n, frames int) {
	if len(s.offsets) == 0 {
		n++ // offsets[0]
	}
	s.offsets = growExact(s.offsets, n)
	if s.isWide {
		s.wide = growExact(s.wide, frames)
		return
	}
	s.narrow = growExact(s.narrow, frames)
}

// FrameRoom returns how many frames fit before the table must grow.
func (s *Stacks) FrameRoom() int {
	if s.isWide {
		return cap(s.wide) - len(s.wide)
	}
	return cap(s.narrow) - len(s.narrow)
}

// StackRoom returns how many stacks fit before the table must grow.
func (s *Stacks) StackRoom() int {
	if len(s.offsets) == 0 {
		return max(cap(s.offsets)-1, 0)
	}
	return cap(s.offsets) - len(s.offsets)
}

// growExact returns b with room for exactly n more elements when it has
// less.
func growExact[E any](b []E, n int) []E {
	if cap(b)-len(b) >= n {
		return b
	}
	g := make([]E, len(b), len(b)+n)
	copy(g, b)
	return g
}
