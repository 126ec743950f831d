package bundle

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/pprofx/pprofx/internal/model"
)

// enc appends the primitive encodings the format uses to a byte slice.
type enc struct{ b []byte }

func (e *enc) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) bytes(p []byte)   { e.uvarint(uint64(len(p))); e.b = append(e.b, p...) }
func (e *enc) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *enc) u32(v uint32)     { e.uvarint(uint64(v)) }
func (e *enc) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// dec reads what enc wrote from one block, remembering the first error.
// Every error names the block, the field being read and the byte offset in
// the (decompressed) block.
type dec struct {
	b     []byte
	off   int
	block string
	err   error
	// room is how many bytes what this block expands to in memory (shared
	// string prefixes, values copied per sample) may still take; 0 means
	// DefaultLimit.
	room int64
	// version is the bundle's format version (tables and headers: from
	// version 3, every attribute outside a map value has a unit).
	version uint32
	// mem is what the tables counted so far take in memory (reserve).
	mem int64
	// em is what the entries of some tables take (nil: wholeMem).
	em *entryMem
}

func (d *dec) entryMem() *entryMem {
	if d.em == nil {
		return &wholeMem
	}
	return d.em
}

// reserve counts n entries of a table at each bytes apiece, what they
// take while a profile is read (see entryMem and the others in
// tables.go), and fails when the tables
// counted so far, with the block, would take more than the memory limit
// leaves: the tables are refused before they are allocated, not left to
// run out of memory.
func (d *dec) reserve(what string, n, each int) {
	if d.err != nil {
		return
	}
	d.mem += int64(n) * int64(each)
	if err := model.CheckAvailable("bundle", d.mem, int64(len(d.b)),
		fmt.Sprintf("the shared tables, up to their %d %s,", n, what)); err != nil {
		d.err = err
	}
}

// spend takes n bytes of expansion from the block's room, failing when
// there are not that many left.
func (d *dec) spend(what string, n uint64) bool {
	if d.err != nil {
		return false
	}
	if d.room == 0 {
		d.room = DefaultLimit
	}
	if n > uint64(d.room) {
		d.fail(what, "expands to more than the limit of %d bytes (--max-input-size)", d.room)
		return false
	}
	d.room -= int64(n)
	return true
}

func (d *dec) fail(what string, format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("bundle: %s block, byte %d: %s: %s", d.block, d.off, what, fmt.Sprintf(format, args...))
	}
}

func (d *dec) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		if n == 0 {
			d.fail(what, "unexpected end of data")
		} else {
			d.fail(what, "varint overflows 64 bits")
		}
		return 0
	}
	d.off += n
	return v
}

// varint reads a zig-zag signed varint (as binary.AppendVarint writes it).
func (d *dec) varint(what string) int64 {
	u := d.uvarint(what)
	return int64(u>>1) ^ -int64(u&1)
}

// u32 reads a uvarint that must fit in 31 bits (an index or count).
func (d *dec) u32(what string) uint32 {
	v := d.uvarint(what)
	if v > math.MaxInt32 {
		d.fail(what, "value %d too large", v)
		return 0
	}
	return uint32(v)
}

// count reads a number of items each taking at least minBytes bytes in the
// rest of the block, and rejects counts the block is too short to hold, so
// that nothing is allocated by an unchecked length.
func (d *dec) count(what string, minBytes int) int {
	v := d.uvarint(what)
	if d.err != nil {
		return 0
	}
	if minBytes < 1 {
		minBytes = 1
	}
	rest := uint64(len(d.b) - d.off)
	if v > rest/uint64(minBytes) {
		d.fail(what, "count %d exceeds the %d bytes left", v, rest)
		return 0
	}
	return int(v)
}

// countMem is count for a table of entries of each bytes in memory (see
// reserve): 0, and d.err set, when they would not fit.
func (d *dec) countMem(what string, minBytes, each int, entries string) int {
	n := d.count(what, minBytes)
	d.reserve(entries, n, each)
	if d.err != nil {
		return 0
	}
	return n
}

// ref reads an index that must be below n.
func (d *dec) ref(what string, n int) uint32 {
	v := d.uvarint(what)
	if d.err == nil && v >= uint64(n) {
		d.fail(what, "index %d out of range (%d entries)", v, n)
		return 0
	}
	return uint32(v)
}

func (d *dec) raw(what string) []byte {
	n := d.uvarint(what)
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)-d.off) {
		d.fail(what, "length %d exceeds the %d bytes left", n, len(d.b)-d.off)
		return nil
	}
	p := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return p
}

func (d *dec) bytes(what string) []byte {
	p := d.raw(what)
	if len(p) == 0 {
		return nil
	}
	return append([]byte(nil), p...)
}

func (d *dec) str(what string) string { return string(d.raw(what)) }

func (d *dec) bool(what string) bool {
	v := d.uvarint(what)
	if d.err == nil && v > 1 {
		d.fail(what, "boolean is %d", v)
	}
	return v == 1
}

// done reports an error if bytes are left over.
func (d *dec) done() error {
	if d.err == nil && d.off != len(d.b) {
		d.fail("end", "%d bytes left over", len(d.b)-d.off)
	}
	return d.err
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
