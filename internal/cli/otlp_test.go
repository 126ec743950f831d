package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

// decodeAny reads OTLP output of either dialect.
func decodeAny(data []byte) ([]*model.Profile, error) {
	if ps, err := otlp.Decode(data, otlp.DecodeOptions{}); err == nil {
		return ps, nil
	}
	return pprofextended.Decode(data, pprofextended.DecodeOptions{})
}

// TestConvertOTLPRoundTrip: pprof -> .otlp / .otlp.gz / .otlp.json /
// .jsonl (v1development) and --to pprofextended[-json] -> pprof through the
// command, identical under google/pprof's reading.
func TestConvertOTLPRoundTrip(t *testing.T) {
	dir := t.TempDir()
	orig := mustRead(t, cpuFixture)
	for _, c := range []struct{ name, to string }{{"a.otlp", ""}, {"b.otlp.gz", ""}, {"c.otlp.json", ""}, {"d.otlp.json.gz", ""},
		{"e.jsonl", ""}, {"f.bin", "otlp-framed"}, {"g.pe", "pprofextended"}, {"h.pe.gz", "pprofextended"},
		{"i.pej", "pprofextended-json"}, {"j.pej.gz", "pprofextended-json"}} {
		name := c.name
		s := newStreams(nil)
		mid := filepath.Join(dir, name)
		if err := convertRun(&ConvertOptions{IO: s.ios, Input: cpuFixture, Output: mid, Index: -1, To: c.to,
			Resource: []string{"service.name=api"}, ProfileID: "00112233445566778899aabbccddeeff"}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data := mustRead(t, mid)
		if gz := data[0] == 0x1f; gz != strings.HasSuffix(name, ".gz") {
			t.Errorf("%s: gzip %v", name, gz)
		}
		var ps []*model.Profile
		var err error
		if strings.HasPrefix(c.to, "pprofextended") {
			ps, err = pprofextended.Decode(data, pprofextended.DecodeOptions{})
		} else {
			ps, err = otlp.Decode(data, otlp.DecodeOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := ps[0]; len(got.Resource.Attributes) != 1 || got.Resource.Attributes[0].Value.Str != "api" ||
			string(got.ProfileID) != "\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff" {
			t.Errorf("%s: resource %v, profile id %x", name, got.Resource.Attributes, got.ProfileID)
		}
		back := filepath.Join(dir, name+".pb.gz")
		s = newStreams(nil)
		if err := convertRun(&ConvertOptions{IO: s.ios, Input: mid, Output: back, Index: -1}); err != nil {
			t.Fatalf("%s -> pprof: %v", name, err)
		}
		if d := pprofcmp.Diff(parse(t, orig), parse(t, mustRead(t, back))); d != "" {
			// The resource attribute is kept as a comment; nothing else differs.
			if !strings.Contains(d, "otlp.resource: service.name=api") || strings.Count(d, "\n") > 0 {
				t.Errorf("%s: round trip differs:\n%s", name, d)
			}
		}
		if w := s.err.String(); strings.Count(w, "\n") != 1 || !strings.Contains(w, "profile id") {
			t.Errorf("%s -> pprof: stderr %q, want the one warning about the profile id", name, w)
		}
	}
}

// TestConvertOTLPIndex: an OTLP file with several containers needs --index.
func TestConvertOTLPIndex(t *testing.T) {
	dir := t.TempDir()
	src, err := formats.Read(bytes.NewReader(mustRead(t, cpuFixture)), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	heap, err := formats.Read(bytes.NewReader(mustRead(t, "../../testdata/go/heap.pb.gz")), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := pprofextended.Encode(&buf, []*model.Profile{src.Items[0].Profile, heap.Items[0].Profile}, pprofextended.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(dir, "two.otlp")
	if err := os.WriteFile(two, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newStreams(nil)
	if code := Main([]string{"convert", two, "-o", filepath.Join(dir, "x.pb.gz")}, s.ios); code == ExitOK || !strings.Contains(s.err.String(), "holds 2 profiles: choose one with --index 0..1") {
		t.Errorf("exit %d, stderr %q", code, s.err)
	}
	s = newStreams(nil)
	out := filepath.Join(dir, "heap.pb.gz")
	if code := Main([]string{"convert", two, "--index", "1", "-o", out}, s.ios); code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, s.err)
	}
	if d := pprofcmp.Diff(parse(t, mustRead(t, "../../testdata/go/heap.pb.gz")), parse(t, mustRead(t, out))); d != "" {
		t.Errorf("--index 1 is not the heap profile:\n%s", d)
	}
	s = newStreams(nil)
	if code := Main([]string{"inspect", two}, s.ios); code != ExitOK {
		t.Fatalf("inspect: exit %d, stderr %q", code, s.err)
	}
	if o := s.out.String(); !strings.Contains(o, "profile containers:  2") || !strings.Contains(o, "profile 0:") || !strings.Contains(o, "profile 1:") {
		t.Errorf("inspect does not list both:\n%s", o)
	}
}

func TestConvertOTLPFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--profile-id", "abc"}, {"--profile-id", "00000000000000000000000000000000"}, {"--resource", "novalue"},
	} {
		s := newStreams(nil)
		code := Main(append([]string{"convert", cpuFixture, "-o", filepath.Join(t.TempDir(), "x.otlp")}, args...), s.ios)
		if code != ExitUsage || !strings.Contains(s.err.String(), args[0]) {
			t.Errorf("%v: exit %d, stderr %q", args, code, s.err)
		}
	}
}

// TestKeepOriginal: --keep-original embeds a non-pprof input (gperftools)
// with its format named, never a pprof one; and gperftools -> OTLP -> pprof
// is the same profile as gperftools -> pprof.
func TestKeepOriginal(t *testing.T) {
	dir := t.TempDir()
	s := newStreams(nil)
	fromPprof := filepath.Join(dir, "a.otlp")
	if err := convertRun(&ConvertOptions{IO: s.ios, Input: cpuFixture, Output: fromPprof, Index: -1, KeepOriginal: true}); err != nil {
		t.Fatal(err)
	}
	ps, err := decodeAny(mustRead(t, fromPprof))
	if err != nil || ps[0].OriginalPayload != nil {
		t.Fatalf("a pprof source was embedded (%v)", err)
	}
	const gperf = "../../testdata/gperftools/le64-100hz.prof"
	mid := filepath.Join(dir, "b.otlp.json")
	if err := convertRun(&ConvertOptions{IO: s.ios, Input: gperf, Output: mid, Index: -1, KeepOriginal: true}); err != nil {
		t.Fatal(err)
	}
	ps, err = decodeAny(mustRead(t, mid))
	if err != nil || !bytes.Equal(ps[0].OriginalPayload, mustRead(t, gperf)) || ps[0].OriginalPayloadFormat != "gperftools-cpu" {
		t.Fatalf("original payload %d bytes, format %q (%v)", len(ps[0].OriginalPayload), ps[0].OriginalPayloadFormat, err)
	}
	direct, viaOTLP := filepath.Join(dir, "direct.pb.gz"), filepath.Join(dir, "via.pb.gz")
	if err := convertRun(&ConvertOptions{IO: s.ios, Input: gperf, Output: direct, Index: -1}); err != nil {
		t.Fatal(err)
	}
	s = newStreams(nil)
	if err := convertRun(&ConvertOptions{IO: s.ios, Input: mid, Output: viaOTLP, Index: -1}); err != nil {
		t.Fatal(err)
	}
	if d := pprofcmp.Diff(parse(t, mustRead(t, direct)), parse(t, mustRead(t, viaOTLP))); d != "" {
		t.Errorf("gperftools -> OTLP -> pprof differs from gperftools -> pprof:\n%s", d)
	}
	// No profile id was written (v1development has no need of one), so
	// only the payload is warned about.
	if w := s.err.String(); !strings.Contains(w, "original payload") || strings.Count(w, "\n") != 1 {
		t.Errorf("stderr %q, want one warning, about the dropped original payload", w)
	}
}

// A bundle converted to OTLP gives one container per profile, in order,
// each the same profile as unpacking it; --index picks one; pprof output
// still needs --index.
func TestConvertManyToOTLP(t *testing.T) {
	dir := t.TempDir()
	files := goFixtures(t)
	b := filepath.Join(dir, "all.ppxb")
	run(t, nil, ExitOK, append([]string{"merge", "-o", b}, files...)...)
	all := filepath.Join(dir, "all.otlp")
	run(t, nil, ExitOK, "convert", b, "-o", all)
	ps, err := decodeAny(mustRead(t, all))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(files) {
		t.Fatalf("%d containers, want %d", len(ps), len(files))
	}
	for i := range files {
		want := run(t, nil, ExitOK, "unpack", b, "--index", fmt.Sprint(i), "-o", "-")
		got := run(t, nil, ExitOK, "convert", all, "--index", fmt.Sprint(i), "-o", "-")
		if d := pprofcmp.Diff(parse(t, want.out.Bytes()), parse(t, got.out.Bytes())); d != "" {
			t.Errorf("container %d differs from the bundle's profile %d:\n%s", i, i, d)
		}
	}
	one := filepath.Join(dir, "one.otlp")
	run(t, nil, ExitOK, "convert", b, "--index", "2", "-o", one)
	if ps, _ := decodeAny(mustRead(t, one)); len(ps) != 1 {
		t.Fatalf("--index 2: %d containers", len(ps))
	}
	s := run(t, nil, ExitFail, "convert", all, "-o", filepath.Join(dir, "x.pb.gz"))
	if !strings.Contains(s.err.String(), "choose one with --index") {
		t.Fatalf("stderr %q", s.err)
	}
}

// An OTLP profile kept in a bundle and unpacked to pprof is folded like a
// direct OTLP -> pprof conversion: its resource becomes a comment, and
// nothing is dropped in silence or with a warning.
func TestUnpackOTLPSourceFolds(t *testing.T) {
	dir := t.TempDir()
	o := filepath.Join(dir, "a.otlp")
	run(t, nil, ExitOK, "convert", cpuFixture, "-o", o, "--resource", "service.name=api")
	b := filepath.Join(dir, "b.ppxb")
	run(t, nil, ExitOK, "merge", o, "-o", b)
	s := run(t, nil, ExitOK, "unpack", b, "--index", "0", "-o", "-")
	if s.err.Len() != 0 {
		t.Errorf("stderr %q", s.err)
	}
	p := parse(t, s.out.Bytes())
	found := false
	for _, c := range p.Comments {
		found = found || c == "otlp.resource: service.name=api"
	}
	if !found {
		t.Errorf("comments %q lack the resource", p.Comments)
	}
	direct := run(t, nil, ExitOK, "convert", o, "-o", "-")
	if d := pprofcmp.Diff(parse(t, direct.out.Bytes()), p); d != "" {
		t.Errorf("unpacked differs from converted:\n%s", d)
	}
}
