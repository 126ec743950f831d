// Package pprofextended reads and writes OpenTelemetry profiles in the pprofextended
// schema published as go.opentelemetry.io/proto/otlp v1.3.1
// profiles/v1experimental (package opentelemetry.proto.profiles.v1experimental),
// as binary protobuf or OTLP JSON, plain or gzipped.
//
// A file is one ProfilesData. The writer puts one ResourceProfiles with one
// ScopeProfiles (scope "pprofx") holding one ProfileContainer per
// model.Profile; the reader returns one model.Profile per ProfileContainer,
// whatever the nesting.
//
// How the model maps to the schema:
//   - Tables are 0-based in both. The schema has no "none" for
//     Location.mapping_index, Line.function_index or Sample.link
//     (placeholders): when some location has no mapping the writer puts an
//     all-zero Mapping at index 0 (same for functions and links), and the
//     reader takes an all-zero mapping, function or link at index 0, and
//     only there, as none. An all-zero entry elsewhere is real (pprof's
//     symbolizer writes functions with every field empty). So that no real
//     entry is taken for the placeholder, the writer also puts the
//     placeholder first when the first real entry would be all zero.
//   - For gzip's sake the writer orders two tables: the string table holds
//     only the strings referenced by index, sorted (label keys and values
//     are inline in attribute_table), and locations are ordered by mapping
//     and address. Neither order is data.
//   - Stacks are slices of Profile.location_indices, leaf first. Identical
//     stacks share one slice and a stack that is the caller part of a longer
//     one reuses the tail of that one's slice.
//   - Profile fields with a home in the schema go there; the container's
//     profile_id is derived from the content (12 bytes of the SHA-256 of
//     the Profile message and a 4-byte mark that says "derived"; see
//     deriveID) unless given, start/end times from time and duration.
//   - Labels are Profile.attribute_table entries (string or int values);
//     numeric units go to attribute_units. A sample with a label whose unit
//     differs from the key's unit in attribute_units is written with the
//     deprecated Sample.label field instead, which carries a unit per label.
//   - pprof's doc_url has no field here: it is the container attribute
//     "pprof.profile.doc_url".
//   - The reader accepts the deprecated Sample.location_index and
//     Sample.label as well as their replacements.
package pprofextended

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/pprofx/pprofx/internal/codec/otlpcommon"
	"github.com/pprofx/pprofx/internal/codec/pprofextended/profilespb"

	"github.com/klauspost/compress/gzip"

	"github.com/pprofx/pprofx/internal/model"
)

// DocURLAttribute is the container attribute that carries pprof's doc_url.
const DocURLAttribute = "pprof.profile.doc_url"

// ScopeName is the instrumentation scope name the writer puts on profiles.
const ScopeName = "pprofx"

// EncodeOptions says how Encode writes.
type EncodeOptions struct {
	JSON bool // OTLP JSON instead of binary protobuf
	Gzip bool // gzip the output
	// ProfileID is the profile_id of the (single) profile. Empty: keep the
	// profile's own, or derive one from the content (deterministic).
	ProfileID []byte
	// Resource attributes to set (added to, or replacing by key, those of
	// the first profile).
	Resource []model.Attribute
	// KeepOriginal writes each profile's OriginalPayload (and its format)
	// into the container. Off: the original payload is not written.
	KeepOriginal bool
	ScopeVersion string       // version of the "pprofx" scope
	Warn         func(string) // told once about each thing the writer changes; may be nil
}

// DecodeOptions says how Decode reads.
type DecodeOptions struct {
	Warn func(string) // told once about each thing the model cannot hold; may be nil
}

// looksJSON reports whether data (uncompressed) may be JSON: its first
// byte other than white space is '{'. Binary ProfilesData starts with the
// tag 0x0a, which is also a newline, so data starting with 0x0a may be
// either; Decode tries binary first then.
func looksJSON(data []byte) bool {
	h := bytes.TrimLeft(data[:min(len(data), 4096)], " \t\r\n")
	return len(h) > 0 && h[0] == '{'
}

var encoders sync.Pool

// maxPooledOut caps the output buffer kept with a pooled encoder.
const maxPooledOut = 16 << 20

// Encode writes ps as one OTLP ProfilesData.
func Encode(w io.Writer, ps []*model.Profile, opts EncodeOptions) error {
	if len(ps) == 0 {
		return fmt.Errorf("otlp: no profile to write")
	}
	if len(opts.ProfileID) != 0 {
		if len(ps) > 1 {
			return fmt.Errorf("otlp: a profile id names one profile, but %d profiles are written", len(ps))
		}
		if len(opts.ProfileID) != 16 {
			return fmt.Errorf("otlp: profile id is %d bytes, want 16", len(opts.ProfileID))
		}
	}
	for i, p := range ps {
		if err := p.Validate(); err != nil {
			return fmt.Errorf("otlp: profile %d: %v", i, err)
		}
	}
	// Encoders, with their scratch tables and output buffer, are reused.
	e, _ := encoders.Get().(*encoder)
	if e == nil {
		e = newEncoder(opts)
	} else {
		e.opts = opts
		clear(e.warned)
	}
	defer func() {
		e.p = nil
		e.opts = EncodeOptions{}
		if cap(e.out) <= maxPooledOut {
			encoders.Put(e)
		}
	}()
	hint := sizeHint(ps)
	if hint >= spillFrom {
		return e.encodeSpilled(w, ps)
	}
	data := e.profilesData(ps, hint)
	e.out = data
	if opts.JSON {
		// JSON is text: it ends with a newline (which also makes a file
		// of several JSON lines). It is written as it is made.
		if !opts.Gzip {
			return writeJSON(w, data)
		}
		zw := gzip.NewWriter(w)
		if err := writeJSON(zw, data); err != nil {
			return err
		}
		return zw.Close()
	}
	if !opts.Gzip {
		_, err := w.Write(data)
		return err
	}
	zw := gzip.NewWriter(w)
	if _, err := zw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}

// writeJSON writes the OTLP JSON of a binary ProfilesData, and a newline.
func writeJSON(w io.Writer, data []byte) error {
	if err := otlpcommon.WriteJSON(w, data, jsonDescriptor, "otlp json"); err != nil {
		return fmt.Errorf("otlp: %v", err)
	}
	return nil
}

// jsonDescriptor describes the message OTLP JSON is written from.
var jsonDescriptor = (&profilespb.ProfilesData{}).ProtoReflect().Descriptor()
