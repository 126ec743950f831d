//go:build unix

package otlp

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used so far,
// every thread's: the garbage collector's background work included.
// Under contention on a shared machine it is steadier than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
