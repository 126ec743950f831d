//go:build !unix

package memlimit

// addressSpace: no RLIMIT_AS outside Unix.
func addressSpace() (total, reserved int64) { return 0, 0 }
