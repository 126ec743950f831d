package legacytext

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// goFrame is one frame of a Go debug=1 comment:
// "#\t0x4e6b44\tmain.allocSmall+0xa4\t/src/main.go:35".
type goFrame struct {
	fn, file string
	line     int64
}

// goFrames reads the frame comments of a Go debug=1 text: for each address,
// the frames written at it in the first record that shows it, in the order
// written (innermost inlined call first).
func goFrames(data []byte) map[uint64][]goFrame {
	frames := map[uint64][]goFrame{}
	seen := map[uint64]bool{} // addresses of earlier records
	var cur []uint64          // addresses of this record
	for rest := data; len(rest) > 0; {
		raw := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			raw, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if !bytes.HasPrefix(raw, []byte("#\t0x")) {
			for _, a := range cur {
				seen[a] = true
			}
			cur = cur[:0]
			continue
		}
		line := strings.TrimRight(string(raw), "\r")
		var fields []string
		for _, f := range strings.Split(line[2:], "\t") {
			if f != "" {
				fields = append(fields, f)
			}
		}
		if len(fields) != 3 {
			continue // an address only: no symbol
		}
		addr, err := strconv.ParseUint(fields[0], 0, 64)
		if err != nil || seen[addr] {
			continue
		}
		fn := fields[1]
		if i := strings.LastIndex(fn, "+0x"); i > 0 {
			fn = fn[:i]
		}
		file, ln := fields[2], int64(0)
		if i := strings.LastIndexByte(file, ':'); i > 0 {
			if n, err := strconv.ParseInt(file[i+1:], 10, 64); err == nil {
				file, ln = file[:i], n
			}
		}
		if len(cur) == 0 || cur[len(cur)-1] != addr {
			cur = append(cur, addr)
		}
		frames[addr] = append(frames[addr], goFrame{fn, file, ln})
	}
	return frames
}

// addGoFrames gives the locations google/pprof left unsymbolized the
// functions, files and lines the comments name at their address.
func addGoFrames(p *profile.Profile, frames map[uint64][]goFrame) {
	if len(frames) == 0 {
		return
	}
	type key struct{ name, file string }
	funcs := map[key]*profile.Function{}
	for _, f := range p.Function {
		funcs[key{f.Name, f.Filename}] = f
	}
	for _, loc := range p.Location {
		fs := frames[loc.Address]
		if len(loc.Line) > 0 || len(fs) == 0 {
			continue
		}
		for _, fr := range fs {
			f := funcs[key{fr.fn, fr.file}]
			if f == nil {
				f = &profile.Function{ID: uint64(len(p.Function) + 1), Name: fr.fn, SystemName: fr.fn, Filename: fr.file}
				funcs[key{fr.fn, fr.file}] = f
				p.Function = append(p.Function, f)
			}
			loc.Line = append(loc.Line, profile.Line{Function: f, Line: fr.line})
		}
	}
}

var goCountRecordRE = regexp.MustCompile(`^\d+ @( 0x[0-9a-f]+)+$`)

// addGoLabels gives the samples of a Go count profile (goroutine) the
// labels of their "# labels: {…}" comments. google/pprof reads one sample
// per record line, in order, up to the first "---" line.
func addGoLabels(p *profile.Profile, data []byte) error {
	if !bytes.Contains(data, []byte("\n# labels: ")) {
		return nil
	}
	type labelled struct {
		sample int
		labels [][2]string
	}
	var found []labelled
	records := -1
lines:
	for n, raw := range bytes.Split(data, []byte("\n")) {
		line := strings.TrimRight(string(raw), "\r")
		switch {
		case strings.HasPrefix(line, "---"):
			break lines
		case goCountRecordRE.MatchString(line):
			records++
		case strings.HasPrefix(line, "# labels: ") && records >= 0:
			ls, err := parseGoLabels(strings.TrimPrefix(line, "# labels: "))
			if err != nil {
				return fmt.Errorf("line %d: %v", n+1, err)
			}
			found = append(found, labelled{records, ls})
		}
	}
	if records+1 != len(p.Sample) {
		return fmt.Errorf("%d records, google/pprof read %d samples", records+1, len(p.Sample))
	}
	for _, f := range found {
		s := p.Sample[f.sample]
		if s.Label == nil {
			s.Label = map[string][]string{}
		}
		for _, kv := range f.labels {
			s.Label[kv[0]] = append(s.Label[kv[0]], kv[1])
		}
	}
	return nil
}

// parseGoLabels reads runtime/pprof's labelMap.String: {"k":"v", "k2":"v2"},
// keys and values quoted as Go's %q quotes them.
func parseGoLabels(s string) ([][2]string, error) {
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, fmt.Errorf("labels %.40q: not in braces", s)
	}
	s = s[1 : len(s)-1]
	var out [][2]string
	for s != "" {
		var kv [2]string
		for i := range kv {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("labels: %.40q: not a quoted string", s)
			}
			kv[i], _ = strconv.Unquote(q)
			s = s[len(q):]
			if i == 0 {
				if !strings.HasPrefix(s, ":") {
					return nil, fmt.Errorf("labels: no ':' after %s", q)
				}
				s = s[1:]
			}
		}
		out = append(out, kv)
		if s = strings.TrimPrefix(s, ", "); strings.HasPrefix(s, ",") {
			s = strings.TrimLeft(s[1:], " ")
		}
	}
	return out, nil
}
