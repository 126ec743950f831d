package formats

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/pprofx/pprofx/internal/codec/gperftools"
	"github.com/pprofx/pprofx/internal/detect"
)

func init() {
	registerReader(detect.Gperftools, func(r *bufio.Reader, in *Input, opts ReadOptions) error {
		if opts.Stream {
			if opts.Summary {
				streamMemoryLimit(tallyLimit)
			} else {
				streamMemoryLimit(streamLimit)
			}
			read := gperftools.Stream
			if opts.Summary {
				read = gperftools.Tally
			}
			s, err := read(r, gperftools.Options{Salvage: opts.Salvage, Warn: opts.Warn, Input: opts.input, SizeHint: opts.sizeHint}, "")
			if err != nil {
				return err
			}
			in.Items = []Item{{Stream: &Stream{Tables: s.Profile, Samples: func(fn func([]int32, []byte, []int64) error) error { return s.Each(true, fn) }, Len: s.Len(), Totals: s.Totals(), Close: s.Close}}}
			in.Layout = s.Info.Layout.String()
			in.Facts = gperftoolsFacts(s.Info)
			return nil
		}
		p, info, err := gperftools.Decode(r, gperftools.Options{Salvage: opts.Salvage, Warn: opts.Warn})
		if err != nil {
			return err
		}
		in.Items = []Item{{Profile: p}}
		in.Layout = info.Layout.String()
		in.Facts = gperftoolsFacts(info)
		return nil
	})
}

// streamLimit is the soft memory limit (runtime/debug.SetMemoryLimit) of a
// process that streams a gperftools profile, unless GOMEMLIMIT sets one:
// what a stream holds grows slowly and steadily, and the garbage collector's
// default pacing would let the heap reach twice that before collecting.
const streamLimit = 96 << 20

// tallyLimit is the limit when only a summary is read (inspect,
// gperftools.Tally). It was 80 MiB while the stack table grew by half
// again and again (peak RSS on 3.4M distinct stacks of depth 8 was 136 MB
// at 96 MiB); now that the table grows to the size the input's size calls
// for, 96 MiB gives that file 109 MB (80 MiB: 101 MB) and 7% less wall
// time, the collector running less often near the limit. From a pipe
// (table grown by half) it gives 133 MB.
const tallyLimit = 96 << 20

func streamMemoryLimit(limit int64) {
	if os.Getenv("GOMEMLIMIT") == "" && debug.SetMemoryLimit(-1) > limit {
		debug.SetMemoryLimit(limit)
	}
}

// gperftoolsFacts is what inspect shows of a gperftools file beyond its profile.
func gperftoolsFacts(info *gperftools.Info) [][2]string {
	period := fmt.Sprintf("%d µs", info.PeriodMicros)
	if hz := 1e6 / float64(info.PeriodMicros); hz >= 1 {
		period += fmt.Sprintf(" (%.4g Hz)", hz)
	}
	trailer := "yes"
	if !info.Trailer {
		trailer = "no (the profile was not stopped; no mappings)"
	}
	facts := [][2]string{
		{"sampling period", period},
		{"records", fmt.Sprintf("%d (total count %d, deepest %d frames)", info.Records, info.TotalCount, info.MaxDepth)},
		{"header words", fmt.Sprint(info.HeaderWords)},
		{"trailer", trailer},
		{"unmapped locations", fmt.Sprint(info.Unmapped)},
	}
	if info.Salvaged {
		facts = append(facts, [2]string{"salvaged", "yes: a cut or bad record and what followed were dropped"})
	}
	if len(info.Deleted) > 0 {
		facts = append(facts, [2]string{"deleted files", strings.Join(info.Deleted, ", ")})
	}
	return facts
}
