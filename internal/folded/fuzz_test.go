package folded_test

import (
	"bytes"
	"testing"

	"github.com/pprofx/pprofx/internal/folded"
)

func FuzzDecode(f *testing.F) {
	f.Add([]byte("a;b;c 42\nmain;x_[j] 3\n"))
	f.Add([]byte("a 1\n\n b;;c 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := folded.Decode(bytes.NewReader(data), folded.ReadOptions{})
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("invalid profile: %v", err)
		}
		var out bytes.Buffer
		if err := folded.Encode(&out, p, folded.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}
