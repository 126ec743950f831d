package cpuprofile

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
	f.Add([]byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"callFrame":{"functionName":"f","url":"a.js","lineNumber":3,"columnNumber":4}}],"startTime":0,"endTime":10,"samples":[2,2],"timeDeltas":[1,2]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
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
