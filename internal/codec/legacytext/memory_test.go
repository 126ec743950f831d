package legacytext

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
)

// Under a memory limit, a text whose reading by google/pprof would take
// more than the limit leaves is refused in one line before it starts
// (each 18-byte heap line takes that reading about 750 bytes); every
// fixture is read under a limit of 16 MiB.
func TestRefusedUnderLimit(t *testing.T) {
	var text bytes.Buffer
	text.WriteString("heap profile: 1: 1 [1: 1] @ heap/1048576\n")
	for range 100_000 {
		text.WriteString("1: 1 [1: 1] @ 0x1\n")
	}
	defer model.SetMemoryAvailable(0)
	model.SetMemoryInUse(func() int64 { return 0 }, 0)
	model.SetMemoryAvailable(16 << 20)
	_, err := Decode(text.Bytes(), Options{})
	if err == nil || !strings.Contains(err.Error(), "google/pprof's reading of 100002 lines") || !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("%d bytes of heap lines under a limit of 16 MiB: %v, want a one-line refusal", text.Len(), err)
	}
	for _, f := range fixtures(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(data, Options{}); err != nil {
			t.Errorf("%s under a limit of 16 MiB: %v", f, err)
		}
	}
	model.SetMemoryAvailable(0)
	if _, err := Decode(text.Bytes(), Options{}); err != nil {
		t.Errorf("without a limit: %v", err)
	}
}
