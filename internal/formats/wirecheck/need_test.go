package wirecheck

import (
	"bytes"
	"testing"
)

// The estimate of real files stays well under the 14 times the input
// model.CheckMemory allows; empty samples are far over it.
func TestNeedOfRealFiles(t *testing.T) {
	for _, name := range []string{"otlp-dev/cpu.otlp", "dev:go/heap.pb.gz", "dev:go/cpu.pb.gz", "dev:go/goroutine.pb.gz", "otlp-dev/cpu.framed"} {
		data := fixture(t, name)
		p := NewProto(bytes.NewReader(data), 0, "otlp", true, devMD)
		if err := drain(p); err != nil {
			t.Fatal(err)
		}
		ratio := float64(p.Need()) / float64(len(data))
		t.Logf("%s: %d bytes, need %d (%.1fx)", name, len(data), p.Need(), ratio)
		if ratio > 10 {
			t.Errorf("%s: need %.1f times the input", name, ratio)
		}
	}
}
