// Package detect identifies a profile's format from its first bytes, never
// from its name.
package detect

import (
	"bytes"
	"fmt"

	"github.com/pprofx/pprofx/internal/codec/gperftools"
)

// Format names a kind of input.
type Format string

// The formats pprofx knows. Formats a codec exists for are read; the rest
// are recognised so that they are reported as such, never misread.
const (
	Unknown    Format = ""
	Pprof      Format = "pprof"
	Gperftools Format = "gperftools"
	// OTLP profiles v1experimental, the OTEP's older pprofextended
	// dialect, in protobuf and in OTLP JSON.
	PprofExtended     Format = "pprofextended"
	PprofExtendedJSON Format = "pprofextended-json"
	Bundle            Format = "bundle"
	Folded            Format = "folded"
	// OTLP profiles v1development (opentelemetry-proto v1.4 and later, as
	// the collector writes them): binary ProfilesData (also in the
	// collector file exporter's 4-byte length-prefixed framing), and OTLP
	// JSON (also JSON lines).
	OTLP     Format = "otlp"
	OTLPJSON Format = "otlp-json"
	// Recognised, not read.
	PerfData Format = "perf.data"
	JFR      Format = "jfr"
)

// Compression is the container a format was found in.
type Compression string

// Compressions detect looks through.
const (
	None Compression = ""
	Gzip Compression = "gzip"
	Zstd Compression = "zstd"
)

// HeadSize is how many bytes Sniff wants to see: fewer work when the
// input is shorter. Protobuf and JSON inputs carry no magic; the more of
// them Sniff sees, the sooner a field only one schema has shows up (an
// OTLP resource with many attributes comes before the profiles).
const HeadSize = 64 << 10

// BundleMagic starts every pprofx bundle.
const BundleMagic = "\x89PPXB\r\n\x1a"

// Result is what Sniff found.
type Result struct {
	Format Format
	// Layout details the format where it has layouts, e.g. gperftools'
	// "64-bit little-endian".
	Layout string
}

// Compression reports whether head starts a compressed stream that detect
// looks through; the caller decompresses and sniffs what is inside.
func CompressionOf(head []byte) Compression {
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return Gzip
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return Zstd
	}
	return None
}

// Sniff identifies the (uncompressed) format of an input from its first
// bytes. It fails with "empty input" or "unknown format" with the first
// bytes in hex.
func Sniff(head []byte) (Result, error) {
	if len(head) == 0 {
		return Result{}, fmt.Errorf("empty input")
	}
	if l, ok := gperftools.DetectLayout(head); ok {
		return Result{Format: Gperftools, Layout: l.String()}, nil
	}
	switch {
	case bytes.HasPrefix(head, []byte(BundleMagic)):
		return Result{Format: Bundle}, nil
	case bytes.HasPrefix(head, []byte("PERFILE2")) || bytes.HasPrefix(head, []byte("PERFFILE")):
		return Result{Format: PerfData}, nil
	case bytes.HasPrefix(head, []byte("FLR\x00")):
		return Result{Format: JFR}, nil
	}
	if l, ok := sniffLegacyText(head); ok {
		return Result{Format: LegacyText, Layout: l}, nil
	}
	if f, ok := sniffJSON(head); ok {
		return Result{Format: f}, nil
	}
	if sniffPerfScript(head) {
		return Result{Format: PerfScript}, nil
	}
	if sniffCallgrind(head) {
		return Result{Format: Callgrind}, nil
	}
	if sniffFolded(head) {
		return Result{Format: Folded}, nil
	}
	if f, ok := sniffProto(head); ok {
		return Result{Format: f}, nil
	}
	if sniffFramed(head) {
		return Result{Format: OTLP}, nil
	}
	return Result{}, fmt.Errorf("unknown format (first bytes: % x)", first(head, 16))
}

func first(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// sniffJSON tells the JSON formats apart (see json.go).
func sniffJSON(head []byte) (Format, bool) { return sniffJSONFormat(head) }

// Object keys that only one OTLP profiles schema has, in lowerCamelCase
// and snake_case.
var (
	devOnlyKeys = []string{"dictionary", "mappingTable", "mapping_table", "locationTable", "location_table",
		"functionTable", "function_table", "stackTable", "stack_table", "stackIndex", "stack_index",
		"attributeIndices", "attribute_indices", "linkIndex", "link_index", "nameStrindex", "name_strindex",
		"filenameStrindex", "filename_strindex", "typeStrindex", "type_strindex", "unitStrindex", "unit_strindex",
		"keyStrindex", "key_strindex", "stringValueStrindex", "string_value_strindex", "timeUnixNano", "time_unix_nano", "durationNano", "duration_nano", "samples", "lines"}
	expOnlyKeys = []string{"profile", "startTimeUnixNano", "start_time_unix_nano", "timeNanos", "time_nanos",
		"durationNanos", "duration_nanos", "locationsStartIndex", "locations_start_index", "attributeUnits",
		"attribute_units", "dropFrames", "drop_frames", "defaultSampleType", "default_sample_type"}
)

// jsonDialect tells the OTLP JSON schemas apart by the keys in data: keys
// only v1development has make OTLPDevJSON, keys only v1experimental has
// OTLPJSON; neither or both (not OTLP profiles, or not decided): "".
func jsonDialect(data []byte) Format {
	dev, exp := false, false
	for _, k := range devOnlyKeys {
		if hasKey(data, k) {
			dev = true
			break
		}
	}
	for _, k := range expOnlyKeys {
		if hasKey(data, k) {
			exp = true
			break
		}
	}
	switch {
	case dev && !exp:
		return OTLPJSON
	case exp && !dev:
		return PprofExtendedJSON
	}
	return ""
}

// hasKey reports whether data holds "key" followed by a colon (white space
// between), i.e. key as an object key.
func hasKey(data []byte, key string) bool {
	q := make([]byte, 0, len(key)+2)
	q = append(append(append(q, '"'), key...), '"')
	for off := 0; ; {
		i := bytes.Index(data[off:], q)
		if i < 0 {
			return false
		}
		off += i + len(q)
		rest := bytes.TrimLeft(data[off:], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return true
		}
	}
}

// sniffFolded recognises folded ("collapsed") stacks: text with no control
// characters but tabs and line breaks (UTF-8, or UTF-16 after its byte
// order mark) whose first line is a stack of frames ending in white space
// and a whole number ("main;work 42"); when the first line has one frame
// only, every whole line in head (up to foldedLines of them) must be one
// such line or blank; when the first line runs past head, one holding a
// ';'.
func sniffFolded(head []byte) bool {
	if u, ok := utf16Head(head); ok {
		head = u
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	for _, c := range head {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	// JSON never passes the per-line check below; a folded frame may
	// start with '[' (async-profiler's "[main tid=7]", "[no_Java_frame]").
	if len(t) == 0 || t[0] == '{' {
		return false
	}
	nl := bytes.IndexByte(t, '\n')
	if nl < 0 {
		if len(head) >= HeadSize { // the first line runs past head
			return bytes.IndexByte(t, ';') >= 0
		}
		return endsInCount(t)
	}
	if first := bytes.TrimRight(t[:nl], "\r"); bytes.IndexByte(first, ';') >= 0 {
		// A stack of frames: the reader names any bad line after it.
		return endsInCount(first)
	}
	for n := 0; n < foldedLines; n++ {
		line := bytes.TrimRight(t[:nl], "\r")
		if len(bytes.TrimSpace(line)) > 0 && !endsInCount(line) {
			return false
		}
		t = t[nl+1:]
		if nl = bytes.IndexByte(t, '\n'); nl < 0 {
			// The last line, whole when head is the whole input.
			return len(head) >= HeadSize || len(bytes.TrimSpace(t)) == 0 || endsInCount(t)
		}
	}
	return true
}

// foldedLines is how many lines sniffFolded checks: enough to tell a
// header line that happens to end in a number ("threadcreate profile:
// total 4", callgrind's "version: 1") from a file of stacks.
const foldedLines = 32

func endsInCount(line []byte) bool {
	line = bytes.TrimRight(line, " \t")
	i := len(line)
	for i > 0 && line[i-1] >= '0' && line[i-1] <= '9' {
		i--
	}
	if i == len(line) || i == 0 {
		return false
	}
	if line[i-1] == '-' {
		i--
	}
	return i > 0 && (line[i-1] == ' ' || line[i-1] == '\t') && len(bytes.TrimRight(line[:i], " \t")) > 0
}
