// Package detect identifies a profile's format from its first bytes, never
// from its name.
package detect

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/pprofx/pprofx/internal/gperftools"
)

// Format names a kind of input.
type Format string

// The formats pprofx knows. Formats a codec exists for are read; the rest
// are recognised so that they are reported as such, never misread.
const (
	Unknown    Format = ""
	Pprof      Format = "pprof"
	Gperftools Format = "gperftools"
	OTLP       Format = "otlp"
	OTLPJSON   Format = "otlp-json"
	Bundle     Format = "bundle"
	Folded     Format = "folded"
	// Recognised, not read.
	GoLegacyText Format = "go-legacy-text"
	PerfData     Format = "perf.data"
	JFR          Format = "jfr"
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
// input is shorter.
const HeadSize = 512

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
	case bytes.HasPrefix(head, []byte("heap profile:")) || bytes.HasPrefix(head, []byte("--- contention")) ||
		bytes.HasPrefix(head, []byte("--- mutex")) || bytes.HasPrefix(head, []byte("goroutine profile:")) ||
		bytes.HasPrefix(head, []byte("threadcreation profile:")):
		return Result{Format: GoLegacyText}, nil
	}
	if f, ok := sniffJSON(head); ok {
		return Result{Format: f}, nil
	}
	if sniffFolded(head) {
		return Result{Format: Folded}, nil
	}
	if f, ok := sniffProto(head); ok {
		return Result{Format: f}, nil
	}
	return Result{}, fmt.Errorf("unknown format (first bytes: % x)", first(head, 16))
}

func first(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func sniffJSON(head []byte) (Format, bool) {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return "", false
	}
	if bytes.Contains(head, []byte(`"resourceProfiles"`)) || bytes.Contains(head, []byte(`"resource_profiles"`)) {
		return OTLPJSON, true
	}
	return "", false
}

// sniffProto tells pprof's Profile from OTLP's ProfilesData. Both start
// with field 1, length-delimited: a pprof ValueType holds only varints
// (first inner tag 0x08, 0x10 or 0x18), an OTLP ResourceProfiles holds
// messages and strings (0x0a, 0x12, 0x1a). A pprof profile may also start
// with any other of its fields. Every field seen in head must have a
// field number and wire type that pprof's Profile message uses, else the
// input is not called pprof.
func sniffProto(head []byte) (Format, bool) {
	format := Pprof
	for pos, nfields := 0, 0; pos < len(head); nfields++ {
		tag, n := binary.Uvarint(head[pos:])
		if n <= 0 {
			return "", false
		}
		pos += n
		num, typ := tag>>3, tag&7
		switch typ {
		case 0:
			if !(num >= 7 && num <= 10 || num >= 12 && num <= 15) {
				return "", false
			}
			_, m := binary.Uvarint(head[pos:])
			if m == 0 && nfields > 0 {
				return format, true // cut by the end of head
			}
			if m <= 0 {
				return "", false
			}
			pos += m
		case 2:
			if !(num >= 1 && num <= 6 || num == 11 || num == 13) {
				return "", false
			}
			l, m := binary.Uvarint(head[pos:])
			if m == 0 && nfields > 0 {
				return format, true
			}
			if m <= 0 {
				return "", false
			}
			pos += m
			inner := head[pos:]
			if nfields == 0 && num == 1 && l > 0 && len(inner) > 0 {
				switch inner[0] {
				case 0x08, 0x10, 0x18:
				case 0x0a, 0x12, 0x1a:
					format = OTLP
				default:
					return "", false
				}
			}
			if format == OTLP && num != 1 {
				return "", false
			}
			if l >= uint64(len(inner)) {
				return format, true // the field runs past head
			}
			pos += int(l)
		default:
			return "", false
		}
	}
	return format, true
}

// sniffFolded recognises folded ("collapsed") stacks: text with no control
// characters but tabs and line breaks, whose first line ends in white
// space and a whole number ("main;work 42"), or, when the first line runs
// past head, holds a ';'.
func sniffFolded(head []byte) bool {
	for _, c := range head {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 || t[0] == '{' || t[0] == '[' && !bytes.Contains(t, []byte(";")) {
		return false
	}
	nl := bytes.IndexByte(t, '\n')
	if nl < 0 {
		if len(head) >= HeadSize { // the first line runs past head
			return bytes.IndexByte(t, ';') >= 0
		}
		return endsInCount(t)
	}
	return endsInCount(bytes.TrimRight(t[:nl], "\r"))
}

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
