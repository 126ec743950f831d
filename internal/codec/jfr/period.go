package jfr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/grafana/jfr-parser/parser/types"
	"github.com/grafana/jfr-parser/parser/types/def"
)

// periods returns each sampled kind's period in this chunk, in
// nanoseconds (0 when the chunk does not say), and whether async-profiler
// recorded wall-clock time as jdk.ExecutionSample (its setting event=wall).
//
// The JDK writes a jdk.ActiveSetting "period" whose id is the sampled
// event type's id ("10 ms", "20 ms", "5000000 ns"; the smallest counts when
// several recordings ran at once); async-profiler writes "interval" in
// nanoseconds under jdk.ExecutionSample's id, and "event".
func (d *decoder) periods(m *meta, settings map[def.TypeID][]types.ActiveSetting) (periods [numKinds]int64, wallExec bool) {
	exec := m.tm.T_EXECUTION_SAMPLE
	smallest := func(id def.TypeID) int64 {
		var best int64
		for _, s := range settings[id] {
			var ns int64
			switch s.Name {
			case "period":
				ns = parseDuration(s.Value)
			case "interval":
				ns, _ = strconv.ParseInt(s.Value, 10, 64)
			}
			if ns > 0 && (best == 0 || ns < best) {
				best = ns
			}
		}
		return best
	}
	event := ""
	for _, ss := range settings {
		for _, s := range ss {
			if s.Name == "event" && s.Value != "" {
				event = s.Value
			}
		}
	}
	wallExec = event == "wall"
	cpu := smallest(exec)
	switch event {
	case "", "cpu", "itimer", "ctimer", "wall":
	default:
		// A hardware or software perf event: its interval counts events,
		// not nanoseconds.
		d.warn(fmt.Sprintf("jfr: async-profiler sampled the %q event, whose interval is a count of events: cpu/nanoseconds are 0", event))
		cpu = 0
	}
	if wallExec {
		periods[kWall] = cpu
	} else {
		periods[kCPU] = cpu
	}
	if c := m.wallClock; c != nil {
		if w := smallest(def.TypeID(c.id)); w > 0 {
			periods[kWall] = w
		} else if event == "wall" || periods[kWall] == 0 {
			periods[kWall] = cpu
		}
	}
	if c := m.nativeMethod; c != nil {
		if w := smallest(def.TypeID(c.id)); w > 0 {
			periods[kWall] = w
		}
	}
	return periods, wallExec
}

// parseDuration parses a JFR duration setting, "10 ms", "20 ms",
// "5000000 ns", "1 s"; 0 for anything else ("everyChunk", "off").
func parseDuration(s string) int64 {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	mul := map[string]int64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "min": 60e9, "h": 3600e9, "d": 86400e9}[unit]
	if mul == 0 || n > (1<<63-1)/mul {
		return 0
	}
	return n * mul
}
