package inflate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestGzip(t *testing.T) {
	plain := []byte("\x0a\x00 not gzipped")
	if got, err := Gzip(plain, 10, "x"); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("plain: %q, %v", got, err)
	}
	if got, err := Gzip(gz(plain), 100, "x"); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("gzipped: %q, %v", got, err)
	}
	for _, c := range []struct {
		data  []byte
		limit int64
		want  string
	}{
		{gz(make([]byte, 1<<20)), 1000, "x: gzip: decompressed data over 1000 bytes (its size trailer says 1048576)"},
		{gz(gz(plain)), 1000, "x: gzip inside gzip"},
		{gz(plain)[:20], 1000, "x: gzip:"},
	} {
		_, err := Gzip(c.data, c.limit, "x")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
	// A trailer that lies (the size modulo 2^32): the limit still holds
	// while inflating.
	z := gz(make([]byte, 5000))
	copy(z[len(z)-4:], []byte{1, 0, 0, 0})
	if _, err := Gzip(z, 1000, "x"); err == nil || !strings.Contains(err.Error(), "over 1000 bytes") {
		t.Errorf("lying trailer: %v", err)
	}
}
