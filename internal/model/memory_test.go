package model

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"unsafe"
)

// With no memory limit set, counts within MemoryPerInputByte times the
// input are still refused when they would need more than the machine has;
// under a limit the limit counts instead.
func TestCheckMemoryMachine(t *testing.T) {
	defer SetMachineMemory(0)
	defer SetMemoryAvailable(0)
	SetMachineMemory(1 << 30)
	if err := CheckMemory("x", 900<<20, 100<<20, "n samples"); err != nil {
		t.Fatalf("900 MiB of a 1 GiB machine: %v", err)
	}
	err := CheckMemory("x", 1000<<20, 100<<20, "n samples")
	if err == nil || !strings.Contains(err.Error(), "x: n samples in 104857600 bytes would take 1.1 GiB in memory with the input, more than the machine's 1.0 GiB: refused (a crafted or corrupt file? --max-memory sets a limit to hold it to instead)") {
		t.Fatalf("1100 MiB of a 1 GiB machine: %v", err)
	}
	SetMachineMemory(0)
	if err := CheckMemory("x", 1000<<20, 100<<20, "n samples"); err != nil {
		t.Fatalf("machine not known: %v", err)
	}
	// A limit over the machine's memory (--max-memory) is the user's word.
	SetMachineMemory(1 << 30)
	SetMemoryAvailable(4 << 30)
	if err := CheckMemory("x", 1000<<20, 100<<20, "n samples"); err != nil {
		t.Fatalf("under a limit of 4 GiB: %v", err)
	}
}

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
	p.Samples = append(p.Samples, NewSample(p.Stacks.Add([]int32{0}), []int64{1, 2}))
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

// Label sets are found by an index of their numbers and their labels cut
// from a shared array: 200k sets of 5 labels each, one of them of its own
// (a perf script's samples, their times as labels), take at most 200
// bytes a set held, their 48-byte entries and 120 bytes of labels
// included. A map keyed by each set's encoded labels, and an array of
// labels each, took 243.
func TestLabelSetMemory(t *testing.T) {
	const n = 200_000
	b := NewBuilder()
	keys := []int32{b.String("thread_comm"), b.String("pid"), b.String("tid"), b.String("cpu"), b.String("timestamp_ns")}
	comm := b.String("a")
	labels := make([]Label, 5)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for k := range n {
		labels[0] = Label{Key: keys[0], Str: comm}
		labels[1] = Label{Key: keys[1], Num: 1}
		labels[2] = Label{Key: keys[2], Num: 1}
		labels[3] = Label{Key: keys[3], Num: int64(k % 4)}
		labels[4] = Label{Key: keys[4], Num: 1e9 + int64(k)*1000}
		if got := b.LabelSet(labels); got != int32(k+1) {
			t.Fatalf("set %d numbered %d", k, got)
		}
	}
	for k := range 1000 { // found again
		labels[3].Num, labels[4].Num = int64(k%4), 1e9+int64(k)*1000
		if got := b.LabelSet(labels); got != int32(k+1) {
			t.Fatalf("set %d found as %d", k, got)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(b)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("%d bytes a label set of 5 labels held", per)
	if per > 200 {
		t.Errorf("%d bytes a label set held, want 200 or less", per)
	}
	// A builder over the profile finds them too.
	b2 := BuilderFor(b.P)
	if got := b2.LabelSet(labels); got != 1000 {
		t.Errorf("BuilderFor: set found as %d, want 1000", got)
	}
	attrs := []Attribute{{Key: "k", Value: Value{Kind: KindBool, Bool: true}}}
	i := b2.LabelSetWith(labels, attrs)
	if j := b2.LabelSetWith(labels, attrs); i != j || i == 1000 {
		t.Errorf("a set with attributes numbered %d, then %d (its labels alone: 1000)", i, j)
	}
	if j := BuilderFor(b2.P).LabelSetWith(labels, attrs); j != i {
		t.Errorf("BuilderFor: the set with attributes found as %d, want %d", j, i)
	}
}
