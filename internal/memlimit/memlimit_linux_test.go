package memlimit

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAddressSpaceLimit runs the test binary again under ulimit -v 3 GiB:
// the limit found is the address-space one, less what Go reserved at
// start (over a GiB on linux/amd64), and the process still starts.
func TestAddressSpaceLimit(t *testing.T) {
	if os.Getenv("MEMLIMIT_CHILD") == "1" {
		l := Detect(0)
		if l.Source != AddressSpace || l.Total != 3<<30 || l.Avail <= 0 || l.Avail >= l.Total-64<<20 {
			t.Fatalf("under ulimit -v 3 GiB: %+v", l)
		}
		if err := l.Check("", 2<<30); err == nil {
			t.Fatalf("a 2 GiB input admitted under ulimit -v 3 GiB: %+v", l)
		}
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command("sh", "-c", `ulimit -v 3145728 && exec "$0" -test.run '^TestAddressSpaceLimit$' -test.v`, os.Args[0])
	cmd.Env = append(os.Environ(), "MEMLIMIT_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("%v: %s", err, out)
	}
}

// The machine's memory is read from /proc/meminfo, and Detect gives it.
func TestMachineMemory(t *testing.T) {
	m := machineMemory()
	if m < 64<<20 || m%1024 != 0 {
		t.Fatalf("machine memory %d bytes", m)
	}
	if l := Detect(0); l.Machine != m {
		t.Fatalf("Detect's Machine %d, want %d", l.Machine, m)
	}
}

func TestCgroupMaxOf(t *testing.T) {
	files := map[string]string{
		"/sys/fs/cgroup/system.slice/memory.max":           "1073741824\n",
		"/sys/fs/cgroup/system.slice/job.scope/memory.max": "max\n",
	}
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	if got := cgroupMaxOf("0::/system.slice/job.scope\n", read); got != 1<<30 {
		t.Errorf("a parent's limit: got %d", got)
	}
	files["/sys/fs/cgroup/system.slice/job.scope/memory.max"] = "268435456\n"
	if got := cgroupMaxOf("0::/system.slice/job.scope\n", read); got != 256<<20 {
		t.Errorf("the smaller, own limit: got %d", got)
	}
	if got := cgroupMaxOf("12:memory:/x\n", read); got != 0 {
		t.Errorf("cgroup v1 only: got %d", got)
	}
	if got := cgroupMaxOf("0::/\n", read); got != 0 {
		t.Errorf("root without memory.max: got %d", got)
	}
}

// The program's pages resident from its file are found (the test binary
// has some: its code runs).
func TestProgramPages(t *testing.T) {
	if n := programPages(); n <= 0 || n > 1<<30 {
		t.Errorf("program pages: %d bytes", n)
	}
}
