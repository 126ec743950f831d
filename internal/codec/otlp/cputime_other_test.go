//go:build !unix

package otlp

import "time"

// cpuTime is 0 where getrusage is not there: the benchmarks' cpu-ns/op
// then reads 0.
func cpuTime() time.Duration { return 0 }
