package gperftools

import (
	"bytes"
	"container/heap"
	"io"
	"sort"

	"github.com/pprofx/pprofx/internal/model"
)

// mapping is an executable line of the maps text.
type mapping struct {
	start, limit, offset uint64
	file                 string
}

const deletedSuffix = " (deleted)"

// mapsText reads the /proc/self/maps text after the trailer and returns its
// executable mappings, the main binary first and the others in file order.
func (d *decoder) mapsText() ([]mapping, error) {
	rd := d.rd
	start := rd.off
	var maps []mapping
	seenDeleted := map[string]bool{}
	// A line repeated word for word adds nothing (the first copy owns every
	// address the later ones cover): it is kept once, so that a maps text
	// of one line repeated millions of times takes the memory of one.
	seen := map[string]bool{}
	dups := 0
	for {
		l, err := rd.line()
		if err == errLineTooLong {
			continue
		}
		if err == io.EOF {
			break
		}
		last := err == errNoNewline
		if err != nil && !last {
			return nil, err
		}
		if last {
			// The profiler ends every line with a newline: the file may
			// have been cut here, with any mappings that followed, and a
			// path cut short names the wrong file. The line is still used
			// when it parses (hand-made files often lack the last newline).
			d.warn("the maps text does not end with a newline (was the file cut?): mappings after byte %d may be lost, and the last line, %q, may be cut short", rd.off, l)
		}
		if seen[string(l)] {
			dups++
			continue
		}
		m, ok := parseMapsLine(l)
		if !ok {
			continue
		}
		seen[string(l)] = true
		if f, ok := bytesCutSuffix(m.file, deletedSuffix); ok {
			m.file = f
			if !seenDeleted[f] {
				seenDeleted[f] = true
				d.info.Deleted = append(d.info.Deleted, f)
				d.warn("mapped file %q was deleted after it was mapped; kept its path without %q", f, deletedSuffix)
			}
		}
		maps = append(maps, m)
	}
	d.info.MapsBytes = rd.off - start
	if dups > 0 {
		d.warn("the maps text repeats %d lines word for word; each was kept once", dups)
	}
	// The main binary first: the first named file that is neither a shared
	// library nor a [pseudo] mapping such as [vdso].
	for i, m := range maps {
		if m.file == "" || m.file[0] == '[' || isSharedLibrary(m.file) {
			continue
		}
		if i > 0 {
			main := maps[i]
			copy(maps[1:i+1], maps[:i])
			maps[0] = main
		}
		break
	}
	return maps, nil
}

func bytesCutSuffix(s, suffix string) (string, bool) {
	if len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// parseMapsLine parses one /proc/<pid>/maps line,
//
//	start-limit perms offset dev inode [path]
//
// and reports whether it is a well-formed executable mapping. Hex numbers may
// have a 0x prefix; the path may contain spaces.
func parseMapsLine(l []byte) (mapping, bool) {
	var m mapping
	var ok bool
	if m.start, l, ok = hexField(l); !ok || len(l) == 0 || l[0] != '-' {
		return m, false
	}
	if m.limit, l, ok = hexField(l[1:]); !ok || m.limit <= m.start {
		return m, false
	}
	perms, l := field(l)
	if len(perms) != 4 || !isPerms(perms) {
		return m, false
	}
	var off []byte
	if off, l = field(l); len(off) == 0 {
		return m, false
	}
	if m.offset, off, ok = hexField(off); !ok || len(off) != 0 {
		return m, false
	}
	dev, l := field(l)
	if !isDev(dev) {
		return m, false
	}
	inode, l := field(l)
	if !isDecimal(inode) {
		return m, false
	}
	if perms[2] != 'x' {
		return m, false
	}
	m.file = string(bytes.TrimLeft(l, " \t"))
	return m, true
}

// field skips blanks (at least one) and returns the next blank-free field and the rest.
func field(l []byte) ([]byte, []byte) {
	if len(l) == 0 || (l[0] != ' ' && l[0] != '\t') {
		return nil, l
	}
	l = bytes.TrimLeft(l, " \t")
	i := bytes.IndexAny(l, " \t")
	if i < 0 {
		return l, nil
	}
	return l[:i], l[i:]
}

// hexField parses a hex number (optional 0x, at most 16 digits) at the start of l.
func hexField(l []byte) (uint64, []byte, bool) {
	if len(l) >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
		l = l[2:]
	}
	var v uint64
	n := 0
	for ; n < len(l); n++ {
		c := l[n]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return v, l[n:], n > 0 && n <= 16
		}
		v = v<<4 | uint64(d)
	}
	return v, nil, n > 0 && n <= 16
}

func isPerms(p []byte) bool {
	for i, c := range p {
		want := "rwxp"[i]
		if i == 3 && c == 's' {
			continue
		}
		if c != want && c != '-' {
			return false
		}
	}
	return true
}

func isDev(b []byte) bool {
	i := bytes.IndexByte(b, ':')
	if i <= 0 || i == len(b)-1 {
		return false
	}
	for j, c := range b {
		if j != i && !isHexDigit(c) {
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDecimal(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// mappingIndex finds the first mapping (in profile order) containing an
// address. Mappings may overlap, so it cuts the address space into
// segments, each owned by the first mapping covering it: building it is
// O(m log m) and a lookup O(log m), whatever the overlaps.
type mappingIndex struct {
	starts []uint64 // segment starts, increasing
	owners []int32  // owner of [starts[i], starts[i+1]), or NoMapping
}

type boundary struct {
	at    uint64
	m     int32
	start bool
}

func newMappingIndex(maps []model.Mapping) *mappingIndex {
	bs := make([]boundary, 0, 2*len(maps))
	for i, m := range maps {
		if m.Start < m.Limit {
			bs = append(bs, boundary{m.Start, int32(i), true}, boundary{m.Limit, int32(i), false})
		}
	}
	sort.Slice(bs, func(a, b int) bool { return bs[a].at < bs[b].at })
	x := &mappingIndex{}
	active := &int32Heap{}
	ended := make([]bool, len(maps))
	for i := 0; i < len(bs); {
		at := bs[i].at
		for ; i < len(bs) && bs[i].at == at; i++ {
			if bs[i].start {
				heap.Push(active, bs[i].m)
			} else {
				ended[bs[i].m] = true
			}
		}
		for active.Len() > 0 && ended[(*active)[0]] {
			heap.Pop(active)
		}
		owner := int32(model.NoMapping)
		if active.Len() > 0 {
			owner = (*active)[0]
		}
		if n := len(x.owners); n > 0 && x.owners[n-1] == owner {
			continue
		}
		x.starts = append(x.starts, at)
		x.owners = append(x.owners, owner)
	}
	return x
}

func (x *mappingIndex) find(addr uint64) int32 {
	i := sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > addr }) - 1
	if i < 0 {
		return model.NoMapping
	}
	return x.owners[i]
}

// int32Heap is a min-heap of mapping indices.
type int32Heap []int32

func (h int32Heap) Len() int           { return len(h) }
func (h int32Heap) Less(i, j int) bool { return h[i] < h[j] }
func (h int32Heap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *int32Heap) Push(x any)        { *h = append(*h, x.(int32)) }
func (h *int32Heap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
