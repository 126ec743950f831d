package wirecheck

import (
	"bytes"
	"testing"
)

func BenchmarkCheck(b *testing.B) {
	data := fixture(b, "exp:go/heap.pb.gz")
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		_ = drain(NewProto(bytes.NewReader(data), 0, "otlp", false, expMD, devMD))
	}
}
