package jfr

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// RepeatEvent returns the first chunk of recording rec with its first
// event of type name put n times more right after the chunk's header,
// the chunk's size and its offsets of the constant pools and metadata
// moved by what was put in: a real recording made large from small
// events, for the crafted inputs of internal/testutil/hostile.
func RepeatEvent(rec []byte, name string, n int) ([]byte, error) {
	if len(rec) < chunkHeaderSize || string(rec[:4]) != Magic {
		return nil, errors.New("jfr: not a recording")
	}
	h := parseHeader(rec)
	if err := h.check(); err != nil {
		return nil, fmt.Errorf("jfr: %v", err)
	}
	if h.size > uint64(len(rec)) {
		return nil, fmt.Errorf("jfr: the first chunk's %d bytes are cut to %d", h.size, len(rec))
	}
	c := rec[:h.size]
	m, err := readMetadata(c, int(h.metaOffset))
	if err != nil {
		return nil, fmt.Errorf("jfr: metadata: %v", err)
	}
	var ev []byte
	for pos := chunkHeaderSize; pos < len(c) && ev == nil; {
		r := newReader(c, pos)
		size, err := r.varlong()
		if err != nil || size == 0 || size > uint64(len(c)-pos) {
			return nil, fmt.Errorf("jfr: bad event at byte %d", pos)
		}
		r.end = pos + int(size)
		typ, err := r.varlong()
		if err != nil {
			return nil, fmt.Errorf("jfr: event at byte %d: %v", pos, err)
		}
		if cl := m.class(typ); cl != nil && cl.name == name {
			ev = c[pos:r.end]
		}
		pos += int(size)
	}
	if ev == nil {
		return nil, fmt.Errorf("jfr: no %s event in the first chunk", name)
	}
	grow := uint64(n * len(ev))
	out := make([]byte, 0, len(c)+int(grow))
	out = append(out, c[:chunkHeaderSize]...)
	for range n {
		out = append(out, ev...)
	}
	out = append(out, c[chunkHeaderSize:]...)
	be := binary.BigEndian
	be.PutUint64(out[8:], h.size+grow)
	be.PutUint64(out[16:], h.cpOffset+grow)
	be.PutUint64(out[24:], h.metaOffset+grow)
	return out, nil
}
