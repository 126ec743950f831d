package detect

import (
	"encoding/binary"
	"sync"
)

// Protobuf inputs carry no magic: pprof's Profile, OTLP's ProfilesData in
// the v1experimental (pprofextended) schema and in the v1development schema
// are told apart by checking the bytes seen against each schema, field by
// field and into nested messages: a field whose number the schema knows
// must have the wire type the schema gives it. The schemas clash early:
//
//   - pprof's field 1 (sample_type) holds varints, OTLP's field 1
//     (resource_profiles) holds messages;
//   - v1development's ProfilesData has a field 2 (dictionary), whose tables
//     all start with their zero entry (a zero-length first field);
//     v1experimental's has no field 2;
//   - v1experimental's ProfileContainer and v1development's Profile, both
//     ScopeProfiles field 2, disagree on the wire types of fields 1, 2, 4,
//     5, 6 and 8.
//
// When the head ends before anything tells the two OTLP schemas apart,
// detection says v1experimental and the reader checks the whole input
// (Refine) if it fails.

// wire kinds a schema field may have.
type kind uint8

const (
	kVarint  kind = iota // wire type 0 (packed repeated varints also take 2)
	kPacked              // wire type 0, or 2 holding varints
	kFixed64             // wire type 1
	kFixed32             // wire type 5
	kBytes               // wire type 2, any bytes (strings, bytes)
	kMsg                 // wire type 2, a message of the field's schema
)

type fieldSpec struct {
	kind kind
	msg  *schema
	set  bool
}

type schema struct {
	name   string
	fields []fieldSpec // by field number
	// open: fields of numbers the schema does not know are skipped (as
	// proto readers do). Closed schemas reject them, which is what makes
	// detection tell kinds of protobuf apart.
	open bool
}

func f(k kind) fieldSpec    { return fieldSpec{kind: k, set: true} }
func m(s *schema) fieldSpec { return fieldSpec{kind: kMsg, msg: s, set: true} }
func fields(kv ...any) []fieldSpec {
	var out []fieldSpec
	for i := 0; i < len(kv); i += 2 {
		n := kv[i].(int)
		for len(out) <= n {
			out = append(out, fieldSpec{})
		}
		out[n] = kv[i+1].(fieldSpec)
	}
	return out
}

// Schemas. Messages of common.proto and resource.proto are open (they grow
// and say nothing about which profiles schema holds them); profile
// messages are closed, except pprof's Profile itself, whose unknown fields
// google/pprof skips.
var (
	anyValue, keyValue, arrayValue, kvList, resource, scope, pprofVT, pprofLabel                             *schema
	pprofSample, pprofMapping, pprofLine, pprofLocation, pprofFunction, pprofProfile, expContainer, expScope *schema
	expResource, expData, devValueType, devSample, devProfile, devScope, devResource, devMapping             *schema
	devLine, devLocation, devFunction, devLink, devKVU, devStack, devDictionary, devData                     *schema
)

// schemasOnce builds the schemas on the first detection of a protobuf
// input: other inputs (gperftools, folded, JSON) never need them, and
// building them at start-up took 0.3 ms of every command.
var schemasOnce sync.Once

func buildSchemas() {
	anyValue = &schema{name: "AnyValue", open: true}
	keyValue = &schema{name: "KeyValue", open: true, fields: fields(1, f(kBytes), 2, m(anyValue), 3, f(kVarint))}
	arrayValue = &schema{name: "ArrayValue", open: true, fields: fields(1, m(anyValue))}
	kvList = &schema{name: "KeyValueList", open: true, fields: fields(1, m(keyValue))}
	resource = &schema{name: "Resource", open: true, fields: fields(1, m(keyValue), 2, f(kVarint))}
	scope = &schema{name: "InstrumentationScope", open: true, fields: fields(1, f(kBytes), 2, f(kBytes), 3, m(keyValue), 4, f(kVarint))}
	pprofVT = &schema{name: "ValueType", fields: fields(1, f(kVarint), 2, f(kVarint))}
	pprofLabel = &schema{name: "Label", fields: fields(1, f(kVarint), 2, f(kVarint), 3, f(kVarint), 4, f(kVarint))}
	pprofSample = &schema{name: "Sample", fields: fields(1, f(kPacked), 2, f(kPacked), 3, m(pprofLabel))}
	pprofMapping = &schema{name: "Mapping", fields: fields(1, f(kVarint), 2, f(kVarint), 3, f(kVarint), 4, f(kVarint), 5, f(kVarint),
		6, f(kVarint), 7, f(kVarint), 8, f(kVarint), 9, f(kVarint), 10, f(kVarint))}
	pprofLine = &schema{name: "Line", fields: fields(1, f(kVarint), 2, f(kVarint), 3, f(kVarint))}
	pprofLocation = &schema{name: "Location", fields: fields(1, f(kVarint), 2, f(kVarint), 3, f(kVarint), 4, m(pprofLine), 5, f(kVarint))}
	pprofFunction = &schema{name: "Function", fields: fields(1, f(kVarint), 2, f(kVarint), 3, f(kVarint), 4, f(kVarint), 5, f(kVarint))}
	pprofProfile = &schema{name: "Profile", open: true, fields: fields(1, m(pprofVT), 2, m(pprofSample), 3, m(pprofMapping),
		4, m(pprofLocation), 5, m(pprofFunction), 6, f(kBytes), 7, f(kVarint), 8, f(kVarint), 9, f(kVarint), 10, f(kVarint),
		11, m(pprofVT), 12, f(kVarint), 13, f(kPacked), 14, f(kVarint), 15, f(kVarint))}

	// v1experimental (pprofextended).
	expContainer = &schema{name: "ProfileContainer", fields: fields(1, f(kBytes), 2, f(kFixed64), 3, f(kFixed64), 4, m(keyValue),
		5, f(kVarint), 6, f(kBytes), 7, f(kBytes), 8, f(kBytes))}
	expScope = &schema{name: "ScopeProfiles", fields: fields(1, m(scope), 2, m(expContainer), 3, f(kBytes))}
	expResource = &schema{name: "ResourceProfiles", fields: fields(1, m(resource), 2, m(expScope), 3, f(kBytes))}
	expData = &schema{name: "ProfilesData", fields: fields(1, m(expResource))}

	// v1development (proto v1.11.0).
	devValueType = &schema{name: "ValueType", fields: fields(1, f(kVarint), 2, f(kVarint))}
	devSample = &schema{name: "Sample", fields: fields(1, f(kVarint), 2, f(kPacked), 3, f(kVarint), 4, f(kPacked), 5, f(kBytes))}
	devProfile = &schema{name: "Profile", fields: fields(1, m(devValueType), 2, m(devSample), 3, f(kFixed64), 4, f(kVarint),
		5, m(devValueType), 6, f(kVarint), 7, f(kBytes), 8, f(kVarint), 9, f(kBytes), 10, f(kBytes), 11, f(kPacked))}
	devScope = &schema{name: "ScopeProfiles", fields: fields(1, m(scope), 2, m(devProfile), 3, f(kBytes))}
	devResource = &schema{name: "ResourceProfiles", fields: fields(1, m(resource), 2, m(devScope), 3, f(kBytes))}
	devMapping = &schema{name: "Mapping", fields: fields(1, f(kVarint), 2, f(kVarint), 3, f(kVarint), 4, f(kVarint), 5, f(kPacked))}
	devLine = &schema{name: "Line", fields: fields(1, f(kVarint), 2, f(kVarint), 3, f(kVarint))}
	devLocation = &schema{name: "Location", fields: fields(1, f(kVarint), 2, f(kVarint), 3, m(devLine), 4, f(kPacked))}
	devFunction = &schema{name: "Function", fields: fields(1, f(kVarint), 2, f(kVarint), 3, f(kVarint), 4, f(kVarint))}
	devLink = &schema{name: "Link", fields: fields(1, f(kBytes), 2, f(kBytes))}
	devKVU = &schema{name: "KeyValueAndUnit", fields: fields(1, f(kVarint), 2, m(anyValue), 3, f(kVarint))}
	devStack = &schema{name: "Stack", fields: fields(1, f(kPacked))}
	devDictionary = &schema{name: "ProfilesDictionary", fields: fields(1, m(devMapping), 2, m(devLocation), 3, m(devFunction),
		4, m(devLink), 5, f(kBytes), 6, m(devKVU), 7, m(devStack))}
	devData = &schema{name: "ProfilesData", fields: fields(1, m(devResource), 2, m(devDictionary))}
	anyValue.fields = fields(1, f(kBytes), 2, f(kVarint), 3, f(kVarint), 4, f(kFixed64), 5, m(arrayValue), 6, m(kvList),
		7, f(kBytes), 8, f(kVarint))
}

// walk reports whether b, a message of schema s that may be cut short at
// its end (the head of a longer input), fits s. known counts the fields
// whose number s knows, at every depth.
func walk(b []byte, s *schema, depth int, known *int) bool {
	if depth > 12 {
		return true // deep enough: nothing more to learn
	}
	for pos := 0; pos < len(b); {
		tag, n := binary.Uvarint(b[pos:])
		if n == 0 {
			return true // cut inside the tag
		}
		if n < 0 || tag>>3 == 0 {
			return false
		}
		pos += n
		num, typ := tag>>3, tag&7
		var spec fieldSpec
		if num < uint64(len(s.fields)) {
			spec = s.fields[num]
		}
		ok := spec.set
		if !ok && !s.open {
			return false
		}
		if ok {
			*known++
			switch spec.kind {
			case kVarint:
				ok = typ == 0
			case kPacked:
				ok = typ == 0 || typ == 2
			case kFixed64:
				ok = typ == 1
			case kFixed32:
				ok = typ == 5
			case kBytes, kMsg:
				ok = typ == 2
			}
			if !ok {
				return false
			}
		}
		switch typ {
		case 0:
			_, n := binary.Uvarint(b[pos:])
			if n == 0 {
				return true
			}
			if n < 0 {
				return false
			}
			pos += n
		case 1:
			pos += 8
		case 5:
			pos += 4
		case 2:
			l, n := binary.Uvarint(b[pos:])
			if n == 0 {
				return true
			}
			if n < 0 {
				return false
			}
			pos += n
			body := b[pos:]
			cut := uint64(len(body)) < l
			if !cut {
				body = body[:l]
			}
			if ok && spec.kind == kMsg && !walk(body, spec.msg, depth+1, known) {
				return false
			}
			if ok && spec.kind == kPacked && !packedVarints(body, cut) {
				return false
			}
			if cut {
				return true
			}
			pos += int(l)
		default:
			return false // groups and reserved wire types are in none of the schemas
		}
	}
	return true
}

func packedVarints(b []byte, cut bool) bool {
	for pos := 0; pos < len(b); {
		_, n := binary.Uvarint(b[pos:])
		if n == 0 {
			return cut
		}
		if n < 0 {
			return false
		}
		pos += n
	}
	return true
}

// fits reports whether head fits s and how many known fields it holds.
func fits(head []byte, s *schema) (bool, int) {
	known := 0
	ok := walk(head, s, 0, &known)
	return ok, known
}

// sniffProto tells pprof from the two OTLP schemas (see the top of this
// file). A head that fits more than one is decided by what only one of
// them writes: a top-level field 2 whose body starts with a zero-length
// entry is v1development's dictionary (its tables start with their zero
// entry; a pprof Sample never starts with an empty field); otherwise an
// OTLP head is v1experimental, a head that also fits pprof is pprof.
func sniffProto(head []byte) (Format, bool) {
	// Most heads are decided by their first bytes: look at 1 KiB first,
	// then at all of head if that did not decide.
	if len(head) > 1<<10 {
		if f, ok := sniffProtoHead(head[:1<<10]); ok && f != PprofExtended {
			return f, true
		}
	}
	return sniffProtoHead(head)
}

func sniffProtoHead(head []byte) (Format, bool) {
	schemasOnce.Do(buildSchemas)
	pOK, pKnown := fits(head, pprofProfile)
	eOK, _ := fits(head, expData)
	dOK, _ := fits(head, devData)
	if pOK && pKnown == 0 {
		pOK = false // nothing but unknown fields: not evidence of pprof
	}
	switch {
	case dOK && (!eOK && !pOK || devDictionaryFirst(head)):
		return OTLP, true
	case eOK && !pOK:
		return PprofExtended, true
	case pOK && !eOK:
		return Pprof, true
	case pOK && eOK:
		// Only an empty first field fits both (a message that is both a
		// ValueType and a ResourceProfiles has no fields): pprof.
		return Pprof, true
	}
	return "", false
}

// devDictionaryFirst reports whether head starts with a v1development
// dictionary (field 2) whose first entry is a zero-length one.
func devDictionaryFirst(head []byte) bool {
	if len(head) < 4 || head[0] != 0x12 {
		return false
	}
	_, n := binary.Uvarint(head[1:])
	if n <= 0 || 1+n+1 >= len(head) {
		return false
	}
	inner := head[1+n:]
	t := inner[0]
	return t&7 == 2 && t>>3 >= 1 && t>>3 <= 7 && inner[1] == 0
}

// sniffFramed recognises the collector's file exporter "proto" format: each
// message prefixed by its length, 4 bytes big-endian. Only v1development
// ProfilesData are written this way.
func sniffFramed(head []byte) bool {
	if len(head) < 6 {
		return false
	}
	n := binary.BigEndian.Uint32(head)
	if n == 0 || n > 1<<31 {
		return false
	}
	body := head[4:]
	if uint64(len(body)) > uint64(n) {
		body = body[:n]
	}
	if f, ok := sniffProto(body); ok && f == OTLP {
		return true
	}
	return false
}

// Refine looks at a whole (decompressed) input that Sniff called OTLP or
// OTLP JSON, when reading it as v1experimental failed: it returns OTLPDev or
// OTLPDevJSON when the input is v1development, else f.
func Refine(f Format, data []byte) Format {
	switch f {
	case PprofExtended:
		schemasOnce.Do(buildSchemas)
		if ok, _ := fits(data, devData); ok {
			if eOK, _ := fits(data, expData); !eOK {
				return OTLP
			}
		}
	case PprofExtendedJSON:
		if jsonDialect(data) == OTLPJSON {
			return OTLPJSON
		}
	}
	return f
}
