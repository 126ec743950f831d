package otlp

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// opentelemetry-proto v1.10 renumbered Sample under the same package name:
//
//	v1.9:  values=2, attribute_indices=3, link_index=4
//	v1.10: attribute_indices=2, link_index=3, values=4
//
// (stack_index=1 and timestamps_unix_nano=5 kept their numbers). A v1.9
// message read as v1.10 turns attribute indices into values without any
// parse error, so the reader never guesses: v1.10+ by default, v1.9 when
// told, and a failing message that reads cleanly the other way is reported
// as such.

// renumberV19 returns a copy of a v1.9 ProfilesData with its Sample fields
// renumbered to v1.10's. Field tags 2, 3 and 4 are one byte in both
// layouts, so only those bytes change.
func renumberV19(data []byte) ([]byte, error) {
	out := append([]byte(nil), data...)
	// ProfilesData.resource_profiles(1) > ResourceProfiles.scope_profiles(2)
	// > ScopeProfiles.profiles(2) > Profile.samples(2) > Sample.
	path := []protowire.Number{1, 2, 2, 2}
	if err := renumber(out, 0, path); err != nil {
		return nil, err
	}
	return out, nil
}

var v19to110 = map[protowire.Number]protowire.Number{2: 4, 3: 2, 4: 3}

func renumber(b []byte, depth int, path []protowire.Number) error {
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return fmt.Errorf("byte %d: bad field tag", off)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return fmt.Errorf("byte %d: bad field value", off)
		}
		if depth == len(path) {
			if to, ok := v19to110[num]; ok && n == 1 {
				b[off] = byte(to)<<3 | byte(typ)
			}
		} else if typ == protowire.BytesType && num == path[depth] {
			body, hl := protowire.ConsumeBytes(b[off+n:])
			start := off + n + hl - len(body)
			if err := renumber(b[start:start+len(body)], depth+1, path); err != nil {
				return err
			}
		}
		off += n + m
	}
	return nil
}
