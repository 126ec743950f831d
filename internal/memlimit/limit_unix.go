//go:build unix

package memlimit

import "golang.org/x/sys/unix"

// addressSpace returns the soft RLIMIT_AS (0: none) and the address space
// the process has reserved so far.
func addressSpace() (total, reserved int64) {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &rl); err != nil {
		return 0, 0
	}
	cur := uint64(rl.Cur)
	if cur == uint64(unix.RLIM_INFINITY) || cur >= 1<<62 {
		return 0, 0
	}
	return int64(cur), procStatus("VmSize:")
}
