package wirecheck

import (
	"fmt"
	"io"
)

// JSON passes a stream of JSON values (one, or several one after the
// other: JSON lines) through and checks their syntax as the bytes arrive:
// a byte no JSON text can hold there (a NUL, a control character in a
// string, a closing bracket that closes nothing, a key that is no string)
// fails at that byte. Numbers are only checked to be made of number
// characters; the decoder reads them.
type JSON struct {
	r     io.Reader
	name  string
	off   int64
	stack []byte // the open containers: '{' or '['
	state int
	lit   string // the rest of a literal (true, false, null) being read
	hex   int    // hex digits left of a \u escape
	err   error
}

// NewJSON checks r; errors start with name ("otlp json").
func NewJSON(r io.Reader, name string) *JSON { return &JSON{r: r, name: name} }

const (
	jValue      = iota // a value must come (after ':' or ',' in an array; at the top any number of them)
	jValueOrEnd        // after '[': a value or ']'
	jKeyOrEnd          // after '{': a key or '}'
	jKey               // after ',' in an object
	jColon             // after a key
	jAfter             // after a value in a container: ',' or its end
	jString            // in a string value
	jKeyString         // in a key
	jEscape            // after '\' (in a value)
	jKeyEscape         // after '\' (in a key)
	jHex               // in \uXXXX (in a value)
	jKeyHex            // in \uXXXX (in a key)
	jNumber
	jLiteral
)

func (j *JSON) Read(p []byte) (int, error) {
	if j.err != nil {
		return 0, j.err
	}
	n, err := j.r.Read(p)
	if e := j.check(p[:n]); e != nil {
		j.err = e
		return 0, e
	}
	return n, err
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (j *JSON) fail(c byte, what string) error {
	return fmt.Errorf("%s: byte %d: invalid character %q %s", j.name, j.off, c, what)
}

// ended moves on after a value: in a container, ',' or its end must come;
// at the top, another value may.
func (j *JSON) ended() {
	if len(j.stack) == 0 {
		j.state = jValue
	} else {
		j.state = jAfter
	}
}

func (j *JSON) check(b []byte) error {
	for i := 0; i < len(b); i, j.off = i+1, j.off+1 {
		c := b[i]
	again:
		switch j.state {
		case jString, jKeyString:
			switch {
			case c == '"':
				if j.state == jKeyString {
					j.state = jColon
				} else {
					j.ended()
				}
			case c == '\\':
				j.state += jEscape - jString
			case c < 0x20:
				return j.fail(c, "in a string")
			}
		case jEscape, jKeyEscape:
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j.state -= jEscape - jString
			case 'u':
				j.state += jHex - jEscape
				j.hex = 4
			default:
				return j.fail(c, "in a string escape")
			}
		case jHex, jKeyHex:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return j.fail(c, "in a \\u escape")
			}
			if j.hex--; j.hex == 0 {
				j.state -= jHex - jString
			}
		case jNumber:
			if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
				continue
			}
			j.ended()
			goto again
		case jLiteral:
			if c != j.lit[0] {
				return j.fail(c, "in a literal")
			}
			if j.lit = j.lit[1:]; j.lit == "" {
				j.ended()
			}
		case jColon:
			if isSpace(c) {
				continue
			}
			if c != ':' {
				return j.fail(c, "after an object key")
			}
			j.state = jValue
		case jKeyOrEnd, jKey:
			switch {
			case isSpace(c):
			case c == '"':
				j.state = jKeyString
			case c == '}' && j.state == jKeyOrEnd:
				j.stack = j.stack[:len(j.stack)-1]
				j.ended()
			default:
				return j.fail(c, "looking for an object key")
			}
		case jAfter:
			top := j.stack[len(j.stack)-1]
			switch {
			case isSpace(c):
			case c == ',' && top == '{':
				j.state = jKey
			case c == ',':
				j.state = jValue
			case c == '}' && top == '{' || c == ']' && top == '[':
				j.stack = j.stack[:len(j.stack)-1]
				j.ended()
			default:
				return j.fail(c, "after a value")
			}
		case jValue, jValueOrEnd:
			switch {
			case isSpace(c):
			case c == ']' && j.state == jValueOrEnd:
				j.stack = j.stack[:len(j.stack)-1]
				j.ended()
			case c == '{' || c == '[':
				if len(j.stack) >= maxDepth {
					return j.fail(c, "nested too deep")
				}
				j.stack = append(j.stack, c)
				j.state = jKeyOrEnd
				if c == '[' {
					j.state = jValueOrEnd
				}
			case c == '"':
				j.state = jString
			case c == '-' || c >= '0' && c <= '9':
				j.state = jNumber
			case c == 't':
				j.state, j.lit = jLiteral, "rue"
			case c == 'f':
				j.state, j.lit = jLiteral, "alse"
			case c == 'n':
				j.state, j.lit = jLiteral, "ull"
			default:
				return j.fail(c, "looking for a value")
			}
		}
	}
	return nil
}
