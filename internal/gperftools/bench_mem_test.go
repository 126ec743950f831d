package gperftools

import (
	"bytes"
	"os"
	"testing"
)

func BenchmarkDecodeLargeInMemory(b *testing.B) {
	if testing.Short() {
		b.Skip("272 MB file; skipped with -short")
	}
	data, err := os.ReadFile(largeFile(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, _, err := Decode(bytes.NewReader(data), Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
}
