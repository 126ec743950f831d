package otlp

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
)

// Writing JSON reads the binary encoding into the generated structs and
// renders them: 14 times its bytes are held to what the memory limit
// leaves before either starts.
func TestJSONHeldToTheLimit(t *testing.T) {
	p, _ := heapProfile(t)
	ps := []*model.Profile{p}
	bin, err := AppendProto(nil, ps, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer model.SetMemoryAvailable(0)
	model.SetMemoryInUse(func() int64 { return 0 }, 0)
	model.SetMemoryAvailable(14*int64(len(bin)) - 1)
	var buf bytes.Buffer
	if err := EncodeJSON(&buf, ps, EncodeOptions{}); err == nil || !strings.Contains(err.Error(), "as JSON would take") {
		t.Fatalf("under 14 x %d - 1 bytes: %v, want a refusal", len(bin), err)
	}
	model.SetMemoryAvailable(14 * int64(len(bin)))
	if err := EncodeJSON(&buf, ps, EncodeOptions{}); err != nil || buf.Len() == 0 {
		t.Fatalf("under 14 x %d bytes: %v", len(bin), err)
	}
}
