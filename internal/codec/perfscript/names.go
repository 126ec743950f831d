package perfscript

import (
	"path"
	"strings"
)

// frameName names a frame the way stackcollapse-perf.pl does, so that
// folded output matches it: "[unknown]" becomes the DSO's base name in
// brackets ("[libc.so.6]"); ';' becomes ':' (';' separates folded
// frames); a parameter list and what follows it is cut ("foo(int)" ->
// "foo", but not "(anonymous namespace)", nor a name like
// "pkg.(*T).M"); quotes are removed; in a process whose command starts
// with "java", a Java type's leading 'L' is removed
// ("Ljava/lang/Thread;::run" -> "java/lang/Thread:::run"). The symbol as
// perf printed it stays the function's system name.
func frameName(sym, dso string, java bool) string {
	if sym == "[unknown]" {
		if dso != "[unknown]" && dso != "" {
			return "[" + path.Base(dso) + "]"
		}
		return "[unknown]"
	}
	s := strings.ReplaceAll(sym, ";", ":")
	if !goMethod(s) {
		s = cutParams(s)
	}
	if strings.ContainsAny(s, "\"'") {
		s = strings.NewReplacer("\"", "", "'", "").Replace(s)
	}
	if java && strings.Contains(s, "/") {
		s = strings.TrimPrefix(s, "L")
	}
	return s
}

// goMethod reports whether s holds ".(" ... ")." as Go method names do
// ("main.(*T).M"), whose parentheses are not a parameter list.
func goMethod(s string) bool {
	i := strings.Index(s, ".(")
	if i < 0 {
		return false
	}
	return strings.Contains(s[i+2:], ").")
}

// cutParams cuts s at its first '(' that does not open
// "(anonymous namespace)".
func cutParams(s string) string {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '(')
		if i < 0 {
			return s
		}
		i += off
		if !strings.HasPrefix(s[i+1:], "anonymous namespace)") {
			return s[:i]
		}
		off = i + 1
	}
}
