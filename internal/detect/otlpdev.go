package detect

import (
	"bytes"
	"encoding/binary"
)

// OTLP profiles come in two dialects under similar bytes: the OTEP's
// pprofextended (v1experimental) and v1development, whose ProfilesData has
// a dictionary (field 2) and whose Profile holds one sample type. These
// functions tell them apart from the first bytes where those prove it;
// OTLPDialect and JSONDialect, given the whole input, always decide.

// FramedLayout is the Layout of a collector fileexporter file of
// 4-byte-length framed messages.
const FramedLayout = "collector file, 4-byte length framed"

// LooksFramed reports whether head starts a fileexporter framed file: a
// 4-byte big-endian length under 16 MiB then a ProfilesData field tag
// (resource_profiles or dictionary). A plain protobuf message never starts
// with a zero byte.
func LooksFramed(head []byte) bool {
	return len(head) >= 6 && head[0] == 0 && binary.BigEndian.Uint32(head) > 0 && (head[4] == 0x0a || head[4] == 0x12)
}

// looksDictionary reports whether head starts with a ProfilesDictionary
// (field 2) that starts with the zero entry of one of its tables (fields 1
// to 7), which every v1development writer must put first: pprofx writes
// 12 LEN 0a 00 (mapping_table[0]), the collector's pdata, which writes
// fields last first, 12 LEN 3a 00 (stack_table[0]).
func looksDictionary(head []byte) bool {
	if len(head) < 4 || head[0] != 0x12 {
		return false
	}
	_, n := binary.Uvarint(head[1:])
	if n <= 0 || 1+n+2 > len(head) {
		return false
	}
	t := head[1+n]
	return t&7 == 2 && t>>3 >= 1 && t>>3 <= 7 && head[2+n] == 0x00
}

// field reads a length-delimited field at b: its number, body (possibly cut
// by the end of b) and whether the body is whole.
func field(b []byte) (num uint64, typ byte, body []byte, whole bool, rest []byte, ok bool) {
	tag, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, nil, false, nil, false
	}
	num, typ = tag>>3, byte(tag&7)
	b = b[n:]
	switch typ {
	case 0:
		_, m := binary.Uvarint(b)
		if m <= 0 {
			return num, typ, nil, false, nil, m == 0
		}
		return num, typ, nil, true, b[m:], true
	case 1:
		if len(b) < 8 {
			return num, typ, nil, false, nil, true
		}
		return num, typ, nil, true, b[8:], true
	case 5:
		if len(b) < 4 {
			return num, typ, nil, false, nil, true
		}
		return num, typ, nil, true, b[4:], true
	case 2:
		l, m := binary.Uvarint(b)
		if m <= 0 {
			return num, typ, nil, false, nil, m == 0
		}
		b = b[m:]
		if l > uint64(len(b)) {
			return num, typ, b, false, nil, true
		}
		return num, typ, b[:l], true, b[l:], true
	}
	return 0, 0, nil, false, nil, false
}

// otlpDialect looks at a binary ProfilesData (or its first bytes): OTLPDev
// when it has a dictionary or its first profile is a v1development Profile,
// OTLP when that profile is a v1experimental ProfileContainer, Unknown when
// the bytes do not show.
func otlpDialect(b []byte) Format {
	// Top level: a dictionary anywhere decides.
	var first []byte
	for len(b) > 0 {
		num, typ, body, whole, rest, ok := field(b)
		if !ok {
			return Unknown
		}
		if num == 2 && typ == 2 {
			return OTLPDev
		}
		if num == 1 && typ == 2 && first == nil {
			first = body
		}
		if !whole {
			break
		}
		b = rest
	}
	// resource_profiles[0].scope_profiles[0].profiles[0]
	for depth := 0; depth < 3; depth++ {
		var next []byte
		for b := first; len(b) > 0; {
			num, typ, body, whole, rest, ok := field(b)
			if !ok {
				return Unknown
			}
			if num == 2 && typ == 2 {
				next = body
				break
			}
			if !whole {
				return Unknown
			}
			b = rest
		}
		if next == nil {
			return Unknown
		}
		first = next
	}
	// The first field of a Profile (v1development: sample_type, samples,
	// time...) or a ProfileContainer (profile_id: 16 bytes, start time,
	// ..., profile = 8).
	num, typ, body, _, _, ok := field(first)
	if !ok || len(first) == 0 {
		return Unknown
	}
	switch {
	case num == 1 && typ == 2:
		if len(body) == 16 || (len(first) > 1 && first[1] == 16) {
			return OTLP
		}
		return OTLPDev
	case num == 2 && typ == 2, num == 4 && typ == 0, num == 5 && typ == 2, num == 11:
		return OTLPDev
	case num == 2 && typ == 1, num == 8 && typ == 2, num == 4 && typ == 2:
		return OTLP
	}
	return Unknown
}

// OTLPDialect decides the dialect of a whole binary OTLP ProfilesData:
// OTLPDev or OTLP (the pprofextended dialect, also when nothing shows).
func OTLPDialect(data []byte) Format {
	if LooksFramed(data) || looksDictionary(data) || otlpDialect(data) == OTLPDev {
		return OTLPDev
	}
	return OTLP
}

// JSONDialect decides the dialect of OTLP JSON (the whole input, or its
// first bytes): v1development has a top-level "dictionary" and its
// profiles' "sampleType" is one object, not an array.
func JSONDialect(data []byte) Format {
	for _, k := range []string{`"dictionary"`, `"sampleType":{`, `"sample_type":{`, `"stackTable"`, `"stack_table"`} {
		if bytes.Contains(data, []byte(k)) {
			return OTLPDevJSON
		}
	}
	return OTLPJSON
}
