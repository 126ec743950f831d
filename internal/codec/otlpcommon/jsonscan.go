package otlpcommon

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// tokenSource is what JSONToBinary reads a text with: encoding/json's
// Decoder (with UseNumber), or jsonScanner, which reads the same tokens
// from a text held in memory.
type tokenSource interface {
	Token() (json.Token, error)
	More() bool
	InputOffset() int64
}

// jsonScanner reads the tokens of a JSON text in memory as
// encoding/json's Decoder.Token does with UseNumber: delimiters as
// json.Delim, strings unquoted (bytes that are not UTF-8 and lone
// surrogates as U+FFFD), numbers as json.Number, true, false and nil;
// commas and colons checked and passed over; io.EOF at the end. The
// Decoder reads each scalar by decoding a value, which builds an error
// message to find where the value ends: most of the time OTLP JSON took
// to read (BenchmarkJSONToBinary compares the two).
type jsonScanner struct {
	data  []byte
	pos   int    // the next byte
	end   int    // InputOffset: where the last token ended
	stack []byte // the open containers, '{' or '['
	state scanState
	buf   []byte // a string being unquoted
}

// scanState is what the scanner expects next, as the Decoder's tokenState.
type scanState uint8

const (
	sTop         scanState = iota // a value at the top level
	sArrayStart                   // after '[': a value or ']'
	sArrayValue                   // after an element: ',' or ']'
	sArrayComma                   // after ',': a value
	sObjectStart                  // after '{': a key or '}'
	sObjectKey                    // after a key: ':'
	sObjectColon                  // after ':': a value
	sObjectValue                  // after a value: ',' or '}'
	sObjectComma                  // after ',': a key
)

func newJSONScanner(data []byte) *jsonScanner { return &jsonScanner{data: data} }

func (s *jsonScanner) InputOffset() int64 { return int64(s.end) }

// scanError is a syntax error: its message, as encoding/json's
// SyntaxError has it, and the offset of the bad byte.
type scanError struct {
	msg    string
	Offset int64
}

func (e *scanError) Error() string { return e.msg }

// quoteChar quotes c as encoding/json's messages do.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

func (s *jsonScanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

// More reports whether there is another element in the array or object
// being read, as the Decoder's More does.
func (s *jsonScanner) More() bool {
	s.space()
	return s.pos < len(s.data) && s.data[s.pos] != ']' && s.data[s.pos] != '}'
}

func (s *jsonScanner) valueEnd() {
	switch s.state {
	case sArrayStart, sArrayComma:
		s.state = sArrayValue
	case sObjectColon:
		s.state = sObjectValue
	}
}

func (s *jsonScanner) pop() {
	s.stack = s.stack[:len(s.stack)-1]
	switch {
	case len(s.stack) == 0:
		s.state = sTop
	case s.stack[len(s.stack)-1] == '[':
		s.state = sArrayValue
	default:
		s.state = sObjectValue
	}
}

// Token returns the next token, as the Decoder's Token does.
func (s *jsonScanner) Token() (json.Token, error) {
	for {
		s.space()
		if s.pos >= len(s.data) {
			return nil, io.EOF
		}
		c := s.data[s.pos]
		switch c {
		case '[', '{':
			if err := s.valueAllowed(c); err != nil {
				return nil, err
			}
			s.pos++
			s.end = s.pos
			s.stack = append(s.stack, c)
			if c == '[' {
				s.state = sArrayStart
			} else {
				s.state = sObjectStart
			}
			return json.Delim(c), nil
		case ']':
			if s.state != sArrayStart && s.state != sArrayValue {
				return nil, s.unexpected(c)
			}
			s.pos++
			s.end = s.pos
			s.pop()
			return json.Delim(c), nil
		case '}':
			if s.state != sObjectStart && s.state != sObjectValue {
				return nil, s.unexpected(c)
			}
			s.pos++
			s.end = s.pos
			s.pop()
			return json.Delim(c), nil
		case ':':
			if s.state != sObjectKey {
				return nil, s.unexpected(c)
			}
			s.pos++
			s.end = s.pos
			s.state = sObjectColon
			continue
		case ',':
			switch s.state {
			case sArrayValue:
				s.state = sArrayComma
			case sObjectValue:
				s.state = sObjectComma
			default:
				return nil, s.unexpected(c)
			}
			s.pos++
			s.end = s.pos
			continue
		case '"':
			if s.state == sObjectStart || s.state == sObjectComma {
				str, err := s.str()
				if err != nil {
					return nil, err
				}
				s.state = sObjectKey
				return str, nil
			}
		}
		if err := s.valueAllowed(c); err != nil {
			return nil, err
		}
		v, err := s.scalar()
		if err != nil {
			return nil, err
		}
		s.valueEnd()
		return v, nil
	}
}

// valueAllowed says what is wrong with a value starting with c here.
func (s *jsonScanner) valueAllowed(c byte) error {
	switch s.state {
	case sTop, sArrayStart, sArrayComma, sObjectColon:
		return nil
	}
	return s.unexpected(c)
}

// unexpected is the error of a byte c where it cannot be.
func (s *jsonScanner) unexpected(c byte) error {
	var after string
	switch s.state {
	case sTop, sArrayStart, sArrayComma, sObjectColon:
		after = "looking for beginning of value"
	case sArrayValue:
		after = "after array element"
	case sObjectStart:
		// encoding/json names no context here.
		return &scanError{msg: "invalid character " + quoteChar(c), Offset: int64(s.pos)}
	case sObjectComma:
		after = "looking for beginning of object key string"
	case sObjectKey:
		after = "after object key"
	case sObjectValue:
		after = "after object key:value pair"
	}
	return &scanError{msg: "invalid character " + quoteChar(c) + " " + after, Offset: int64(s.pos)}
}

// scalar reads a string, number or literal at s.pos.
func (s *jsonScanner) scalar() (json.Token, error) {
	c := s.data[s.pos]
	switch {
	case c == '"':
		return s.str()
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return true, s.literal("true")
	case c == 'f':
		return false, s.literal("false")
	case c == 'n':
		return nil, s.literal("null")
	}
	return nil, &scanError{msg: "invalid character " + quoteChar(c) + " looking for beginning of value", Offset: int64(s.pos)}
}

func (s *jsonScanner) literal(word string) error {
	for i := 1; i < len(word); i++ {
		p := s.pos + i
		if p >= len(s.data) {
			return io.ErrUnexpectedEOF
		}
		if s.data[p] != word[i] {
			return &scanError{msg: fmt.Sprintf("invalid character %s in literal %s (expecting %s)", quoteChar(s.data[p]), word, quoteChar(word[i])), Offset: int64(p)}
		}
	}
	s.pos += len(word)
	s.end = s.pos
	return nil
}

// number reads a number as JSON's grammar has it.
func (s *jsonScanner) number() (json.Token, error) {
	d, i := s.data, s.pos
	digits := func(what string) error {
		if i >= len(d) {
			return io.ErrUnexpectedEOF
		}
		if d[i] < '0' || d[i] > '9' {
			return &scanError{msg: "invalid character " + quoteChar(d[i]) + " " + what, Offset: int64(i)}
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return nil
	}
	if d[i] == '-' {
		i++
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else if err := digits("in numeric literal"); err != nil {
		return nil, err
	}
	if i < len(d) && d[i] == '.' {
		i++
		if err := digits("after decimal point in numeric literal"); err != nil {
			return nil, err
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if err := digits("in exponent of numeric literal"); err != nil {
			return nil, err
		}
	}
	n := json.Number(d[s.pos:i])
	s.pos, s.end = i, i
	return n, nil
}

// str reads a string at s.pos, unquoted.
func (s *jsonScanner) str() (string, error) {
	d := s.data
	start := s.pos + 1
	i := start
	// Most strings have nothing to unquote: ASCII without escapes.
	for i < len(d) {
		c := d[i]
		if c == '"' {
			v := string(d[start:i])
			s.pos, s.end = i+1, i+1
			return v, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	b := append(s.buf[:0], d[start:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			s.buf = b
			s.pos, s.end = i+1, i+1
			return string(b), nil
		case c < 0x20:
			return "", &scanError{msg: "invalid character " + quoteChar(c) + " in string literal", Offset: int64(i)}
		case c == '\\':
			if i+1 >= len(d) {
				return "", io.ErrUnexpectedEOF
			}
			e := d[i+1]
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok, err := hex4(d, i+2)
				if err != nil {
					return "", err
				}
				i += 6
				if !ok {
					continue
				}
				if utf16.IsSurrogate(r) {
					// A pair, or U+FFFD for a lone half.
					if r2, ok2, _ := hex4(d, i+2); i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' && ok2 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", &scanError{msg: "invalid character " + quoteChar(e) + " in string escape code", Offset: int64(i + 1)}
			}
			i += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, d[i:i+size]...)
			}
			i += size
		}
	}
	return "", io.ErrUnexpectedEOF
}

// hex4 reads the 4 hex digits of a \u escape at d[i:]: the rune, whether
// they were 4 hex digits, and an error when they are not.
func hex4(d []byte, i int) (rune, bool, error) {
	if i+4 > len(d) {
		for j := i; j < len(d); j++ {
			if !isHex(d[j]) {
				return 0, false, &scanError{msg: "invalid character " + quoteChar(d[j]) + " in \\u hexadecimal character escape", Offset: int64(j)}
			}
		}
		return 0, false, io.ErrUnexpectedEOF
	}
	var r rune
	for j := i; j < i+4; j++ {
		c := d[j]
		if !isHex(c) {
			return 0, false, &scanError{msg: "invalid character " + quoteChar(c) + " in \\u hexadecimal character escape", Offset: int64(j)}
		}
		r <<= 4
		switch {
		case c <= '9':
			r |= rune(c - '0')
		case c >= 'a':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r, true, nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// JSONValues returns where each value of a text of JSON values one after
// another (JSON lines, or one value) begins and ends, read as
// encoding/json's Decoder reads them until More says none follows (a ']'
// or '}' after a value ends the text). A syntax error or a value cut
// short ends the reading: err says what and where ("byte N: ..."),
// spans the values before it.
func JSONValues(data []byte) (spans [][2]int, err error) {
	s := newJSONScanner(data)
	r := &jsonReader{dec: s}
	for {
		s.space()
		start := s.pos
		if start == len(data) {
			if len(spans) == 0 {
				return nil, fmt.Errorf("byte %d: %v", start, io.EOF)
			}
			return spans, nil
		}
		tok, err := r.token()
		if err == nil {
			err = r.skip(tok)
		}
		if err != nil {
			return spans, err
		}
		spans = append(spans, [2]int{start, s.end})
		if !s.More() {
			return spans, nil
		}
	}
}
