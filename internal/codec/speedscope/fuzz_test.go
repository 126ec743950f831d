package speedscope_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/speedscope"
	"github.com/pprofx/pprofx/internal/testutil/viewtest"
)

func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(viewtest.Root(), "testdata", "speedscope", "*.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) < 16<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := speedscope.Decode(data, speedscope.ReadOptions{})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		for _, p := range ps {
			if err := p.Profile.Validate(); err != nil {
				t.Fatalf("invalid profile: %v", err)
			}
		}
	})
}
