package memcheck

import "testing"

var sink []byte

func TestOver(t *testing.T) {
	alloc, over := Over(1<<20, func() { sink = make([]byte, 4<<20) })
	if !over || alloc < 4<<20 {
		t.Errorf("4 MiB against a 1 MiB bound: %d bytes, over=%v", alloc, over)
	}
	runs := 0
	alloc, over = Over(1<<20, func() { runs++; sink = make([]byte, 64<<10) })
	if over || alloc < 64<<10 || runs != 1 {
		t.Errorf("64 KiB against a 1 MiB bound: %d bytes, over=%v, %d runs", alloc, over, runs)
	}
	// A first run that is blamed for someone else's allocation is measured
	// again.
	runs = 0
	alloc, over = Over(1<<20, func() {
		runs++
		if runs == 1 {
			sink = make([]byte, 2<<20)
		} else {
			sink = make([]byte, 64<<10)
		}
	})
	if over || runs != 2 || alloc >= 1<<20 {
		t.Errorf("noise on the first run: %d bytes, over=%v, %d runs", alloc, over, runs)
	}
}
