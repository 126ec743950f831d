// Package bundle stores many profiles in one compact file and reads any one
// of them back exactly.
//
// A bundle holds shared, deduplicated tables (strings, mappings, functions,
// locations, a prefix tree of stacks, label sets, links), one zstd-compressed
// section per profile (its samples and profile-level fields) and an index.
// Writer streams the sections out as profiles are added and writes the
// shared tables and the index on Close; Reader reads the index, then the
// shared tables and one profile's section when that profile is asked for.
// docs/bundle-format.md describes the bytes.
//
// A profile read back is equal to the one added, field by field, once
// indices are resolved to values: samples in order (duplicates included),
// values, label sets in order, links, timestamps, every profile-level field
// including the OpenTelemetry ones, and the profile's whole mapping list in
// order. Only what no sample reaches is dropped: strings, functions and
// locations that nothing references, unused stacks, label sets and links.
// Tables come back in a canonical order (first use, walking the samples in
// order and each stack leaf first), not necessarily the input's.
package bundle

import (
	"errors"
	"fmt"
)

// Magic is the first 8 bytes of every bundle.
const Magic = "\x89PPXB\r\n\x1a"

// Version is the format version this package writes. It follows Magic as
// a little-endian uint32. Version 2 added the attributes of mappings and
// locations, version 3 attribute units and the attributes of label sets;
// the reader also reads versions 1 and 2 (which have none of these).
const Version = 3

// minVersion is the oldest version the reader reads.
const minVersion = 1

// headerSize is Magic plus the version.
const headerSize = 12

// footerMagic ends every bundle.
const footerMagic = "PPXBEND\n"

// footerSize is the fixed size of the footer at the end of a bundle.
const footerSize = 6*8 + 4 + 4 + 8

// Entry describes one profile of a bundle, as the index holds it.
type Entry struct {
	Name          string   // name given at merge, e.g. the input file name
	SourceFormat  string   // format the profile was read from, e.g. "pprof"
	SampleTypes   []string // "type/unit", one per sample type
	Samples       int      // number of samples
	TimeNanos     int64    // profile time, ns since the Unix epoch
	DurationNanos int64    // profile duration

	off, size, rawSize uint64 // the section: offset, compressed and raw length
}

// ErrNotBundle is returned by Open when the data does not begin with Magic.
var ErrNotBundle = errors.New("bundle: not a bundle (bad magic number at byte 0)")

// IsBundle reports whether data begins with Magic.
func IsBundle(data []byte) bool {
	return len(data) >= len(Magic) && string(data[:len(Magic)]) == Magic
}

func errf(format string, args ...any) error {
	return fmt.Errorf("bundle: "+format, args...)
}
