package detect

import (
	"bytes"
	"regexp"
)

// LegacyText is a legacy text profile that google/pprof reads: gperftools
// heap and growth, contentionz, threadz, Go's debug=1 text (heap,
// goroutine, threadcreate, mutex, block) and the Java heapz/contentionz
// text. Result.Layout names which.
const LegacyText Format = "legacy-text"

// The headers of the legacy text formats, as google/pprof's
// profile/legacy_profile.go and legacy_java_profile.go match them.
var (
	legacyHeapRE   = regexp.MustCompile(`^heap profile: *\d+: *\d+ *\[ *\d+: *\d+ *\] *@ *(heap[_a-z0-9]*/?\d*|growthz?|fragmentationz?)`)
	legacyCountRE  = regexp.MustCompile(`^(\S+) profile: total \d+$`)
	legacyThreadRE = regexp.MustCompile(`^(--- threadz \d+ ---|--- Thread [[:xdigit:]]+ \(name: .*/\d+\) stack: ---)`)
)

// sniffLegacyText recognises a legacy text profile by its header: its
// first line that is neither blank nor a '#' comment.
func sniffLegacyText(head []byte) (layout string, ok bool) {
	rest := head
	var line, next []byte
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '#' {
			line = bytes.TrimRight(line, "\r")
			next, _, _ = bytes.Cut(rest, []byte("\n"))
			break
		}
		line = nil
	}
	if line == nil {
		return "", false
	}
	javaFormat := bytes.Equal(bytes.TrimSpace(next), []byte("format = java"))
	switch t := string(bytes.TrimSpace(line)); {
	case legacyHeapRE.MatchString(t):
		return "heap profile @ " + legacyHeapRE.FindStringSubmatch(t)[1], true
	case t == "--- heapz 1 ---":
		return "Java heapz", true
	case t == "--- contentionz 1 ---" && javaFormat:
		return "Java contentionz", true
	case bytes.HasPrefix(line, []byte("--- contentionz ")):
		return "contentionz", true
	case bytes.HasPrefix(line, []byte("--- mutex:")):
		return "Go mutex", true
	case bytes.HasPrefix(line, []byte("--- contention:")):
		return "Go block (contention)", true
	case legacyThreadRE.MatchString(t):
		return "threadz", true
	case legacyCountRE.MatchString(t):
		return legacyCountRE.FindStringSubmatch(t)[1] + " count", true
	}
	return "", false
}
