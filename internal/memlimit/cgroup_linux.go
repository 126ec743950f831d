package memlimit

import (
	"bufio"
	"os"
	"path"
	"strconv"
	"strings"
)

// cgroupRoot is where the cgroup v2 hierarchy is mounted.
var cgroupRoot = "/sys/fs/cgroup"

// cgroupMax returns the smallest memory.max of the cgroup v2 the process
// runs in and of its parents (0: none, or not cgroup v2), and the
// process's resident memory.
func cgroupMax() (total, rss int64) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, 0
	}
	total = cgroupMaxOf(string(data), func(name string) ([]byte, error) { return os.ReadFile(name) })
	if total == 0 {
		return 0, 0
	}
	return total, procStatus("VmRSS:")
}

// cgroupMaxOf reads the "0::<path>" line of a /proc/self/cgroup text and
// the memory.max of that path and its parents, with read.
func cgroupMaxOf(procCgroup string, read func(string) ([]byte, error)) int64 {
	var rel string
	found := false
	for _, line := range strings.Split(procCgroup, "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
			break
		}
	}
	if !found {
		return 0
	}
	var best int64
	for dir := path.Clean("/" + rel); ; dir = path.Dir(dir) {
		if b, err := read(path.Join(cgroupRoot, dir, "memory.max")); err == nil {
			s := strings.TrimSpace(string(b))
			if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && (best == 0 || n < best) {
				best = n // "max" is no limit
			}
		}
		if dir == "/" {
			break
		}
	}
	return best
}

// procStatus returns a field of /proc/self/status given in kB ("VmRSS:"),
// in bytes (0: not found).
func procStatus(field string) int64 { return procField("/proc/self/status", field) }

// machineMemory is the machine's memory, MemTotal of /proc/meminfo (0: not
// known).
func machineMemory() int64 { return procField("/proc/meminfo", "MemTotal:") }

// procField returns a field of a /proc file given in kB, in bytes (0: not
// found).
func procField(name, field string) int64 {
	f, err := os.Open(name)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
