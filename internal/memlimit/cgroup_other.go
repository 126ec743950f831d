//go:build !linux

package memlimit

// cgroupMax: cgroups are Linux's.
func cgroupMax() (total, rss int64) { return 0, 0 }

// procStatus: no /proc/self/status outside Linux; what the process has
// reserved is then taken as 0.
func procStatus(field string) int64 { return 0 }

// machineMemory: not read outside Linux.
func machineMemory() int64 { return 0 }
