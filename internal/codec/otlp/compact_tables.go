package otlp

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/model"
)

// compactTables are a dictionary's location_table and function_table
// read straight into the model's layout, for a message read to be decoded
// (ReadForDecode): the generated structs of a location of one line take
// 184 bytes with their pointers, these 40, a function 72 bytes, this 24,
// and the model takes them as they are. Until checked and renumbered
// (decoder.takeLocations), a location's indices are the input's: its
// Mapping is its mapping_index and each line's Function its
// function_index, 0 meaning none, possibly out of range. A function's
// string indices are the model's as they are.
type compactTables struct {
	locs     []model.Location
	lines    []model.Line // the locations' lines, back to back (their FirstLine and NumLines)
	cols     []int64      // the lines' columns, as lines; nil until one is not 0
	nextLine int
	// attrs[i] is location i's attribute_indices; nil when no location
	// has any.
	attrs [][]int32
	funcs []model.Function
}

func newCompactTables(nlocs, nlines, nfuncs int) *compactTables {
	return &compactTables{locs: make([]model.Location, 0, nlocs), lines: make([]model.Line, nlines),
		funcs: make([]model.Function, 0, nfuncs)}
}

// function parses a Function message as the next entry, as
// dictParser.function parses it into the generated struct.
func (t *compactTables) function(v []byte) bool {
	t.funcs = append(t.funcs, model.Function{})
	return modelFunction(&t.funcs[len(t.funcs)-1], v)
}

// modelFunction reads a Function message into f, its string indices as
// they are.
func modelFunction(f *model.Function, v []byte) bool {
	return fields(v, func(num protowire.Number, typ protowire.Type, _ []byte, x uint64) bool {
		switch num {
		case 1:
			f.Name = int32(x)
		case 2:
			f.SystemName = int32(x)
		case 3:
			f.Filename = int32(x)
		case 4:
			f.StartLine = int64(x)
		default:
			return false
		}
		return typ == protowire.VarintType
	}) == nil
}

// location parses a Location message as the next entry, as
// dictParser.location parses it into the generated struct.
func (t *compactTables) location(v []byte, blk *block[int32]) bool {
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
			l.FirstLine, l.NumLines = uint32(first), uint32(t.nextLine-first)
			var col int64
			ok := modelLine(ln, &col, v)
			if col != 0 && t.cols == nil {
				t.cols = make([]int64, len(t.lines))
			}
			if t.cols != nil {
				t.cols[t.nextLine-1] = col
			}
			return ok
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

// modelLine reads a Line message into ln, its function_index as it is,
// and its column into col.
func modelLine(ln *model.Line, col *int64, v []byte) bool {
	return fields(v, func(num protowire.Number, typ protowire.Type, _ []byte, x uint64) bool {
		switch num {
		case 1:
			ln.Function = int32(x)
		case 2:
			ln.Line = int64(x)
		case 3:
			*col = int64(x)
		default:
			return false
		}
		return typ == protowire.VarintType
	}) == nil
}

// attrsOf returns location i's attribute_indices.
func (t *compactTables) attrsOf(i int) []int32 {
	if t.attrs == nil {
		return nil
	}
	return t.attrs[i]
}

// zeroLocation reports whether location 0 is the zero value, as the
// generated struct would have no field set.
func (t *compactTables) zeroLocation() bool {
	l := &t.locs[0]
	return l.Address == 0 && l.Mapping == 0 && l.NumLines == 0 && len(t.attrsOf(0)) == 0
}

// linesOf returns the lines of l, one of the locations.
func (t *compactTables) linesOf(l *model.Location) []model.Line {
	return t.lines[l.FirstLine : l.FirstLine+l.NumLines : l.FirstLine+l.NumLines]
}
