// Package otlp reads and writes OpenTelemetry profiles in the schema
// collectors speak today: opentelemetry.proto.profiles.v1development as
// published in opentelemetry-proto v1.11.0 (Go:
// go.opentelemetry.io/proto/otlp/profiles/v1development v0.4.0), as binary
// protobuf, OTLP JSON, and the two file layouts of the collector's
// fileexporter (JSON lines; messages framed by a 4-byte big-endian length).
//
// A file is one ProfilesData: one ProfilesDictionary shared by every
// profile of the message, and resource_profiles[].scope_profiles[].profiles[].
//
// How the model maps to the schema (semantic conventions "Compatibility with
// pprof"):
//   - Every dictionary table starts with its zero entry; index 0 is "none".
//     The writer builds one dictionary for all the profiles it writes,
//     without duplicates across them.
//   - A model profile with N sample types becomes N Profiles in one
//     ScopeProfiles, sharing stacks, with the scope attributes
//     pprof.scope.sample_type_order (profiles[k] holds the sample type
//     sample_type_order[k] of the source) and pprof.scope.default_sample_type.
//     The default sample type's profile comes first. Each sample is written
//     in every profile, except that a profile after the first leaves out a
//     sample whose value there is 0 and whose key no other sample has
//     (pprofx's convention; see markOmittable and matchSamples).
//   - Labels become attributes: strings; integers with their unit in
//     unit_strindex; a key with several values in one sample becomes one
//     attribute whose value is an array. The reader reads back into labels
//     only such attributes; any other sample attribute stays one
//     (model.LabelSet.Attributes), and every attribute keeps its unit.
//   - Comments, drop/keep frames and doc URL become the profile attributes
//     pprof.profile.*; build ids process.executable.build_id.gnu; the has_*
//     flags pprof.mapping.has_*; is_folded pprof.location.is_folded.
//   - The reader joins the profiles of a scope back into one model profile
//     with N sample types when their samples line up: matched by (stack,
//     attributes, link, timestamps), never by position. Profiles that do not
//     line up stay separate profiles.
//   - Every value is written as the semantic conventions define it, and read
//     as the file says, with nothing inferred: a function's system name
//     whenever it is not empty (also when it is the name); each
//     pprof.mapping.has_* flag that is true (absent reads false).
//   - pprofx's own attributes are named pprofx.* (docs/otlp.md); a reader
//     that ignores them reads the same profile.
//   - A profile that names no instrumentation scope gets none, unless
//     EncodeOptions.NameScope asks for pprofx's.
package otlp

import (
	"fmt"

	"github.com/pprofx/pprofx/internal/model"
)

// Attribute keys of the semantic conventions the codec reads and writes.
const (
	AttrDefaultSampleType = "pprof.scope.default_sample_type"
	AttrSampleTypeOrder   = "pprof.scope.sample_type_order"
	AttrComment           = "pprof.profile.comment"
	AttrDropFrames        = "pprof.profile.drop_frames"
	AttrKeepFrames        = "pprof.profile.keep_frames"
	AttrDocURL            = "pprof.profile.doc_url"
	AttrBuildIDGNU        = "process.executable.build_id.gnu"
	AttrBuildIDGo         = "process.executable.build_id.go"
	AttrBuildIDHTL        = "process.executable.build_id.htlhash"
	AttrHasFunctions      = "pprof.mapping.has_functions"
	AttrHasFilenames      = "pprof.mapping.has_filenames"
	AttrHasLineNumbers    = "pprof.mapping.has_line_numbers"
	AttrHasInlineFrames   = "pprof.mapping.has_inline_frames"
	AttrIsFolded          = "pprof.location.is_folded"
	// AttrMappings is pprofx's own profile attribute (no convention has
	// one): when one message holds several pprof profiles, the dictionary
	// indices of each one's mappings, in its order. A reader that ignores
	// it still reaches every mapping a profile's locations use, through the
	// shared dictionary.
	AttrMappings = "pprofx.profile.mapping_indices"
)

// ScopeName is the instrumentation scope the writer puts on profiles that
// have none of their own when EncodeOptions.NameScope is set.
const ScopeName = "pprofx"

// EncodeOptions says how Encode writes.
type EncodeOptions struct {
	Gzip bool // gzip the output
	// ProfileID, when set (16 bytes), is the profile_id of the first
	// Profile written for the (single) model profile. Empty: a profile's
	// own id, if any, is written; none is invented.
	ProfileID []byte
	// Resource attributes to set (added to, or replacing by key, those of
	// each profile).
	Resource []model.Attribute
	// KeepOriginal writes each profile's OriginalPayload (and its format)
	// into the first Profile written for it.
	KeepOriginal bool
	// NameScope writes the instrumentation scope "pprofx" (version
	// ScopeVersion) on profiles that name no scope of their own (push
	// does: a collector shows who sent the profiles). Without it such
	// profiles get no scope (files: a pprof input names none, and the
	// scope costs up to 20 bytes of a profile that may gzip to 250).
	NameScope    bool
	ScopeVersion string       // version of the "pprofx" scope
	Warn         func(string) // told once about each thing the writer changes; may be nil
}

// SampleLayout names the field numbering of Sample the reader expects.
type SampleLayout int

const (
	// LayoutAuto tells the layout from the bytes (layout.go): the reading
	// that fits the schema, or an error when both fit and differ.
	LayoutAuto SampleLayout = iota
	// LayoutV110 is opentelemetry-proto v1.10 and later (v1.11.0):
	// attribute_indices=2, link_index=3, values=4.
	LayoutV110
	// LayoutV19 is opentelemetry-proto v1.9: values=2,
	// attribute_indices=3, link_index=4.
	LayoutV19
)

// String names a layout as inspect shows it.
func (l SampleLayout) String() string {
	switch l {
	case LayoutV110:
		return "opentelemetry-proto v1.10+ (Sample: attribute_indices=2, link_index=3, values=4)"
	case LayoutV19:
		return "opentelemetry-proto v1.9 (Sample: values=2, attribute_indices=3, link_index=4)"
	}
	return "told from the bytes"
}

// ParseSampleLayout reads a proto release name: "" (tell from the bytes),
// "1.10" (or later) or "1.9".
func ParseSampleLayout(s string) (SampleLayout, error) {
	switch s {
	case "", "auto":
		return LayoutAuto, nil
	case "1.10", "v1.10", "1.11", "v1.11", "1.11.0", "v1.11.0":
		return LayoutV110, nil
	case "1.9", "v1.9", "1.9.0", "v1.9.0":
		return LayoutV19, nil
	}
	return 0, fmt.Errorf("unknown OTLP profiles proto release %q (1.9 or 1.10)", s)
}

// DecodeOptions says how Decode reads.
type DecodeOptions struct {
	// Layout is the Sample field numbering: told from the bytes unless
	// given.
	Layout SampleLayout
	Warn   func(string) // told once about each thing the model cannot hold; may be nil
	// Release lets DecodeMessages take each message's dictionary tables
	// apart as it makes the model's of them, so that both are not held
	// at once: the messages' dictionaries are empty after. Decode, which
	// owns its messages, always does.
	Release bool
	// compact: the parser reads location and function tables in the
	// model's layout (ReadForDecode).
	compact bool
	// fromJSON: the binary was made of OTLP JSON (jsonMessages), whose
	// field names told the Sample layout.
	fromJSON bool
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
