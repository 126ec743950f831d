package speedscope

import (
	"encoding/json"
	"slices"
	"testing"
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
