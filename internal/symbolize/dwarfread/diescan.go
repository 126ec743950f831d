package dwarfread

import (
	"debug/dwarf"
	ebin "encoding/binary"
	"errors"
)

// A dieScanner reads the entries of one unit of .debug_info by their
// shape only: each entry's tag, whether children follow, and where the
// next one starts, from the unit's abbreviations, without decoding (or
// allocating for) the attributes. The walk of a unit's function tree
// (Table.unit) goes through thousands of entries it has no use for
// (types, variables, parameters, call sites); the standard reader decodes
// each of them whole. The entries it does use are decoded by the standard
// reader still, so that what is read of them is read as before.
//
// Every read is checked against the unit's end: bytes that do not scan
// (an unknown form, a code with no abbreviation, a length past the end)
// give errScan, and the caller walks the unit with the standard reader.
type dieScanner struct {
	b        []byte // .debug_info up to the unit's end
	pos      int
	u        unitHeader
	order    ebin.ByteOrder
	abbrevs  []dieAbbrev // by code; code 0 is no abbreviation
	abbrevsM map[uint64]*dieAbbrev
	// refs: some attribute may refer out of the unit (DW_FORM_ref_addr,
	// DW_FORM_GNU_ref_alt, or a form chosen per entry, DW_FORM_indirect).
	refs bool
}

var errScan = errors.New("entries do not scan")

// dieAbbrev is an abbreviation: its tag, children flag, attribute forms
// and, when all of those have fixed sizes, their total.
type dieAbbrev struct {
	tag      dwarf.Tag
	children bool
	ok       bool
	fixed    int // the attributes' size when every form is fixed, else -1
	forms    []uint64
	sibling  int // index of DW_AT_sibling in forms, or -1
	// code: the entry has DW_AT_low_pc or DW_AT_ranges, so it may have
	// code (a function without either is a declaration or an abstract
	// instance, which the tree does not need decoded).
	code bool
}

const (
	formAddr          = 0x01
	formBlock2        = 0x03
	formBlock4        = 0x04
	formData2         = 0x05
	formData4         = 0x06
	formData8         = 0x07
	formString        = 0x08
	formBlock         = 0x09
	formBlock1        = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRefAddr       = 0x10
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formIndirect      = 0x16
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx2         = 0x26
	formStrx3         = 0x27
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx2        = 0x2a
	formAddrx3        = 0x2b
	formAddrx4        = 0x2c
	formGNUAddrIndex  = 0x1f01
	formGNUStrIndex   = 0x1f02
	formGNURefAlt     = 0x1f20
	formGNUStrpAlt    = 0x1f21
)

// fixedSize is a form's size when it does not depend on the bytes (-1
// when it does, -2 for a form not known).
func (s *dieScanner) fixedSize(form uint64) int {
	switch form {
	case formFlagPresent, formImplicitConst:
		return 0
	case formData1, formRef1, formFlag, formStrx1, formAddrx1:
		return 1
	case formData2, formRef2, formStrx2, formAddrx2:
		return 2
	case formStrx3, formAddrx3:
		return 3
	case formData4, formRef4, formRefSup4, formStrx4, formAddrx4:
		return 4
	case formData8, formRef8, formRefSig8, formRefSup8:
		return 8
	case formData16:
		return 16
	case formAddr:
		return int(s.u.addrSize)
	case formStrp, formSecOffset, formStrpSup, formLineStrp, formGNURefAlt, formGNUStrpAlt:
		return int(s.u.offSize)
	case formRefAddr:
		if s.u.version <= 2 {
			return int(s.u.addrSize)
		}
		return int(s.u.offSize)
	case formString, formBlock, formBlock1, formBlock2, formBlock4, formExprloc,
		formSdata, formUdata, formRefUdata, formIndirect, formStrx, formAddrx,
		formLoclistx, formRnglistx, formGNUAddrIndex, formGNUStrIndex:
		return -1
	}
	return -2
}

// newDieScanner reads unit u's abbreviations from abbrev; info holds the
// unit's bytes (info[u.off:u.end]).
func newDieScanner(info, abbrev []byte, u unitHeader, order ebin.ByteOrder) (*dieScanner, error) {
	if u.end > uint64(len(info)) || u.die > u.end || u.abbrevOff >= uint64(len(abbrev)) ||
		(u.addrSize != 4 && u.addrSize != 8) || (u.offSize != 4 && u.offSize != 8) {
		return nil, errScan
	}
	s := &dieScanner{b: info[:u.end], pos: int(u.die), u: u, order: order}
	_, err := parseAbbrevs(abbrev[u.abbrevOff:], func(code uint64, ab dieAbbrev) error {
		fixed := 0
		for _, form := range ab.forms {
			switch n := s.fixedSize(form); {
			case n == -2:
				return errScan
			case n < 0 || fixed < 0:
				fixed = -1
			default:
				fixed += n
			}
			if form == formRefAddr || form == formGNURefAlt || form == formIndirect {
				s.refs = true
			}
		}
		ab.fixed = fixed
		if ab.sibling >= 0 {
			ab.fixed = -1 // read attribute by attribute, for the sibling
		}
		switch {
		case code < 1<<12:
			if int(code) >= len(s.abbrevs) {
				s.abbrevs = append(s.abbrevs, make([]dieAbbrev, int(code)+1-len(s.abbrevs))...)
			}
			s.abbrevs[code] = ab
		default:
			if s.abbrevsM == nil {
				s.abbrevsM = map[uint64]*dieAbbrev{}
			}
			s.abbrevsM[code] = &ab
		}
		return nil
	})
	if err != nil {
		return nil, errScan
	}
	return s, nil
}

// errShort is an abbreviation table that goes on past the bytes given.
var errShort = errors.New("abbreviation table cut short")

// parseAbbrevs reads the abbreviation table at the start of a (up to the
// null code that ends it) and returns its length; add, where not nil, is
// given each abbreviation (its tag, children flag, forms and the index of
// DW_AT_sibling among them; an error from it stops the reading).
func parseAbbrevs(a []byte, add func(code uint64, ab dieAbbrev) error) (int, error) {
	p := 0
	uleb := func() (uint64, bool) {
		v, n := readULEB(a[p:])
		p += n
		return v, n > 0
	}
	for {
		code, ok := uleb()
		if !ok {
			return 0, errShort
		}
		if code == 0 {
			return p, nil
		}
		tag, ok := uleb()
		if !ok || p >= len(a) {
			return 0, errShort
		}
		ab := dieAbbrev{tag: dwarf.Tag(tag), children: a[p] != 0, ok: true, sibling: -1}
		p++
		for {
			attr, ok1 := uleb()
			form, ok2 := uleb()
			if !ok1 || !ok2 {
				return 0, errShort
			}
			if attr == 0 && form == 0 {
				break
			}
			if form == formImplicitConst { // its value follows (signed: its bytes read alike)
				if _, ok := uleb(); !ok {
					return 0, errShort
				}
			}
			switch dwarf.Attr(attr) {
			case dwarf.AttrSibling:
				ab.sibling = len(ab.forms)
			case dwarf.AttrLowpc, dwarf.AttrRanges:
				ab.code = true
			}
			ab.forms = append(ab.forms, form)
		}
		if add != nil {
			if err := add(code, ab); err != nil {
				return 0, err
			}
		}
	}
}

// readULEB reads an unsigned LEB128 number; n is 0 when b ends first or
// the number is longer than 10 bytes.
func readULEB(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		v |= uint64(c&0x7f) << (7 * uint(i))
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// entry reads the next entry's code at s.pos: its offset and abbreviation
// (nil for a null entry, which ends a list of children).
func (s *dieScanner) entry() (off uint64, ab *dieAbbrev, err error) {
	off = uint64(s.pos)
	if s.pos >= len(s.b) {
		return off, nil, errScan
	}
	code, n := readULEB(s.b[s.pos:])
	if n == 0 {
		return off, nil, errScan
	}
	s.pos += n
	if code == 0 {
		return off, nil, nil
	}
	if code < uint64(len(s.abbrevs)) {
		ab = &s.abbrevs[code]
	} else {
		ab = s.abbrevsM[code]
	}
	if ab == nil || !ab.ok {
		return off, nil, errScan
	}
	return off, ab, nil
}

// skipAttrs moves past an entry's attributes, and returns its sibling's
// offset (0: none given).
func (s *dieScanner) skipAttrs(ab *dieAbbrev) (sibling uint64, err error) {
	if ab.fixed >= 0 {
		if ab.fixed > len(s.b)-s.pos {
			return 0, errScan
		}
		s.pos += ab.fixed
		return 0, nil
	}
	for i, form := range ab.forms {
		start := s.pos
		if err := s.skipForm(form, 0); err != nil {
			return 0, err
		}
		if i == ab.sibling {
			sibling = s.refValue(form, s.b[start:s.pos])
		}
	}
	return sibling, nil
}

// refValue is the .debug_info offset a reference attribute's bytes give
// (0 for a form that is not a reference within the section).
func (s *dieScanner) refValue(form uint64, b []byte) uint64 {
	var v uint64
	switch form {
	case formRef1:
		v = uint64(b[0])
	case formRef2:
		v = uint64(s.order.Uint16(b))
	case formRef4:
		v = uint64(s.order.Uint32(b))
	case formRef8:
		v = s.order.Uint64(b)
	case formRefUdata:
		v, _ = readULEB(b)
	case formRefAddr:
		if len(b) == 8 {
			return s.order.Uint64(b)
		}
		return uint64(s.order.Uint32(b))
	default:
		return 0
	}
	return s.u.off + v
}

// skipForm moves past one attribute value of the form.
func (s *dieScanner) skipForm(form uint64, depth int) error {
	n := s.fixedSize(form)
	switch {
	case n >= 0:
	case n == -2:
		return errScan
	case form == formString:
		k := 0
		for k < len(s.b)-s.pos && s.b[s.pos+k] != 0 {
			k++
		}
		n = k + 1
	case form == formIndirect:
		f, k := readULEB(s.b[s.pos:])
		if k == 0 || depth > 0 {
			return errScan
		}
		s.pos += k
		return s.skipForm(f, depth+1)
	case form == formBlock1, form == formBlock2, form == formBlock4:
		w := 1
		if form == formBlock2 {
			w = 2
		} else if form == formBlock4 {
			w = 4
		}
		if w > len(s.b)-s.pos {
			return errScan
		}
		var l uint64
		switch w {
		case 1:
			l = uint64(s.b[s.pos])
		case 2:
			l = uint64(s.order.Uint16(s.b[s.pos:]))
		default:
			l = uint64(s.order.Uint32(s.b[s.pos:]))
		}
		s.pos += w
		if l > uint64(len(s.b)-s.pos) {
			return errScan
		}
		n = int(l)
	case form == formBlock, form == formExprloc:
		l, k := readULEB(s.b[s.pos:])
		if k == 0 {
			return errScan
		}
		s.pos += k
		if l > uint64(len(s.b)-s.pos) {
			return errScan
		}
		n = int(l)
	default: // a LEB128 number (sdata's bytes are read alike)
		_, k := readULEB(s.b[s.pos:])
		if k == 0 {
			return errScan
		}
		n = k
	}
	if n > len(s.b)-s.pos {
		return errScan
	}
	s.pos += n
	return nil
}

// skipChildren moves past the children of an entry whose attributes were
// just skipped: to its sibling where it gives one past them, else entry
// by entry to the null entry that ends them.
func (s *dieScanner) skipChildren(sibling uint64) error {
	// As the standard reader's SkipChildren does: a sibling at or past
	// the children's start.
	if sibling >= uint64(s.pos) && sibling <= uint64(len(s.b)) {
		s.pos = int(sibling)
		return nil
	}
	for depth := 1; depth > 0; {
		_, ab, err := s.entry()
		if err != nil {
			return err
		}
		if ab == nil {
			depth--
			continue
		}
		if _, err := s.skipAttrs(ab); err != nil {
			return err
		}
		if ab.children {
			depth++
		}
	}
	return nil
}
