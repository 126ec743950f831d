package jfr

import (
	"testing"
)

// FuzzDecode: no input makes Decode panic, hang or allocate beyond what
// the input's size allows; what it accepts is a valid model profile.
func FuzzDecode(f *testing.F) {
	for name, b := range fixtures(f) {
		if len(b) < 160<<10 || name == "jfr-parser/nativemem.jfr.gz" {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, _, err := DecodeBytes(b, Options{Salvage: len(b)%2 == 0})
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("decoded an invalid profile: %v", err)
		}
	})
}
