package speedscope

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
)

// sameSamples reads text as a sampled profile's samples with samplesJSON
// and with encoding/json into [][]int32: both must fail, or give the same
// frames (a null sample has none).
func sameSamples(t *testing.T, text []byte) {
	var want [][]int32
	werr := json.Unmarshal(text, &want)
	var got samplesJSON
	gerr := json.Unmarshal(text, &got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: encoding/json: %v; samplesJSON: %v", text, werr, gerr)
	}
	if werr != nil {
		return
	}
	if got.Len() != len(want) {
		t.Fatalf("%q: %d samples, want %d", text, got.Len(), len(want))
	}
	for j := range want {
		if !slices.Equal(got.At(j), want[j]) && (len(want[j]) != 0 || len(got.At(j)) != 0) {
			t.Fatalf("%q: sample %d is %v, want %v", text, j, got.At(j), want[j])
		}
	}
}

func TestSamplesJSON(t *testing.T) {
	for _, text := range []string{
		`[]`, `null`, `[[]]`, `[null]`, `[[0]]`, `[[0,1,2],[3],[],null,[4,5]]`,
		" [ [ 0 , 1 ] ,\n\t[ 2 ] ] ", `[[-1,2147483647,-2147483648]]`, `[[-0]]`,
		`[[2147483648]]`, `[[1.5]]`, `[[1e2]]`, `[["1"]]`, `[[[1]]]`, `[1]`, `{}`, `"a"`, `[[true]]`, `[[null]]`,
	} {
		sameSamples(t, []byte(text))
	}
}

// FuzzSamples holds samplesJSON to encoding/json's reading of the same
// text into [][]int32.
func FuzzSamples(f *testing.F) {
	for _, s := range []string{`[[0,1,2],[3],[],null,[4,5]]`, " [ [ 0 , 1 ] ,\n\t[ 2 ] ] ", `[[-1,2147483647]]`, `[[1.5]]`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		sameSamples(t, text)
	})
}

// BenchmarkSamples reads the samples of the Go runtime's CPU profile as
// pprofx writes it in speedscope and one sample of 1M frames, with samplesJSON
// ("samplesJSON") and with encoding/json into [][]int32, which it
// replaced ("encoding-json"), then walks every frame as the reader does:
//
//	go test -run '^$' -bench Samples -benchmem -count 6 ./internal/codec/speedscope | benchstat -col /impl -
func BenchmarkSamples(b *testing.B) {
	fixture := goCPUSpeedscope(b)
	var f struct {
		Profiles []struct {
			Samples json.RawMessage `json:"samples"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal(fixture, &f); err != nil || len(f.Profiles) == 0 || len(f.Profiles[0].Samples) < 3 {
		b.Fatalf("%v, %d profiles", err, len(f.Profiles))
	}
	deep := make([]byte, 0, 4<<20)
	deep = append(deep, "[["...)
	for i := range 1 << 20 {
		if i > 0 {
			deep = append(deep, ',')
		}
		deep = strconv.AppendInt(deep, int64(i%1000), 10)
	}
	deep = append(deep, "]]"...)
	for _, in := range []struct {
		name string
		text []byte
	}{{"go-cpu", f.Profiles[0].Samples}, {"deep", deep}} {
		b.Run("in="+in.name+"/impl=samplesJSON", func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				var s samplesJSON
				if err := json.Unmarshal(in.text, &s); err != nil {
					b.Fatal(err)
				}
				n := 0
				for j := range s.Len() {
					n += len(s.At(j))
				}
			}
		})
		b.Run("in="+in.name+"/impl=encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				var s [][]int32
				if err := json.Unmarshal(in.text, &s); err != nil {
					b.Fatal(err)
				}
				n := 0
				for _, x := range s {
					n += len(x)
				}
			}
		})
	}
}

// goCPUSpeedscope returns the Go runtime's CPU profile
// (testdata/go/cpu.pb.gz) as pprofx writes it in speedscope.
func goCPUSpeedscope(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "go", "cpu.pb.gz"))
	if err != nil {
		b.Fatal(err)
	}
	p, err := pprof.Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, p, Options{}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
