package pprofextended

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
)

// sizeGolden holds, for every fixture and generated profile, gzipped OTLP
// over gzipped pprof (both gzipped with compress/gzip's default level), to
// three decimals: docs/performance.md quotes it.
var sizeGolden = filepath.Join("testdata", "size-ratios.golden")

// TestSizeRatios: the sizes are deterministic, so a layout change that
// makes any of them bigger (or smaller) fails here until the golden file is
// rewritten with -update (and the docs follow).
func TestSizeRatios(t *testing.T) {
	var got bytes.Buffer
	for _, in := range benchInputs(t) {
		m, err := pprof.Decode(in.data)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Encode(&buf, singleton(m), EncodeOptions{}); err != nil {
			t.Fatal(err)
		}
		ratio := float64(gzipSize(t, buf.Bytes())) / float64(gzipSize(t, gunzip(t, in.data)))
		fmt.Fprintf(&got, "%s %.3f\n", in.name, ratio)
		// The targets: 0.89 for typical Go profiles, 0.82 for deep stacks.
		target := 0.89
		if strings.HasPrefix(in.name, "deep-stacks") {
			target = 0.82
		}
		switch in.name {
		case "cpu", "cpu-merged", "heap", "heap-lines", "mutex", "deep-stacks", "synthetic-20k":
			if ratio > target {
				t.Errorf("%s: %.3f over the target %.2f", in.name, ratio, target)
			}
		}
	}
	if *update {
		if err := os.WriteFile(sizeGolden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(sizeGolden)
	if err != nil {
		t.Fatalf("%v (go test -run TestSizeRatios -update writes it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("gzipped OTLP / gzipped pprof changed (go test -run TestSizeRatios -update, then docs/performance.md):\ngot:\n%swant:\n%s", got.Bytes(), want)
	}
}
