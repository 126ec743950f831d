package otlpcommon

import (
	"bytes"
	"encoding/hex"
	"strconv"

	"github.com/pprofx/pprofx/internal/model"
)

// ValueText renders an attribute value as text: strings as they are,
// numbers and booleans in Go syntax, bytes in hex, arrays as [a,b] and maps
// as {k=v,...}.
func ValueText(v model.Value) string { return formatValue(v) }

// formatValue renders v as text, for a label or a comment; see ValueText.
func formatValue(v model.Value) string {
	switch v.Kind {
	case model.KindString:
		return v.Str
	case model.KindBool:
		return strconv.FormatBool(v.Bool)
	case model.KindInt:
		return strconv.FormatInt(v.Int, 10)
	case model.KindDouble:
		return strconv.FormatFloat(v.Double, 'g', -1, 64)
	case model.KindBytes:
		return hex.EncodeToString(v.Bytes)
	case model.KindArray:
		var buf bytes.Buffer
		buf.WriteByte('[')
		for i, e := range v.Array {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(formatValue(e))
		}
		buf.WriteByte(']')
		return buf.String()
	case model.KindMap:
		var buf bytes.Buffer
		buf.WriteByte('{')
		for i, a := range v.Map {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(a.Key)
			buf.WriteByte('=')
			buf.WriteString(formatValue(a.Value))
		}
		buf.WriteByte('}')
		return buf.String()
	}
	return ""
}
