package otlp

import (
	"testing"
	"time"
)

// reportCPU reports the CPU time per operation since start as "cpu-ns/op":
// on a machine other processes load, wall time per operation moves with
// the load (runs of the same code differ by 2x and more), CPU time far less.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
