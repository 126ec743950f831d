package prefault

import (
	"syscall"
	"time"
	"unsafe"
)

// The madvise advice values, the same on every Linux architecture.
const (
	populateRead  = 22 // MADV_POPULATE_READ
	populateWrite = 23 // MADV_POPULATE_WRITE
)

// It imports only syscall, time and unsafe, so that it is among the first
// packages initialized: the work then overlaps the initialization of the
// many packages after it (protobuf's registries, gRPC, net/http, ...).
func init() {
	if !disabled() {
		go Run()
	}
}

// Run populates the executable's code and the rest of the heap chunk that
// holds a fresh object, then follows the heap as it grows (follow), for
// the rest of the process. Errors (an old kernel, a mapping it cannot
// read) leave things as they were.
func Run() {
	// This runs beside every command, whose output it must not put at
	// risk: a fault here (a /proc file of a shape not foreseen, say) ends
	// the prefaulting, never the process.
	defer func() { _ = recover() }()
	if _, end := populate(); end != 0 {
		follow(end, end, -1, nil)
	}
}

// populate populates the executable's code and the heap chunk from a
// fresh object's page to its end, and returns that range; end is 0 when
// the heap was not found or cannot be populated.
func populate() (lo, end uintptr) {
	// A heap object's address names the heap chunk in use.
	probe := uintptr(unsafe.Pointer(new([64]byte)))
	maps, ok := readMaps()
	if !ok {
		return 0, 0
	}
	exe := executable()
	var heapEnd uintptr
	for _, m := range maps {
		if m.lo <= probe && probe < m.hi && m.perms == "rw-p" {
			heapEnd = m.hi
		}
		if exe != "" && m.path == exe && m.perms == "r-xp" {
			madvise(m.lo, m.hi, populateRead)
		}
	}
	if heapEnd == 0 {
		return 0, 0
	}
	lo = probe &^ (pageSize - 1)
	if e := madvise(lo, heapEnd, populateWrite); e == syscall.EINVAL || e == syscall.EPERM || e == syscall.ENOSYS {
		// A kernel before 5.14, or a sandbox that refuses it: nothing
		// to follow with.
		return 0, 0
	}
	return lo, heapEnd
}

// chunk is the size the heap grows by: the runtime's palloc chunk.
const chunk = 4 << 20

// window is how much follow populates above a page the heap touched.
const window = 4 << 20

// followBudget bounds what follow populates over a run.
const followBudget = 64 << 20

// follow keeps the heap's next pages populated as it grows beyond what is
// populated (from lo's chunk end on): every 250 µs or so (up to 4 ms when
// nothing happens), mincore says whether a page above what is populated
// has been touched, and if one has, the window above the highest such
// page is populated. /proc/self/statm says when the heap's mapping has
// grown, and /proc/self/maps how far. Pages never touched above a touched
// one (a large buffer not yet filled) are left as they are.
//
// It returns when stop is closed (tests), after followBudget bytes, or on
// an error.
func follow(populated, end uintptr, data int, stop <-chan struct{}) {
	fd, err := syscall.Open("/proc/self/statm", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer syscall.Close(fd)
	var vec []byte
	wait := 250 * time.Microsecond
	for done := uintptr(0); done < followBudget; {
		select {
		case <-stop:
			return
		case <-time.After(wait):
		}
		d, ok := writable(fd)
		if !ok {
			return
		}
		if data < 0 || d >= data+chunk || d < data {
			data = d
			maps, ok := readMaps()
			if !ok {
				return
			}
			end = max(end, runEnd(maps, end))
		}
		wait = min(2*wait, 4*time.Millisecond)
		if populated >= end {
			continue
		}
		// The highest page above what is populated that is resident.
		n := int((end - populated) / pageSize)
		if n == 0 {
			continue
		}
		if cap(vec) < n {
			vec = make([]byte, n)
		}
		vec = vec[:n]
		if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, populated, end-populated, uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
			return
		}
		top := n - 1
		for top >= 0 && vec[top]&1 == 0 {
			top--
		}
		if top < 0 {
			continue
		}
		from := populated + uintptr(top+1)*pageSize
		to := min(from+window, end)
		if from < to {
			madvise(from, to, populateWrite)
			done += to - from
		}
		populated = to
		wait = 250 * time.Microsecond
	}
}

// runEnd is the end of the run of adjacent writable private mappings that
// holds the byte before at; 0 if none does.
func runEnd(maps []mapping, at uintptr) uintptr {
	end := uintptr(0)
	for _, m := range maps {
		switch {
		case m.perms != "rw-p":
			if end != 0 {
				return end
			}
		case end == 0 && m.lo < at && at <= m.hi:
			end = m.hi
		case end != 0 && m.lo == end:
			end = m.hi
		case end != 0:
			return end
		}
	}
	return end
}

// writable reads the size of the process's writable private memory
// (statm's "data", in pages).
func writable(fd int) (int, bool) {
	var buf [128]byte
	n, err := syscall.Pread(fd, buf[:], 0)
	if err != nil || n <= 0 {
		return 0, false
	}
	// size resident shared text lib data dt
	f := fields(buf[:n], 7)
	if len(f) < 6 {
		return 0, false
	}
	v := 0
	for _, c := range f[5] {
		if c < '0' || c > '9' {
			break
		}
		v = v*10 + int(c-'0')
	}
	return v * pageSize, true
}

const pageSize = 4096

// executable is the path /proc/self/maps gives the executable's mappings.
func executable() string {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink("/proc/self/exe", buf)
	if err != nil || n <= 0 || n == len(buf) {
		return ""
	}
	return string(buf[:n])
}

func madvise(lo, hi uintptr, advice uintptr) syscall.Errno {
	_, _, e := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, advice)
	return e
}

// mapping is a line of /proc/self/maps.
type mapping struct {
	lo, hi uintptr
	perms  string
	path   string
}

// readMaps reads /proc/self/maps (the file is read with syscall alone, for
// the reason init says).
func readMaps() ([]mapping, bool) {
	fd, err := syscall.Open("/proc/self/maps", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	buf := make([]byte, 0, 32<<10)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return parseMaps(buf), true
}

// parseMaps parses lines "lo-hi perms offset dev inode [path]"; a line
// that does not parse is left out.
func parseMaps(b []byte) []mapping {
	var out []mapping
	for len(b) > 0 {
		n := 0
		for n < len(b) && b[n] != '\n' {
			n++
		}
		line := b[:n]
		if n < len(b) {
			n++
		}
		b = b[n:]
		f := fields(line, 6)
		if len(f) < 5 || len(f[1]) != 4 {
			continue
		}
		dash := -1
		for i, c := range f[0] {
			if c == '-' {
				dash = i
			}
		}
		if dash < 0 {
			continue
		}
		lo, ok1 := hex(f[0][:dash])
		hi, ok2 := hex(f[0][dash+1:])
		if !ok1 || !ok2 || hi <= lo {
			continue
		}
		m := mapping{lo: lo, hi: hi, perms: string(f[1])}
		if len(f) == 6 {
			m.path = string(f[5])
		}
		out = append(out, m)
	}
	return out
}

// fields splits line at runs of spaces into at most n fields, the last
// taking the rest of the line (a path may hold spaces).
func fields(line []byte, n int) [][]byte {
	var f [][]byte
	i := 0
	for i < len(line) && len(f) < n {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if i == len(line) {
			break
		}
		j := i
		if len(f) == n-1 {
			j = len(line)
		} else {
			for j < len(line) && line[j] != ' ' {
				j++
			}
		}
		f = append(f, line[i:j])
		i = j
	}
	return f
}

func hex(s []byte) (uintptr, bool) {
	if len(s) == 0 || len(s) > 16 {
		return 0, false
	}
	var v uintptr
	for _, c := range s {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uintptr(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uintptr(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
