package hostile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf16"
)

// The crafted JFR recording is a real one with one of its events
// repeated: the first jdk.ExecutionSample of the first chunk of
// testdata/jfr/cpu.jfr (the JDK's, 10 bytes), n times right after the
// chunk's header. The chunk's size and its offsets of the constant pools
// and metadata move by what was put in; what follows is unchanged.

// jfrHeaderSize is the size of a JFR 2.x chunk header.
const jfrHeaderSize = 68

// moduleFile reads a file of this module by its path from the module's
// root, found above the working directory.
func moduleFile(rel string) ([]byte, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return os.ReadFile(filepath.Join(dir, rel))
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil, fmt.Errorf("%s: no go.mod above the working directory", rel)
		}
		dir = up
	}
}

// jfrRepeated returns the first chunk of the recording rec with its first
// event of type name put n times more right after its header.
func jfrRepeated(rec []byte, name string, n int) ([]byte, error) {
	if len(rec) < jfrHeaderSize || string(rec[:4]) != "FLR\x00" {
		return nil, errors.New("jfr: not a recording")
	}
	be := binary.BigEndian
	size, cp, md := be.Uint64(rec[8:]), be.Uint64(rec[16:]), be.Uint64(rec[24:])
	if size > uint64(len(rec)) || md >= size || cp >= size {
		return nil, errors.New("jfr: a chunk's sizes out of range")
	}
	c := rec[:size]
	id, err := jfrEventType(c[md:], name)
	if err != nil {
		return nil, err
	}
	var ev []byte
	for pos := jfrHeaderSize; pos < len(c) && ev == nil; {
		r := jfrReader{b: c, pos: pos}
		sz, typ := r.varlong(), r.varlong()
		if r.err != nil || sz == 0 || sz > uint64(len(c)-pos) {
			return nil, fmt.Errorf("jfr: bad event at byte %d", pos)
		}
		if typ == id {
			ev = c[pos : pos+int(sz)]
		}
		pos += int(sz)
	}
	if ev == nil {
		return nil, fmt.Errorf("jfr: no %s event", name)
	}
	grow := uint64(n * len(ev))
	out := make([]byte, 0, len(c)+int(grow))
	out = append(out, c[:jfrHeaderSize]...)
	for range n {
		out = append(out, ev...)
	}
	out = append(out, c[jfrHeaderSize:]...)
	be.PutUint64(out[8:], size+grow)
	be.PutUint64(out[16:], cp+grow)
	be.PutUint64(out[24:], md+grow)
	return out, nil
}

// jfrEventType finds the type id of the class named name in the metadata
// event b: the "id" attribute of its "class" element.
func jfrEventType(b []byte, name string) (uint64, error) {
	r := jfrReader{b: b}
	r.varlong() // size
	if typ := r.varlong(); typ != 0 {
		return 0, errors.New("jfr: the metadata offset is not the metadata event")
	}
	r.varlong() // start
	r.varlong() // duration
	r.varlong() // metadata id
	strs := make([]string, r.varlong())
	for i := range strs {
		strs[i] = r.str()
	}
	if r.err != nil {
		return 0, r.err
	}
	var id string
	var walk func(depth int)
	walk = func(depth int) {
		if r.err != nil || depth > 16 {
			return
		}
		at := func() string {
			i := r.varlong()
			if i >= uint64(len(strs)) {
				r.err = errors.New("jfr: a metadata string index out of range")
				return ""
			}
			return strs[i]
		}
		elem := at()
		attrs := map[string]string{}
		for range r.varlong() {
			k := at()
			attrs[k] = at()
		}
		if elem == "class" && attrs["name"] == name {
			id = attrs["id"]
		}
		for range r.varlong() {
			walk(depth + 1)
		}
	}
	walk(0)
	if r.err != nil {
		return 0, r.err
	}
	if id == "" {
		return 0, fmt.Errorf("jfr: no class %s in the metadata", name)
	}
	return strconv.ParseUint(id, 10, 64)
}

// jfrReader reads JFR's compressed integers and strings.
type jfrReader struct {
	b   []byte
	pos int
	err error
}

func (r *jfrReader) varlong() uint64 {
	var v uint64
	for shift := uint(0); r.err == nil; shift += 7 {
		if r.pos >= len(r.b) {
			r.err = errors.New("jfr: cut short")
			break
		}
		c := r.b[r.pos]
		r.pos++
		if shift == 56 {
			return v | uint64(c)<<56
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	return 0
}

// str reads a string of the metadata: null, empty, UTF-8, UTF-16 code
// units or Latin-1.
func (r *jfrReader) str() string {
	if r.pos >= len(r.b) {
		r.err = errors.New("jfr: cut short")
		return ""
	}
	enc := r.b[r.pos]
	r.pos++
	switch enc {
	case 0, 1:
		return ""
	case 3, 5:
		n := r.varlong()
		if r.err != nil || n > uint64(len(r.b)-r.pos) {
			r.err = errors.New("jfr: a string past the end")
			return ""
		}
		s := r.b[r.pos : r.pos+int(n)]
		r.pos += int(n)
		if enc == 3 {
			return string(s)
		}
		rs := make([]rune, len(s))
		for i, c := range s {
			rs[i] = rune(c)
		}
		return string(rs)
	case 4:
		n := r.varlong()
		if r.err != nil || n > uint64(len(r.b)-r.pos) {
			r.err = errors.New("jfr: a string past the end")
			return ""
		}
		u := make([]uint16, n)
		for i := range u {
			u[i] = uint16(r.varlong())
		}
		return string(utf16.Decode(u))
	}
	r.err = fmt.Errorf("jfr: string encoding %d in the metadata", enc)
	return ""
}
