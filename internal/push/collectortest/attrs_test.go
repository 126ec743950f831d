package collectortest

import (
	"os"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/testutil/modeldump"
)

// TestEBPFAttributesStored: the eBPF profiler's file (proto v1.9 layout,
// told from the bytes), pushed over each protocol, is stored by the
// collector with every sample attribute, timestamp, location attribute
// (profile.frame.type), mapping attribute (both build ids), profile, scope
// and resource attribute it holds: the collector's file reads as the
// source, with no allowance. So is typed-attrs.otlp, with its attributes of
// every value type and their units on samples, the profile, mappings and
// locations.
func TestEBPFAttributesStored(t *testing.T) {
	for _, f := range []string{"ebpf-v1.9.otlp", "typed-attrs.otlp"} {
		t.Run(f, func(t *testing.T) { attributesStored(t, repo+"/testdata/otlp-dev/"+f) })
	}
}

func attributesStored(t *testing.T, src string) {
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	want, err := otlp.Decode(data, otlp.DecodeOptions{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	for _, proto := range protocols {
		t.Run(strings.ReplaceAll(proto, "/", "-"), func(t *testing.T) {
			c := newCollector(t, collectorOpts{})
			c.start(t)
			if code, stderr := pprofx(t, "push", "--endpoint", endpointFor(c, proto), "--protocol", proto, src); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			out := c.output(t)
			pdataReads(t, out)
			got, err := otlp.Decode(out, otlp.DecodeOptions{Warn: func(s string) { t.Errorf("reading the collector's file: warning: %s", s) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d profiles stored, %d sent", len(got), len(want))
			}
			w, g := modeldump.All(want), modeldump.All(got)
			for i := range w {
				if w[i] != g[i] {
					t.Errorf("profile %d stored differs from the source:\n%s", i, firstDiff(w[i], g[i]))
				}
			}
		})
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			got := "(end)"
			if i < len(bl) {
				got = bl[i]
			}
			return "want " + al[i] + "\n got " + got
		}
	}
	return "got more lines"
}
