package memcheck

import (
	"runtime"
	"sync"
	"testing"
)

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

var small [][]byte

// Small objects are counted by the runtime's metrics only when the span
// cached for their size is handed back: what other code allocated before
// Of began must not be counted when a collection during f hands it back.
func TestOfCountsOnlyItsOwn(t *testing.T) {
	runtime.GOMAXPROCS(8)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local [][]byte
			for size := 16; size <= 16<<10; size += size / 4 {
				local = append(local, make([]byte, size))
			}
			mu.Lock()
			small = append(small, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if alloc := Of(runtime.GC); alloc > 64<<10 {
		t.Errorf("a collection alone counted %d bytes allocated", alloc)
	}
}
