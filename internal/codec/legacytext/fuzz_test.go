package legacytext

import (
	"os"
	"strings"
	"testing"
)

func FuzzDecode(f *testing.F) {
	for _, name := range fixtures(f) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A heap text read in runs is the text read whole.
		if whole, runs, ok := decodeBoth(t, data); ok && whole != runs {
			t.Fatalf("read in runs:\n%s\nwhole:\n%s", runs, whole)
		}
		p, err := Decode(data, Options{})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("invalid profile: %v", err)
		}
	})
}
