package prefault

import (
	"os"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// resident counts the pages of [lo, hi) that are in memory (mincore).
func resident(t *testing.T, lo, hi uintptr) (in, all int) {
	t.Helper()
	lo &^= pageSize - 1
	vec := make([]byte, (hi-lo+pageSize-1)/pageSize)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, lo, hi-lo, uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	for _, v := range vec {
		if v&1 != 0 {
			in++
		}
	}
	return in, len(vec)
}

// After populate, the executable's code and the heap chunk from the probe on
// are resident.
func TestRunPopulates(t *testing.T) {
	mem, err := syscall.Mmap(-1, 0, pageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	e := madvise(uintptr(unsafe.Pointer(&mem[0])), uintptr(unsafe.Pointer(&mem[0]))+pageSize, populateWrite)
	syscall.Munmap(mem)
	if e == syscall.EINVAL {
		t.Skip("this kernel has no MADV_POPULATE_WRITE (Linux 5.14)")
	}
	exe := executable()
	if exe == "" {
		t.Fatal("no path for /proc/self/exe")
	}
	probe, end := populate()
	if end == 0 {
		t.Fatal("populate found no heap mapping")
	}
	// The pages just above the probe (the runtime's scavenger may give
	// free pages back at any time, from the top of the heap down).
	if in, all := resident(t, probe, min(end, probe+256<<10)); in != all {
		t.Errorf("heap above %#x: %d of %d pages resident", probe, in, all)
	}
	maps, ok := readMaps()
	if !ok {
		t.Fatal("cannot read /proc/self/maps")
	}
	var text, heap int
	for _, m := range maps {
		switch {
		case m.path == exe && m.perms == "r-xp":
			text++
			if in, all := resident(t, m.lo, m.hi); in != all {
				t.Errorf("code %#x-%#x: %d of %d pages resident", m.lo, m.hi, in, all)
			}
		case m.lo <= probe && probe < m.hi:
			heap++
		}
	}
	if text == 0 || heap == 0 {
		t.Errorf("found %d code and %d heap mappings (executable %s)", text, heap, exe)
	}
}

func TestParseMaps(t *testing.T) {
	in := "00400000-00b7a000 r-xp 00000000 fe:01 123 /usr/bin/a b\n" +
		"c0000000-c0400000 rw-p 00000000 00:00 0 \n" +
		"7ff01000-7ff1a000 rw-p 00000000 00:00 0                          [stack]\n" +
		"zz-1 r-xp 0 0 0 /x\n" +
		"10-5 r-xp 0 0 0 /x\n" +
		"garbage\n"
	got := parseMaps([]byte(in))
	want := []mapping{
		{0x400000, 0xb7a000, "r-xp", "/usr/bin/a b"},
		{0xc0000000, 0xc0400000, "rw-p", ""},
		{0x7ff01000, 0x7ff1a000, "rw-p", "[stack]"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d mappings %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mapping %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestDisabled(t *testing.T) {
	for v, want := range map[string]bool{"0": true, "off": true, "false": true, "1": false, "": false} {
		t.Setenv("PPROFX_PREFAULT", v)
		if got := disabled(); got != want {
			t.Errorf("PPROFX_PREFAULT=%q: disabled %v, want %v", v, got, want)
		}
	}
	os.Unsetenv("PPROFX_PREFAULT")
}

// follow populates the window above the highest touched page of a
// mapping that grows, and not beyond it. The "heap" here is a mapping of
// the test's own: 4 MiB writable, then 8 MiB more made writable.
func TestFollow(t *testing.T) {
	const size = 4 * chunk
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_NONE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	lo := uintptr(unsafe.Pointer(&mem[0]))
	if err := syscall.Mprotect(mem[:chunk], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { follow(lo+chunk, lo+chunk, -1, stop); close(done) }()
	defer func() { close(stop); <-done }()
	// The mapping grows, and its new part is touched a little way in.
	if err := syscall.Mprotect(mem[chunk:3*chunk], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
		t.Fatal(err)
	}
	touched := chunk + 100<<10 // the page touched ends here
	mem[touched-1] = 1
	deadline := time.Now().Add(10 * time.Second)
	for {
		in, all := resident(t, lo+uintptr(touched), lo+uintptr(touched)+window)
		if in == all {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window above the touched pages: %d of %d pages resident", in, all)
		}
		time.Sleep(time.Millisecond)
	}
	// Below the page touched, and beyond the window, nothing.
	if in, all := resident(t, lo+chunk, lo+uintptr(touched)-pageSize); in != 0 {
		t.Errorf("below the page touched: %d of %d pages resident", in, all)
	}
	if in, all := resident(t, lo+uintptr(touched)+window, lo+3*chunk); in != 0 {
		t.Errorf("beyond the window: %d of %d pages resident", in, all)
	}
}

func TestRunEnd(t *testing.T) {
	maps := []mapping{
		{0x1000, 0x2000, "r-xp", "/bin/x"},
		{0x10000, 0x20000, "rw-p", ""},
		{0x20000, 0x30000, "rw-p", ""},
		{0x30000, 0x40000, "---p", ""},
		{0x50000, 0x60000, "rw-p", ""},
	}
	for _, c := range []struct{ at, want uintptr }{
		{0x20000, 0x30000}, // the run of the two writable mappings
		{0x18000, 0x30000},
		{0x30000, 0x30000},
		{0x10000, 0}, // the byte before is in no writable mapping
		{0x58000, 0x60000},
		{0x70000, 0},
	} {
		if got := runEnd(maps, c.at); got != c.want {
			t.Errorf("runEnd(%#x) = %#x, want %#x", c.at, got, c.want)
		}
	}
}

func BenchmarkReadMaps(b *testing.B) {
	for b.Loop() {
		readMaps()
	}
}

func BenchmarkStatm(b *testing.B) {
	fd, _ := syscall.Open("/proc/self/statm", syscall.O_RDONLY, 0)
	buf := make([]byte, 128)
	for b.Loop() {
		syscall.Pread(fd, buf, 0)
	}
}

// parseMaps and runEnd take any bytes: no panic, and every mapping they
// give is well formed.
func FuzzParseMaps(f *testing.F) {
	f.Add([]byte("00400000-00b7a000 r-xp 00000000 fe:01 123 /usr/bin/a b\nc0000000-c0400000 rw-p 00000000 00:00 0 \n"), uint64(0xc0400000))
	f.Add([]byte("10-5 r-xp 0 0 0 /x\n-\n \n\n"), uint64(1))
	if b, err := os.ReadFile("/proc/self/maps"); err == nil {
		f.Add(b, uint64(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, at uint64) {
		maps := parseMaps(b)
		for _, m := range maps {
			if m.hi <= m.lo || len(m.perms) != 4 {
				t.Fatalf("mapping %+v from %q", m, b)
			}
		}
		if e := runEnd(maps, uintptr(at)); e != 0 && e < uintptr(at) {
			t.Fatalf("runEnd(%#x) = %#x, below it", at, e)
		}
	})
}
