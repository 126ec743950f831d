package perfscript

import (
	"bytes"
	"math"
	"strconv"
)

// header is a sample's first line:
//
//	comm [pid/]tid [[cpu]] [secs.frac:] [period] event: [trace fields | frame]
//
// Every field but the event may be missing (perf script -F); the command
// may hold spaces and is right-aligned when perf prints no call chain.
type header struct {
	comm      []byte
	pid, tid  int64
	hasPID    bool
	hasTID    bool
	cpu       int64
	hasCPU    bool
	timeNs    int64
	hasTime   bool
	period    int64
	hasPeriod bool
	event     []byte
	hasEvent  bool
	frame     *frame // a frame on the sample's own line (no call graph)
}

// frame is one call chain line: "ip sym[+0xoff] (dso)".
type frame struct {
	ip      uint64
	sym     []byte // offset cut
	dso     []byte
	hasDSO  bool
	srcFile []byte // from a srcline line after it
	srcLine int64
}

type span struct{ from, to int }

// fields splits ln at runs of spaces and tabs.
func fields(ln []byte, out []span) []span {
	out = out[:0]
	i := 0
	for i < len(ln) {
		for i < len(ln) && (ln[i] == ' ' || ln[i] == '\t') {
			i++
		}
		if i == len(ln) {
			break
		}
		j := i
		for j < len(ln) && ln[j] != ' ' && ln[j] != '\t' {
			j++
		}
		out = append(out, span{i, j})
		i = j
	}
	return out
}

func isDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isTime reports whether t is "secs.frac:".
func isTime(t []byte) bool {
	if len(t) < 4 || t[len(t)-1] != ':' {
		return false
	}
	dot := bytes.IndexByte(t, '.')
	return dot > 0 && isDigits(t[:dot]) && isDigits(t[dot+1:len(t)-1])
}

// isEvent reports whether t is an event name with its ':' ("cycles:",
// "cpu-clock:pppH:", "sched:sched_switch:").
func isEvent(t []byte) bool {
	if len(t) < 2 || t[len(t)-1] != ':' {
		return false
	}
	// A time or a number starts with a digit: none of these.
	c := t[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-' || c == '{' || c == '/'
}

func parseInt(b []byte) (int64, bool) {
	if len(b) > 0 && len(b) <= 18 {
		// At most 18 digits cannot overflow.
		var v int64
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		}
		return v, true
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	return v, err == nil
}

// parseTime turns "secs.frac:" into nanoseconds (exactly: perf prints
// microseconds, or nanoseconds with --ns).
func parseTime(t []byte) (int64, bool) {
	s, f := t[:len(t)-1], []byte(nil)
	if i := bytes.IndexByte(s, '.'); i >= 0 {
		s, f = s[:i], s[i+1:]
	}
	secs, ok := parseInt(s)
	if !ok || len(f) > 9 || secs > math.MaxInt64/1_000_000_000-1 {
		return 0, false
	}
	frac, ok := parseInt(f)
	if !ok {
		return 0, false
	}
	for i := len(f); i < 9; i++ {
		frac *= 10
	}
	return secs*1e9 + frac, true
}

// parseHeader parses ln as a sample's first line into h. It needs a
// thread id token after the command (or first, with no command) and an
// event name, or a thread id and nothing or a frame after it.
func parseHeader(ln []byte, h *header) bool {
	var buf [24]span
	toks := fields(ln, buf[:0])
	if len(toks) == 0 {
		return false
	}
	tok := func(i int) []byte { return ln[toks[i].from:toks[i].to] }
	// The command's tokens come first; a line with no command is tried last.
	for i := 1; i <= len(toks); i++ {
		p := i % len(toks)
		*h = header{}
		t := tok(p)
		a, b, slash := t, []byte(nil), false
		if i := bytes.IndexByte(t, '/'); i >= 0 {
			a, b, slash = t[:i], t[i+1:], true
		}
		if !isDigits(a) || slash && !isDigits(b) {
			continue
		}
		if slash {
			h.pid, h.hasPID = parseInt(a)
			h.tid, h.hasTID = parseInt(b)
			if !h.hasPID || !h.hasTID {
				continue
			}
		} else if h.tid, h.hasTID = parseInt(a); !h.hasTID {
			continue
		}
		if !parseTail(ln, toks, p+1, h) {
			continue
		}
		if p > 0 {
			h.comm = bytes.TrimSpace(ln[toks[0].from:toks[p-1].to])
		}
		return true
	}
	return false
}

// parseTail parses what follows the thread id: [cpu] [time] [period]
// event, then the rest of the line.
func parseTail(ln []byte, toks []span, j int, h *header) bool {
	tok := func(i int) []byte { return ln[toks[i].from:toks[i].to] }
	n := len(toks)
	if j < n {
		if t := tok(j); len(t) >= 3 && t[0] == '[' && t[len(t)-1] == ']' && isDigits(t[1:len(t)-1]) {
			h.cpu, h.hasCPU = parseInt(t[1 : len(t)-1])
			if !h.hasCPU {
				return false
			}
			j++
		}
	}
	if j < n && isTime(tok(j)) {
		var ok bool
		if h.timeNs, ok = parseTime(tok(j)); !ok {
			return false
		}
		h.hasTime = true
		j++
	}
	if j+1 < n && isDigits(tok(j)) && isEvent(tok(j+1)) {
		var ok bool
		if h.period, ok = parseInt(tok(j)); !ok {
			return false
		}
		h.hasPeriod = true
		j++
	}
	if j < n && isEvent(tok(j)) {
		t := tok(j)
		h.event, h.hasEvent = t[:len(t)-1], true
		j++
	}
	if j == n {
		return h.hasEvent || h.hasTime
	}
	rest := bytes.TrimSpace(ln[toks[j].from:])
	if f, ok := parseFrame(rest); ok && (f.hasDSO || bytes.IndexByte(f.sym, ' ') < 0) {
		h.frame = &f
		return h.hasEvent || h.hasTime
	}
	// Trace fields (a tracepoint's) follow the event.
	return h.hasEvent
}

func isHex(b []byte) bool {
	if len(b) == 0 || len(b) > 16 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// parseFrame parses a call chain line, leading white space removed:
// "ip", "ip sym", "ip sym (dso)"; sym loses a "+0x..." offset and the
// DSO is the last balanced parenthesis at the end of the line.
func parseFrame(ln []byte) (frame, bool) {
	ln = bytes.TrimRight(ln, " \t\r")
	var f frame
	sp := bytes.IndexAny(ln, " \t")
	ipTok := ln
	if sp >= 0 {
		ipTok = ln[:sp]
	}
	if !isHex(ipTok) {
		return f, false
	}
	ip, err := strconv.ParseUint(string(ipTok), 16, 64)
	if err != nil {
		return f, false
	}
	f.ip = ip
	if sp < 0 {
		return f, true
	}
	rest := bytes.TrimLeft(ln[sp:], " \t")
	if n := len(rest); n > 0 && rest[n-1] == ')' {
		depth := 0
		open := -1
		for i := n - 1; i >= 0; i-- {
			switch rest[i] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				open = i
				break
			}
		}
		if open > 0 && (rest[open-1] == ' ' || rest[open-1] == '\t') {
			f.dso, f.hasDSO = rest[open+1:n-1], true
			rest = bytes.TrimRight(rest[:open], " \t")
		} else if open == 0 {
			// "ip (dso)": no symbol.
			f.dso, f.hasDSO = rest[1:n-1], true
			rest = nil
		}
	}
	f.sym = cutOffset(rest)
	return f, true
}

// cutOffset removes a trailing "+0x<hex>" from a symbol.
func cutOffset(s []byte) []byte {
	i := bytes.LastIndex(s, []byte("+0x"))
	if i <= 0 {
		return s
	}
	for _, c := range s[i+3:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return s
		}
	}
	if i+3 == len(s) {
		return s
	}
	return s[:i]
}

// parseSrcline parses a srcline line (perf script -F +srcline), white
// space removed: "file:line", or what perf prints when it does not know
// ("??:0", "[vdso][af7]").
func parseSrcline(ln []byte) (file []byte, line int64, ok bool) {
	if len(ln) > 0 && ln[0] == '[' {
		return nil, 0, true
	}
	i := bytes.LastIndexByte(ln, ':')
	if i <= 0 {
		return nil, 0, false
	}
	if bytes.Equal(ln, []byte("??:0")) || bytes.Equal(ln, []byte("??:?")) {
		return nil, 0, true
	}
	v, err := strconv.ParseInt(string(ln[i+1:]), 10, 64)
	if err != nil || v < 0 {
		return nil, 0, false
	}
	return ln[:i], v, true
}
