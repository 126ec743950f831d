package prefault

import (
	"os"
	"syscall"
	"testing"
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

// After Run, the executable's code and the heap chunk from the probe on
// are resident, every page of them.
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
	Run()
	maps, ok := readMaps()
	if !ok {
		t.Fatal("cannot read /proc/self/maps")
	}
	probe := uintptr(unsafe.Pointer(heapProbe))
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
			if in, all := resident(t, probe, m.hi); in != all {
				t.Errorf("heap %#x-%#x: %d of %d pages from the probe on resident", probe, m.hi, in, all)
			}
		}
	}
	if text == 0 || heap == 0 {
		t.Errorf("found %d code and %d heap mappings (executable %s)", text, heap, exe)
	}
}

func TestParseMaps(t *testing.T) {
	in := "00400000-00b7a000 r-xp 00000000 fe:01 123 /usr/bin/a b\n" +
		"c000000000-c000400000 rw-p 00000000 00:00 0 \n" +
		"7ffc01ef9000-7ffc01f1a000 rw-p 00000000 00:00 0                          [stack]\n" +
		"zz-1 r-xp 0 0 0 /x\n" +
		"10-5 r-xp 0 0 0 /x\n" +
		"garbage\n"
	got := parseMaps([]byte(in))
	want := []mapping{
		{0x400000, 0xb7a000, "r-xp", "/usr/bin/a b"},
		{0xc000000000, 0xc000400000, "rw-p", ""},
		{0x7ffc01ef9000, 0x7ffc01f1a000, "rw-p", "[stack]"},
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
