package pprof

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprofx/pprofx/internal/model"
)

// countSampleFields counts what the decoder will take from a sample: its
// location ids and values, packed or one per field.
func TestCountSampleFields(t *testing.T) {
	var packed []byte
	packed = protowire.AppendTag(packed, 1, protowire.BytesType)
	packed = protowire.AppendBytes(packed, protowire.AppendVarint(protowire.AppendVarint([]byte{1}, 300), 70000)) // 3 ids
	packed = protowire.AppendTag(packed, 2, protowire.BytesType)
	packed = protowire.AppendBytes(packed, protowire.AppendVarint([]byte{5}, 1<<40)) // 2 values
	packed = protowire.AppendTag(packed, 3, protowire.BytesType)                     // a label
	packed = protowire.AppendBytes(packed, []byte{0x08, 0x01, 0x10, 0x02})
	var single []byte
	for _, id := range []uint64{7, 8} {
		single = protowire.AppendTag(single, 1, protowire.VarintType)
		single = protowire.AppendVarint(single, id)
	}
	single = protowire.AppendTag(single, 2, protowire.VarintType)
	single = protowire.AppendVarint(single, 1000)
	for _, c := range []struct {
		name        string
		b           []byte
		ids, values int
	}{
		{"packed", packed, 3, 2},
		{"one per field", single, 2, 1},
		{"empty", nil, 0, 0},
		// A length past the end: every byte left counts as an id and a value.
		{"truncated", []byte{0x0a, 0x7f, 0x01}, 2, 2},
	} {
		ids, values := countSampleFields(c.b)
		if ids != c.ids || values != c.values {
			t.Errorf("%s: %d ids and %d values, want %d and %d", c.name, ids, values, c.ids, c.values)
		}
	}
}

// A sample's values count against the budget, each of them: under a
// memory limit, 200 samples of 4000 one-byte values (800 KB) take 6.4 MB
// in the model, more than a limit of 4 MB leaves, and are refused before
// they are allocated.
func TestBudgetCountsEveryValue(t *testing.T) {
	const types, samples = 4000, 200
	var b []byte
	for _, s := range []string{"", "t"} {
		b = protowire.AppendTag(b, fStringTable, protowire.BytesType)
		b = protowire.AppendBytes(b, []byte(s))
	}
	for range types {
		b = protowire.AppendTag(b, fSampleType, protowire.BytesType)
		b = protowire.AppendBytes(b, []byte{0x08, 0x01, 0x10, 0x01})
	}
	vals := make([]byte, types)
	for range samples {
		var sample []byte
		sample = protowire.AppendTag(sample, 2, protowire.BytesType)
		sample = protowire.AppendBytes(sample, vals)
		b = protowire.AppendTag(b, fSample, protowire.BytesType)
		b = protowire.AppendBytes(b, sample)
	}
	if _, err := DecodeRaw(b); err != nil {
		t.Fatalf("without a limit: %v", err)
	}
	model.SetMemoryAvailable(4 << 20)
	defer model.SetMemoryAvailable(0)
	_, err := DecodeRaw(b)
	if err == nil || !strings.Contains(err.Error(), "the memory limit leaves") {
		t.Errorf("%d samples of %d values in %d bytes under a 4 MiB limit: %v, want a refusal", samples, types, len(b), err)
	}
}

// Location ids count as the model holds them: 2 bytes each in a profile
// of at most 65536 locations. One sample of 1M one-byte ids (1 MiB) takes
// 3 MiB with its input: decoded under a limit that leaves 3.5 MiB,
// refused under 2.5 MiB.
func TestBudgetCountsNarrowFrames(t *testing.T) {
	var b []byte
	for _, s := range []string{"", "t"} {
		b = protowire.AppendTag(b, fStringTable, protowire.BytesType)
		b = protowire.AppendBytes(b, []byte(s))
	}
	b = protowire.AppendTag(b, fSampleType, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte{0x08, 0x01, 0x10, 0x01})
	b = protowire.AppendTag(b, fLocation, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte{0x08, 0x01}) // id 1
	ids := make([]byte, 1<<20)
	for i := range ids {
		ids[i] = 1
	}
	var sample []byte
	sample = protowire.AppendTag(sample, 1, protowire.BytesType)
	sample = protowire.AppendBytes(sample, ids)
	sample = protowire.AppendTag(sample, 2, protowire.VarintType)
	sample = protowire.AppendVarint(sample, 1)
	b = protowire.AppendTag(b, fSample, protowire.BytesType)
	b = protowire.AppendBytes(b, sample)
	defer model.SetMemoryAvailable(0)
	model.SetMemoryAvailable(7 << 19)
	p, err := DecodeRaw(b)
	if err != nil {
		t.Fatalf("under 3.5 MiB: %v", err)
	}
	if n := p.Stacks.StackLen(0); n != len(ids) {
		t.Fatalf("%d frames, want %d", n, len(ids))
	}
	model.SetMemoryAvailable(5 << 19)
	if _, err := DecodeRaw(b); err == nil || !strings.Contains(err.Error(), "the memory limit leaves") {
		t.Errorf("under 2.5 MiB: %v, want a refusal", err)
	}
}
