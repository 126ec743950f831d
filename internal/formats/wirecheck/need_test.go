package wirecheck

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
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

// A packed varint field is counted by its numbers, at their size in
// memory: a stack's location indices of 3 bytes each take 4 bytes once
// parsed, not 8 a byte (24), whether the bytes come at once or one by one.
func TestNeedCountsPackedVarints(t *testing.T) {
	need := func(n int, oneByte bool) int64 {
		t.Helper()
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = 100_000 + int32(i) // 3 bytes as a varint
		}
		pd := &devprofilespb.ProfilesData{Dictionary: &devprofilespb.ProfilesDictionary{
			StackTable: []*devprofilespb.Stack{{}, {LocationIndices: idx}}}}
		data, err := proto.Marshal(pd)
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = bytes.NewReader(data)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		p := NewProto(r, 0, "otlp", false, devMD)
		if err := drain(p); err != nil {
			t.Fatal(err)
		}
		return p.Need()
	}
	for _, oneByte := range []bool{false, true} {
		if d := need(2000, oneByte) - need(1000, oneByte); d != 4*1000 {
			t.Errorf("one byte at a time %v: 1000 more indices need %d more bytes, want 4000", oneByte, d)
		}
	}
}
