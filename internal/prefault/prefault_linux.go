package prefault

import (
	"syscall"
	"unsafe"
)

// The madvise advice values, the same on every Linux architecture.
const (
	populateRead  = 22 // MADV_POPULATE_READ
	populateWrite = 23 // MADV_POPULATE_WRITE
)

// It imports only syscall and unsafe, so that it is among the first
// packages initialized: the work then overlaps the initialization of the
// many packages after it (protobuf's registries, gRPC, net/http, ...).
func init() {
	if !disabled() {
		go Run()
	}
}

// heapProbe is a heap object whose address names the heap chunk in use.
var heapProbe *[64]byte

// Run populates the executable's code and the rest of the heap chunk that
// holds a fresh object. Errors (an old kernel, a mapping it cannot read)
// leave things as they were.
func Run() {
	heapProbe = new([64]byte)
	probe := uintptr(unsafe.Pointer(heapProbe))
	maps, ok := readMaps()
	if !ok {
		return
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
	if heapEnd != 0 {
		madvise(probe&^(pageSize-1), heapEnd, populateWrite)
	}
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
