package model

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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
	p.AddLocation(Location{Mapping: NoMapping}, Line{Function: NoFunction})
	p.Samples = append(p.Samples, Sample{Stack: p.Stacks.Add([]int32{0}), Values: []int64{1, 2}, Link: NoLink})
	want := int64(unsafe.Sizeof(Location{})+unsafe.Sizeof(Line{})+unsafe.Sizeof(Sample{})) + 2*8 + // location, sample, values
		2 + 4 // one frame, one more stack offset
	if got := p.MemSize() - before; got != want {
		t.Errorf("MemSize grew by %d, want %d", got, want)
	}
}

// CheckAvailableNow collects what the process holds but no longer uses,
// and hands it back, before it refuses a step.
func TestCheckAvailableNowCollectsFirst(t *testing.T) {
	defer SetMemoryAvailable(0)
	defer memoryInUse.Store(nil)
	held := func() int64 {
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		metrics.Read(s)
		return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
	}
	debug.FreeOSMemory()
	SetMemoryAvailable(512 << 20)
	SetMemoryInUse(held, 0)
	garbage := make([]byte, 256<<20)
	for i := 0; i < len(garbage); i += 4096 {
		garbage[i] = 1
	}
	runtime.KeepAlive(garbage)
	garbage = nil
	if avail, _, _ := availableNow(); avail > 384<<20 {
		t.Skipf("the runtime gave the 256 MiB back at once (%d MiB left)", avail>>20)
	}
	if err := CheckAvailableNow("x", 400<<20, "a step"); err != nil {
		t.Errorf("a step that fits once the garbage is collected was refused: %v", err)
	}
	if err := CheckAvailableNow("x", 600<<20, "a step"); err == nil {
		t.Error("a step past what the limit left: no refusal")
	}
}
