package otlp

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/bundle"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/modeldump"
)

func sameProfiles(t *testing.T, what string, want, got []*model.Profile) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d profiles, want %d", what, len(got), len(want))
	}
	w, g := modeldump.All(want), modeldump.All(got)
	for i := range w {
		if w[i] != g[i] {
			wl, gl := strings.Split(w[i], "\n"), strings.Split(g[i], "\n")
			for j := range wl {
				if j >= len(gl) || wl[j] != gl[j] {
					t.Errorf("%s: profile %d, line %d:\n got %s\nwant %s", what, i, j, at(gl, j), wl[j])
					break
				}
			}
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(end)"
}

// TestAttributesSurvive: the eBPF profiler's file keeps its sample,
// location (profile.frame.type), mapping (both build ids), profile, scope
// and resource attributes, links and timestamps through OTLP -> OTLP
// (binary and JSON) and OTLP -> bundle -> OTLP.
func TestAttributesSurvive(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/otlp-dev/ebpf-v1.9.otlp")
	if err != nil {
		t.Fatal(err)
	}
	quiet := DecodeOptions{Warn: func(string) {}}
	want, err := Decode(data, quiet)
	if err != nil {
		t.Fatal(err)
	}
	strict := DecodeOptions{Warn: func(s string) { t.Errorf("reader warned: %s", s) }}
	eo := EncodeOptions{Warn: func(s string) { t.Errorf("writer warned: %s", s) }}
	for _, c := range codecs {
		var buf bytes.Buffer
		if err := c.enc(&buf, want, eo); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(buf.Bytes(), strict)
		if err != nil {
			t.Fatal(err)
		}
		sameProfiles(t, "otlp -> "+c.name, want, got)
	}

	var bb bytes.Buffer
	w := bundle.NewWriter(&bb, bundle.WriterOptions{})
	for i, p := range want {
		if err := w.Add(bundle.Entry{Name: fmt.Sprint(i), SourceFormat: "otlp"}, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := bundle.Open(bytes.NewReader(bb.Bytes()), int64(bb.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var unpacked []*model.Profile
	for i := 0; i < r.Len(); i++ {
		p, err := r.Profile(i)
		if err != nil {
			t.Fatal(err)
		}
		unpacked = append(unpacked, p)
	}
	sameProfiles(t, "otlp -> bundle", want, unpacked)
	var buf bytes.Buffer
	if err := Encode(&buf, unpacked, eo); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(buf.Bytes(), strict)
	if err != nil {
		t.Fatal(err)
	}
	sameProfiles(t, "otlp -> bundle -> otlp", want, got)
}
