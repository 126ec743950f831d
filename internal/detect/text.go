package detect

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Callgrind is valgrind's callgrind (and cachegrind-like) profile text,
// which pprof writes too (-callgrind). Recognised, not read.
const Callgrind Format = "callgrind"

// sniffCallgrind recognises callgrind text by its header: "# callgrind
// format", or the "version:", "creator:", "positions:" and "events:" lines
// it starts with.
func sniffCallgrind(head []byte) bool {
	if bytes.HasPrefix(head, []byte("# callgrind format")) {
		return true
	}
	seen := 0
	for _, ln := range bytes.SplitN(head, []byte("\n"), 8) {
		for _, k := range []string{"version:", "creator:", "positions:", "events:", "pid:", "cmd:"} {
			if bytes.HasPrefix(ln, []byte(k)) {
				seen++
			}
		}
	}
	return seen >= 2 && bytes.Contains(head, []byte("\nevents:")) || bytes.HasPrefix(head, []byte("events:"))
}

// utf16Head decodes head when it starts with a UTF-16 byte order mark
// (as Windows tools write text), to UTF-8.
func utf16Head(head []byte) ([]byte, bool) {
	if len(head) < 2 {
		return nil, false
	}
	var be bool
	switch {
	case head[0] == 0xff && head[1] == 0xfe:
	case head[0] == 0xfe && head[1] == 0xff:
		be = true
	default:
		return nil, false
	}
	u := make([]uint16, 0, len(head)/2)
	for i := 2; i+1 < len(head); i += 2 {
		if be {
			u = append(u, uint16(head[i])<<8|uint16(head[i+1]))
		} else {
			u = append(u, uint16(head[i+1])<<8|uint16(head[i]))
		}
	}
	out := make([]byte, 0, len(u))
	for _, r := range utf16.Decode(u) {
		out = utf8.AppendRune(out, r)
	}
	return out, true
}
