//go:build !linux

package bundle

import "os"

// maxRSS is 0, unknown, off Linux (ru_maxrss's unit differs by system,
// and Windows has none): the benchmark then reports a peak of 0.
func maxRSS(*os.ProcessState) int64 { return 0 }
