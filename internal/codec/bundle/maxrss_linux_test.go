package bundle

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident set size of the ended process ps, in bytes
// (Linux's ru_maxrss is in KiB), or 0 where it is not known.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) * 1024
	}
	return 0
}
