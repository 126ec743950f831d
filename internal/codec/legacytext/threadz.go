package legacytext

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// The lines of a threadz profile google/pprof's parseThread reads.
var (
	threadzStartRE = regexp.MustCompile(`--- threadz \d+ ---`)
	threadStartRE  = regexp.MustCompile(`--- Thread ([[:xdigit:]]+) \(name: (.*)/(\d+)\) stack: ---`)
	hexNumberRE    = regexp.MustCompile(`0x[0-9a-f]+`)
)

func isThreadz(data []byte) bool {
	for _, raw := range bytes.Split(data, []byte("\n")) {
		line := string(raw)
		if isSpaceOrComment(line) {
			continue
		}
		return threadzStartRE.MatchString(line) || threadStartRE.MatchString(line)
	}
	return false
}

func isSpaceOrComment(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || t[0] == '#'
}

func isMemoryMapSentinel(line string) bool {
	return strings.Contains(line, "--- Memory map: ---") || strings.Contains(line, "MAPPED_LIBRARIES:")
}

// addThreadNames labels each threadz sample with the names and ids of the
// threads it counts (thread, thread_id, one value per thread).
// google/pprof makes a sample of each thread with a stack, and counts a
// thread without one ("[same as previous thread]", or no address) in the
// sample before it; the walk below follows the same rules.
func addThreadNames(p *profile.Profile, data []byte) error {
	type thread struct {
		name string
		id   int64
	}
	var samples [][]thread
	var cur *thread
	var hasAddrs, same bool
	end := func() {
		if cur == nil {
			return
		}
		if hasAddrs && !same {
			samples = append(samples, []thread{*cur})
		} else if len(samples) > 0 {
			samples[len(samples)-1] = append(samples[len(samples)-1], *cur)
		}
		cur = nil
	}
	for _, raw := range bytes.Split(data, []byte("\n")) {
		line := strings.TrimSpace(string(raw))
		if isMemoryMapSentinel(line) || strings.HasPrefix(line, "---- no stack trace for") {
			break
		}
		if m := threadStartRE.FindStringSubmatch(line); m != nil {
			end()
			id, err := strconv.ParseInt(m[3], 10, 64)
			if err != nil {
				return fmt.Errorf("thread id %q: %v", m[3], err)
			}
			cur, hasAddrs, same = &thread{m[2], id}, false, false
			continue
		}
		if strings.HasPrefix(line, "---") {
			end()
			continue
		}
		if cur == nil {
			continue
		}
		if strings.Contains(line, "same as previous thread") {
			same = true
		} else if hexNumberRE.MatchString(line) {
			hasAddrs = true
		}
	}
	end()
	if len(samples) != len(p.Sample) {
		return fmt.Errorf("%d threads with a stack, google/pprof read %d samples", len(samples), len(p.Sample))
	}
	for i, ts := range samples {
		s := p.Sample[i]
		if int64(len(ts)) != s.Value[0] {
			return fmt.Errorf("sample %d counts %d threads, the text names %d", i+1, s.Value[0], len(ts))
		}
	}
	for i, ts := range samples {
		s := p.Sample[i]
		if s.Label == nil {
			s.Label = map[string][]string{}
		}
		if s.NumLabel == nil {
			s.NumLabel = map[string][]int64{}
		}
		for _, t := range ts {
			s.Label["thread"] = append(s.Label["thread"], t.name)
			s.NumLabel["thread_id"] = append(s.NumLabel["thread_id"], t.id)
		}
	}
	return nil
}
