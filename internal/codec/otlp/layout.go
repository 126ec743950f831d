package otlp

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
)

// Telling the Sample layout (v1.9 or v1.10+, see v19.go) from the bytes.
//
// The two numberings disagree on fields 2, 3 and 4 of Sample:
//
//	field  v1.10+                        v1.9
//	2      attribute_indices (repeated)  values (repeated)
//	3      link_index (one varint)       attribute_indices (repeated)
//	4      values (repeated)             link_index (one varint)
//
// A reading is impossible when a field the layout makes link_index is
// length-delimited (packed: a repeated field of the other layout), when a
// link_index or an attribute index is beyond its table, or when a sample
// has neither values nor timestamps, or both but not as many (MUSTs of
// the spec). detectLayout reads every sample's fields 2-4 once, with the
// dictionary's table sizes, and rules readings out by those tests alone.

// layoutEvidence is what the samples of one message say about its layout.
type layoutEvidence struct {
	differ bool      // some sample has field 2, 3 or 4: the readings differ
	bad    [2]string // why each reading (0: v1.10+, 1: v1.9) is impossible; "" if it is not
	wire   [2]bool   // the reason is a wire type (the reading loses fields), not a value
	broken string    // a wire type neither layout allows, "" if none
}

// layouts in the order of layoutEvidence.bad.
var layouts = [2]SampleLayout{LayoutV110, LayoutV19}

// sampleFields are the field numbers of attribute_indices, link_index and
// values in each layout.
var sampleFields = [2][3]protowire.Number{{2, 3, 4}, {3, 4, 2}}

// detectLayout gathers the evidence of a binary ProfilesData (which the
// caller parses afterwards; malformed bytes are left to that parse).
func detectLayout(data []byte) layoutEvidence {
	var ev layoutEvidence
	nattr, nlink := tableSizes(data)
	sample := 0
	forEachSample(data, func(off int, b []byte) {
		var n [6]int // per field: how many values
		var max [6]uint64
		for pos := 0; pos < len(b); {
			num, typ, tn := protowire.ConsumeTag(b[pos:])
			if tn < 0 {
				return
			}
			m := protowire.ConsumeFieldValue(num, typ, b[pos+tn:])
			if m < 0 {
				return
			}
			at := off + pos
			switch {
			case num >= 2 && num <= 4:
				ev.differ = true
				switch typ {
				case protowire.VarintType:
					v, _ := protowire.ConsumeVarint(b[pos+tn:])
					n[num]++
					max[num] = maxU(max[num], v)
				case protowire.BytesType:
					body, _ := protowire.ConsumeBytes(b[pos+tn:])
					for len(body) > 0 {
						v, k := protowire.ConsumeVarint(body)
						if k < 0 {
							break
						}
						n[num]++
						max[num] = maxU(max[num], v)
						body = body[k:]
					}
					for i, f := range sampleFields {
						if f[1] == num && !ev.wire[i] {
							ev.bad[i] = fmt.Sprintf("sample %d at byte %d: field %d is length-delimited, but it is link_index, one varint", sample, at, num)
							ev.wire[i] = true
						}
					}
				default:
					if ev.broken == "" {
						ev.broken = fmt.Sprintf("sample %d at byte %d: field %d has wire type %d, which neither Sample layout allows", sample, at, num, typ)
					}
				}
			case num == 5 && typ == protowire.BytesType:
				body, _ := protowire.ConsumeBytes(b[pos+tn:])
				n[5] += len(body) / 8
			case num == 5 && typ == protowire.Fixed64Type:
				n[5]++
			}
			pos += tn + m
		}
		for i, f := range sampleFields {
			if ev.bad[i] != "" {
				continue
			}
			attr, link, values := f[0], f[1], f[2]
			switch {
			case max[attr] > 0 && max[attr] >= uint64(nattr):
				ev.bad[i] = fmt.Sprintf("sample %d at byte %d: attribute index %d beyond attribute_table (%d)", sample, off, max[attr], nattr)
			case max[link] > 0 && max[link] >= uint64(nlink):
				ev.bad[i] = fmt.Sprintf("sample %d at byte %d: link_index %d beyond link_table (%d)", sample, off, max[link], nlink)
			case n[values] == 0 && n[5] == 0:
				ev.bad[i] = fmt.Sprintf("sample %d at byte %d: neither values nor timestamps", sample, off)
			case n[values] > 0 && n[5] > 0 && n[values] != n[5]:
				ev.bad[i] = fmt.Sprintf("sample %d at byte %d: %d values but %d timestamps", sample, off, n[values], n[5])
			}
		}
		sample++
	})
	return ev
}

func maxU(a, b uint64) uint64 {
	if b > a {
		return b
	}
	return a
}

// tableSizes counts the entries of the dictionary's attribute_table and
// link_table.
func tableSizes(data []byte) (nattr, nlink int) {
	eachField(data, func(num protowire.Number, typ protowire.Type, body []byte, _ int) {
		if num != fDataDictionary || typ != protowire.BytesType {
			return
		}
		eachField(body, func(num protowire.Number, typ protowire.Type, _ []byte, _ int) {
			switch num {
			case fDictAttribute:
				nattr++
			case fDictLink:
				nlink++
			}
		})
	})
	return nattr, nlink
}

// forEachSample calls fn with the body of every Sample of a ProfilesData
// and its offset in data.
func forEachSample(data []byte, fn func(off int, b []byte)) {
	// ProfilesData.resource_profiles(1) > ResourceProfiles.scope_profiles(2)
	// > ScopeProfiles.profiles(2) > Profile.samples(2).
	path := []protowire.Number{1, 2, 2, 2}
	var walk func(b []byte, base, depth int)
	walk = func(b []byte, base, depth int) {
		eachField(b, func(num protowire.Number, typ protowire.Type, body []byte, off int) {
			if typ != protowire.BytesType || num != path[depth] {
				return
			}
			if depth == len(path)-1 {
				fn(base+off, body)
				return
			}
			walk(body, base+off, depth+1)
		})
	}
	walk(data, 0, 0)
}

// eachField calls fn for each field of message b with its body (for a
// length-delimited field) and the body's offset in b; it stops at the
// first malformed field.
func eachField(b []byte, fn func(num protowire.Number, typ protowire.Type, body []byte, off int)) {
	for pos := 0; pos < len(b); {
		num, typ, n := protowire.ConsumeTag(b[pos:])
		if n < 0 {
			return
		}
		m := protowire.ConsumeFieldValue(num, typ, b[pos+n:])
		if m < 0 {
			return
		}
		var body []byte
		off := pos + n
		if typ == protowire.BytesType {
			var hl int
			body, hl = protowire.ConsumeBytes(b[pos+n:])
			off = pos + n + hl - len(body)
		}
		fn(num, typ, body, off)
		pos += n + m
	}
}

// chooseLayout returns the layout to read a message in: the one told, or
// the only possible reading, or v1.10+ when the readings do not differ.
// valid reports whether a full reading in a layout passes the reader's
// checks, for when the evidence allows both.
func chooseLayout(ev layoutEvidence, told SampleLayout, valid func(SampleLayout) bool) (SampleLayout, error) {
	if told != LayoutAuto {
		return told, nil
	}
	if ev.broken != "" {
		return 0, fmt.Errorf("%s: another layout or a broken file", ev.broken)
	}
	if !ev.differ {
		return LayoutV110, nil
	}
	switch {
	case ev.bad[0] == "" && ev.bad[1] != "":
		return LayoutV110, nil
	case ev.bad[1] == "" && ev.bad[0] != "":
		return LayoutV19, nil
	case ev.bad[0] != "" && ev.bad[1] != "":
		// Neither fits: the reading whose fields all parse is read, and
		// the checks say what is wrong with it.
		if ev.wire[0] && !ev.wire[1] {
			return LayoutV19, nil
		}
		return LayoutV110, nil
	}
	ok110, ok19 := valid(LayoutV110), valid(LayoutV19)
	switch {
	case ok110 && !ok19:
		return LayoutV110, nil
	case ok19 && !ok110:
		return LayoutV19, nil
	case !ok110 && !ok19:
		return LayoutV110, nil // its error is the one reported
	}
	return 0, fmt.Errorf("the samples read validly both as %s and as %s, and the two readings differ: choose with --otlp-proto 1.10 or --otlp-proto 1.9",
		layouts[0], layouts[1])
}

// wireContradictions counts the fields of m (and of the messages in it)
// that the parser kept as unknown although the schema has their numbers:
// their wire types contradict the schema (a field of another proto
// release, or a broken file). first describes the first; other is how many
// fields of numbers the schema does not have were skipped.
func wireContradictions(m protoreflect.Message, path string, first, inSample *string, n, other *int) {
	if u := m.GetUnknown(); len(u) > 0 {
		fields := m.Descriptor().Fields()
		for b := []byte(u); len(b) > 0; {
			num, typ, tn := protowire.ConsumeTag(b)
			if tn < 0 {
				break
			}
			if fd := fields.ByNumber(num); fd != nil {
				msg := fmt.Sprintf("%s%s (field %d) has wire type %d, which contradicts the schema (%s)", path, fd.Name(), num, typ, fd.Kind())
				if *n == 0 {
					*first = msg
				}
				if *inSample == "" && m.Descriptor().Name() == "Sample" {
					*inSample = msg
				}
				*n++
			} else {
				*other++
			}
			vn := protowire.ConsumeFieldValue(num, typ, b[tn:])
			if vn < 0 {
				break
			}
			b = b[tn+vn:]
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		switch {
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				wireContradictions(v.List().Get(i).Message(), fmt.Sprintf("%s%s[%d].", path, fd.Name(), i), first, inSample, n, other)
			}
		case fd.IsMap():
		default:
			wireContradictions(v.Message(), path+string(fd.Name())+".", first, inSample, n, other)
		}
		return true
	})
}

// skippedFields tells warn (if any) about the fields wireContradictions
// finds in pd. One in a Sample is an error: it is the other Sample layout
// (told by --otlp-proto) or a broken file, and it would lose the samples'
// attributes, values or links.
func skippedFields(pd *pb.ProfilesData, warn func(string)) error {
	var first, inSample string
	var n, other int
	wireContradictions(pd.ProtoReflect(), "", &first, &inSample, &n, &other)
	if inSample != "" {
		return errors.New(inSample)
	}
	if warn == nil {
		return nil
	}
	if n > 0 {
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" (and %d more such fields)", n-1)
		}
		warn(fmt.Sprintf("otlp: %s%s: skipped, as a field of another proto release or a broken file", first, more))
	}
	if other > 0 {
		warn(fmt.Sprintf("otlp: %d fields of numbers the v1development schema does not have were skipped", other))
	}
	return nil
}
