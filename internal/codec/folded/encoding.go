package folded

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// textReader returns r as UTF-8 text: a UTF-8 byte order mark is
// skipped, UTF-16 after its byte order mark (little- or big-endian, as
// Windows tools write it) is decoded as it is read.
func textReader(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	bom, _ := br.Peek(3)
	switch {
	case len(bom) >= 3 && bom[0] == 0xef && bom[1] == 0xbb && bom[2] == 0xbf:
		br.Discard(3)
	case len(bom) >= 2 && (bom[0] == 0xff && bom[1] == 0xfe || bom[0] == 0xfe && bom[1] == 0xff):
		be := bom[0] == 0xfe
		br.Discard(2)
		return &utf16Reader{r: br, be: be, off: 2}, nil
	}
	return br, nil
}

// utf16Reader decodes UTF-16 into UTF-8.
type utf16Reader struct {
	r   *bufio.Reader
	be  bool
	off int64 // byte offset in the input, for errors
	out []byte
	err error
}

func (u *utf16Reader) unit() (uint16, error) {
	var b [2]byte
	n, err := io.ReadFull(u.r, b[:])
	u.off += int64(n)
	if err == io.ErrUnexpectedEOF {
		return 0, fmt.Errorf("UTF-16 text ends in half a character (byte %d)", u.off-1)
	}
	if err != nil {
		return 0, err
	}
	if u.be {
		return uint16(b[0])<<8 | uint16(b[1]), nil
	}
	return uint16(b[1])<<8 | uint16(b[0]), nil
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) < len(p) && u.err == nil {
		c, err := u.unit()
		if err != nil {
			u.err = err
			break
		}
		r := rune(c)
		if utf16.IsSurrogate(r) {
			c2, err := u.unit()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = fmt.Errorf("UTF-16 text ends in half a surrogate pair (byte %d)", u.off)
				}
				u.err = err
				break
			}
			if r = utf16.DecodeRune(r, rune(c2)); r == utf8.RuneError {
				u.err = fmt.Errorf("UTF-16 text: an unpaired surrogate at byte %d", u.off-4)
				break
			}
		}
		u.out = utf8.AppendRune(u.out, r)
	}
	n := copy(p, u.out)
	u.out = u.out[:copy(u.out, u.out[n:])]
	if n > 0 {
		return n, nil
	}
	return 0, u.err
}
