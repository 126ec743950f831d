package filter

import (
	"testing"
)

func TestParseTagRanges(t *testing.T) {
	units := map[string]string{"bytes": "bytes", "lat": "ms"}
	for _, c := range []struct {
		expr  string
		key   string
		v     int64
		match bool
	}{
		{"1kb:10kb", "bytes", 1024, true}, // kb = 1024
		{"1kb:10kb", "bytes", 1023, false},
		{"1kb:10kb", "bytes", 10240, true},
		{"1kb:10kb", "bytes", 10241, false},
		{"bytes=32kb", "bytes", 32 << 10, true},
		{"bytes=32kb", "bytes", 32<<10 + 1, false},
		{"other=32kb", "bytes", 32 << 10, false}, // another key
		{":64b", "bytes", 64, true},
		{":64b", "bytes", 65, false},
		{"4mb:", "bytes", 4 << 20, true},
		{"4mb:", "bytes", 4<<20 - 1, false},
		{"1s:", "lat", 1000, true}, // ms scaled to s
		{"1s:", "lat", 999, false},
		{"1s:", "bytes", 1 << 40, false}, // another unit family
		{"-5:5", "n", 0, true},
	} {
		tf, err := parseTag(c.expr)
		if err != nil || !tf.numeric {
			t.Fatalf("%q: %v, numeric %v", c.expr, err, tf != nil && tf.numeric)
		}
		ls := &sampleLabels{num: []numLabel{{c.key, c.v}}}
		if got := tf.match(ls, units); got != c.match {
			t.Errorf("%q on %s=%d: %v, want %v", c.expr, c.key, c.v, got, c.match)
		}
	}
}

func TestParseTagRegexps(t *testing.T) {
	ls := &sampleLabels{str: []strLabel{{"workload", "hash"}, {"tenant", "a"}}}
	for _, c := range []struct {
		expr  string
		match bool
	}{
		{"workload=hash,json", true},     // with a key: any regexp
		{"workload=json", false},         //
		{"tenant:a,workload:hash", true}, // without: every regexp, on key:value
		{"tenant:a,workload:json", false},
		{"hash", true},
		{"1kb:2kb:3kb", false}, // no range: a regexp that matches nothing here
	} {
		tf, err := parseTag(c.expr)
		if err != nil || tf.numeric {
			t.Fatalf("%q: %v", c.expr, err)
		}
		if got := tf.match(ls, nil); got != c.match {
			t.Errorf("%q: %v, want %v", c.expr, got, c.match)
		}
	}
	for _, bad := range []string{"key=(", "a,[", "99999999999999999999", "1kb:99999999999999999999kb"} {
		if _, err := parseTag(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzParseTag: any expression compiles or is an error; never a panic
// (pprof's driver panics on numbers beyond 64 bits), and a compiled
// filter runs on labels.
func FuzzParseTag(f *testing.F) {
	for _, s := range []string{"bytes=1kb:10kb", "16", ":64b", "4mb:", "k=a,b", "a:b,c:d", "-5:+5", "1s:2ms", "x=", "=", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		tf, err := parseTag(expr)
		if err != nil {
			return
		}
		ls := &sampleLabels{str: []strLabel{{"k", "v"}}, num: []numLabel{{"bytes", 1 << 20}, {"k", -3}}}
		tf.match(ls, map[string]string{"bytes": "bytes", "k": "k"})
	})
}
