package bundle

import (
	"bytes"
	"strings"
	"testing"
)

// What one profile expands to counts against OpenLimit's limit: 4096
// samples sharing one row of 1000 values are 33 MB of values, however few
// bytes the section spends on them.
func TestLimitCountsSamplesValues(t *testing.T) {
	data, err := bundleOf(wideRows(1000, 4096))
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenLimit(bytes.NewReader(data), int64(len(data)), 8<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Profile(0); err == nil || !strings.Contains(err.Error(), "(--max-input-size)") {
		t.Fatalf("err = %v, want the limit named", err)
	}
	r, err = OpenLimit(bytes.NewReader(data), int64(len(data)), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Profile(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Samples) != 4096 || len(p.Samples[4095].Values()) != 1000 || p.Samples[4095].Values()[999] != 999 {
		t.Fatalf("read %d samples", len(p.Samples))
	}
}

// LimitTotal bounds the profiles read together: each fits the limit, the
// three of them do not.
func TestLimitTotal(t *testing.T) {
	p := wideRows(100, 1000) // about 0.9 MB each once read
	data, err := bundleOf(p, p, p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenLimit(bytes.NewReader(data), int64(len(data)), 2<<20)
	if err != nil {
		t.Fatal(err)
	}
	r.LimitTotal(2 << 20)
	for i := 0; i < 2; i++ {
		if _, err := r.Profile(i); err != nil {
			t.Fatalf("profile %d: %v", i, err)
		}
	}
	if _, err := r.Profile(2); err == nil || !strings.Contains(err.Error(), "--max-input-size") {
		t.Fatalf("profile 2: err = %v, want the total limit reached", err)
	}
}
