package speedscope

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkTables reads the frame table and the weights of the Go
// runtime's CPU profile as pprofx writes it in speedscope, and 1M frames
// and 1M weights, with framesJSON and numbersJSON ("counted": counted
// first, made at their size, the weights parts of one string) and with
// encoding/json into []frameJSON and []json.Number, which they replaced
// ("encoding-json"). The weights take half the time and a quarter of the
// memory; 1M frames the same time and a third of the memory; the
// fixture's small frame table 100 µs more (a third: encoding/json checks
// the array again when framesJSON reads it), for half the memory:
//
//	go test -run '^$' -bench Tables -benchmem -count 6 ./internal/codec/speedscope | benchstat -col /impl -
func BenchmarkTables(b *testing.B) {
	var f struct {
		Shared struct {
			Frames json.RawMessage `json:"frames"`
		} `json:"shared"`
		Profiles []struct {
			Weights json.RawMessage `json:"weights"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal(goCPUSpeedscope(b), &f); err != nil || len(f.Profiles) == 0 {
		b.Fatalf("%v, %d profiles", err, len(f.Profiles))
	}
	frames := []byte("[" + strings.Repeat(`{"name":"main.f","file":"main.go","line":12,"col":3},`, 1<<20-1) + `{"name":"main.f"}]`)
	weights := []byte("[" + strings.Repeat("10000000,", 1<<20-1) + "1]")
	for _, in := range []struct {
		name, kind string
		text       []byte
	}{{"go-cpu", "frames", f.Shared.Frames}, {"go-cpu", "weights", f.Profiles[0].Weights}, {"1M", "frames", frames}, {"1M", "weights", weights}} {
		b.Run("in="+in.name+"-"+in.kind+"/impl=counted", func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				var err error
				if in.kind == "frames" {
					var t framesJSON
					err = json.Unmarshal(in.text, &t)
				} else {
					var t numbersJSON
					err = json.Unmarshal(in.text, &t)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("in="+in.name+"-"+in.kind+"/impl=encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				var err error
				if in.kind == "frames" {
					var t []frameJSON
					err = json.Unmarshal(in.text, &t)
				} else {
					var t []json.Number
					err = json.Unmarshal(in.text, &t)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
