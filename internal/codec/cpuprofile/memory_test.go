package cpuprofile

import (
	"bytes"
	"testing"

	"github.com/pprofx/pprofx/internal/testutil/memcheck"
)

// The JSON is read in place, not copied into a decoder's buffer grown as
// it reads: 1M samples of one node (4 MB of text) hold their two arrays
// of 8 bytes a sample (grown by append) and their profile.
func TestReadInPlace(t *testing.T) {
	const n = 1 << 20
	var text bytes.Buffer
	text.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},` +
		`{"id":2,"callFrame":{"functionName":"a","scriptId":"0","url":"","lineNumber":1,"columnNumber":1}}],"startTime":0,"endTime":1000000,"samples":[`)
	for i := range n {
		if i > 0 {
			text.WriteByte(',')
		}
		text.WriteByte('2')
	}
	text.WriteString(`],"timeDeltas":[`)
	for i := range n {
		if i > 0 {
			text.WriteByte(',')
		}
		text.WriteByte('1')
	}
	text.WriteString(`]}`)
	data := text.Bytes()
	peak := memcheck.Peak(func() {
		if _, err := Decode(data, Options{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d samples in %d bytes: %.1f MiB held at most", n, len(data), float64(peak)/(1<<20))
	// 6.6 times the text; 8.5 while a decoder copied it.
	if bound := 8 * uint64(len(data)); peak > bound {
		t.Errorf("reading held %d bytes at once, want %d at most (8 times the text)", peak, bound)
	}
}
