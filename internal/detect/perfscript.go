package detect

import "github.com/pprofx/pprofx/internal/codec/perfscript"

// PerfScript is the text `perf script` prints (Linux perf).
const PerfScript Format = "perf-script"

// sniffPerfScript recognises perf script text by its sample lines
// (command, thread id, time, event name with its ':') and call chain
// frames ("ip symbol (dso)"), never by a folded stack's "frames count".
func sniffPerfScript(head []byte) bool { return perfscript.Sniff(head) }
