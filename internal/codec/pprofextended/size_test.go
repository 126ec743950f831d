package pprofextended

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/pprof"
)

// TestSizeFiguresInREADME: gzipped OTLP over gzipped pprof (both gzipped
// with compress/gzip's default level) of every fixture and generated
// profile is the figure the README states for it, to three decimals. The
// sizes are deterministic, so a layout change that makes any of them bigger
// (or smaller) fails here until the README says so.
func TestSizeFiguresInREADME(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
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
		figure := fmt.Sprintf("%s %.3f", in.name, ratio)
		if !bytes.Contains(readme, []byte(figure)) {
			t.Errorf("README.md does not state %q (gzipped OTLP / gzipped pprof)", figure)
		}
		// The targets, where the README says they are met.
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
}
