package otlp

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/model"
)

// locTable is a dictionary's location_table read straight into the
// model's layout, for a message read to be decoded (ReadForDecode): the
// generated structs of a location of one line take 184 bytes with their
// pointers, these 64, and the model takes them as they are. Until checked
// and renumbered (take), the indices are the input's: each location's
// Mapping is its mapping_index and each line's Function its
// function_index, 0 meaning none, possibly out of range.
type locTable struct {
	locs     []model.Location
	lines    []model.Line // the locations' lines, back to back
	nextLine int
	// attrs[i] is location i's attribute_indices; nil when no location
	// has any.
	attrs [][]int32
}

func newLocTable(nlocs, nlines int) *locTable {
	return &locTable{locs: make([]model.Location, 0, nlocs), lines: make([]model.Line, nlines)}
}

// location parses a Location message as the next entry, as
// dictParser.location parses it into the generated struct.
func (t *locTable) location(v []byte, blk *block[int32]) bool {
	i := len(t.locs)
	t.locs = append(t.locs, model.Location{})
	l := &t.locs[i]
	first := t.nextLine
	return fields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) bool {
		switch num {
		case 1:
			l.Mapping = int32(x)
		case 2:
			l.Address = x
		case 3:
			if typ != protowire.BytesType || t.nextLine == len(t.lines) {
				return false
			}
			ln := &t.lines[t.nextLine]
			t.nextLine++
			l.Lines = t.lines[first:t.nextLine:t.nextLine]
			return modelLine(ln, v)
		case 4:
			if t.attrs == nil {
				t.attrs = make([][]int32, cap(t.locs))
			}
			if i >= len(t.attrs) {
				return false
			}
			var ok bool
			t.attrs[i], ok = varintsInto(t.attrs[i], typ, v, x, blk)
			return ok
		default:
			return false
		}
		return typ == protowire.VarintType
	}) == nil
}

// modelLine reads a Line message into ln, its function_index as it is.
func modelLine(ln *model.Line, v []byte) bool {
	return fields(v, func(num protowire.Number, typ protowire.Type, _ []byte, x uint64) bool {
		switch num {
		case 1:
			ln.Function = int32(x)
		case 2:
			ln.Line = int64(x)
		case 3:
			ln.Column = int64(x)
		default:
			return false
		}
		return typ == protowire.VarintType
	}) == nil
}

// attrsOf returns location i's attribute_indices.
func (t *locTable) attrsOf(i int) []int32 {
	if t.attrs == nil {
		return nil
	}
	return t.attrs[i]
}

// zero reports whether location 0 is the zero value, as the generated
// struct would have no field set.
func (t *locTable) zero() bool {
	l := &t.locs[0]
	return l.Address == 0 && l.Mapping == 0 && len(l.Lines) == 0 && len(t.attrsOf(0)) == 0
}
