package model

import (
	"strings"
	"testing"
	"unsafe"
)

// CheckAvailableNow holds a step to what the limit left when it was set,
// less what the process took since.
func TestCheckAvailableNow(t *testing.T) {
	defer SetMemoryAvailable(0)
	defer memoryInUse.Store(nil)
	used := int64(1000)
	SetMemoryAvailable(100)
	SetMemoryInUse(func() int64 { return used }, 0)
	if err := CheckAvailableNow("x", 90, "a step"); err != nil {
		t.Fatalf("90 of 100 left: %v", err)
	}
	used += 60
	err := CheckAvailableNow("x", 50, "a step")
	if err == nil || !strings.Contains(err.Error(), "x: a step would take 50 bytes more in memory, more than the 40 bytes the memory limit leaves now") {
		t.Fatalf("50 of 40 left: %v", err)
	}
	SetMemoryAvailable(0)
	if err := CheckAvailableNow("x", 1<<40, "a step"); err != nil {
		t.Fatalf("no limit: %v", err)
	}
}

// MemSize counts a location with its line, a frame and a sample with its
// values at their sizes in memory.
func TestMemSize(t *testing.T) {
	p := New()
	before := p.MemSize()
	p.Locations = append(p.Locations, Location{Mapping: NoMapping, Lines: []Line{{Function: NoFunction}}})
	p.Samples = append(p.Samples, Sample{Stack: p.Stacks.Add([]int32{0}), Values: []int64{1, 2}, Link: NoLink})
	want := int64(unsafe.Sizeof(Location{})+unsafe.Sizeof(Line{})+unsafe.Sizeof(Sample{})) + 2*8 + // location, sample, values
		2 + 4 // one frame, one more stack offset
	if got := p.MemSize() - before; got != want {
		t.Errorf("MemSize grew by %d, want %d", got, want)
	}
}
