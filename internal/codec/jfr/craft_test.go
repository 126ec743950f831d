package jfr

import (
	"strings"
	"testing"
)

// RepeatEvent makes a recording that reads as the first chunk with n
// more samples of the event repeated.
func TestRepeatEvent(t *testing.T) {
	rec := fixtures(t)["cpu.jfr"]
	one, _, err := DecodeBytes(rec[:parseHeader(rec).size], Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := RepeatEvent(rec, "jdk.ExecutionSample", 1000)
	if err != nil {
		t.Fatal(err)
	}
	more, info, err := DecodeBytes(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Chunks != 1 || len(more.Samples) != len(one.Samples)+1000 {
		t.Errorf("%d chunks, %d samples, want 1 and %d", info.Chunks, len(more.Samples), len(one.Samples)+1000)
	}
	if _, err := RepeatEvent(rec, "jdk.NoSuchEvent", 1); err == nil || !strings.Contains(err.Error(), "no jdk.NoSuchEvent event") {
		t.Errorf("an event type the chunk lacks: %v", err)
	}
}
