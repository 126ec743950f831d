package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/gperftools"
	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/codec/streamenc"
	"github.com/pprofx/pprofx/internal/model"
)

const gperfDir = "../../testdata/gperftools/"

// Every real gperftools fixture converts to a pprof profile google/pprof
// reads, with the totals, samples and mappings Decode gives.
func TestConvertGperftools(t *testing.T) {
	files, _ := filepath.Glob(gperfDir + "*.prof")
	if len(files) < 8 {
		t.Fatalf("%d fixtures", len(files))
	}
	for _, in := range files {
		s := newStreams(nil)
		out := filepath.Join(t.TempDir(), "out.pb.gz")
		if code := Main([]string{"convert", in, "-o", out, "--symbolize=off"}, s.ios); code != 0 {
			t.Fatalf("%s: exit %d: %s", in, code, s.err)
		}
		raw, _ := os.ReadFile(in)
		want, _, err := gperftools.Decode(bytes.NewReader(raw), gperftools.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := parse(t, mustRead(t, out))
		var total, wantTotal int64
		for _, smp := range got.Sample {
			total += smp.Value[1]
		}
		for _, smp := range want.Samples {
			wantTotal += smp.Values()[1]
		}
		if total != wantTotal || len(got.Sample) != len(want.Samples) || len(got.Mapping) != len(want.Mappings) || got.Period != want.Period {
			t.Errorf("%s: %d samples, cpu %d, %d mappings, period %d; want %d, %d, %d, %d", in, len(got.Sample), total, len(got.Mapping), got.Period,
				len(want.Samples), wantTotal, len(want.Mappings), want.Period)
		}
		if strings.Contains(in, "notrailer") || strings.Contains(in, "deleted") {
			if !strings.Contains(s.err.String(), "warning:") {
				t.Errorf("%s: no warning on stderr", in)
			}
		} else if s.err.Len() != 0 {
			t.Errorf("%s: stderr %q", in, s.err)
		}
	}
}

func TestInspectGperftools(t *testing.T) {
	s := newStreams(nil)
	if code := Main([]string{"inspect", gperfDir + "be64-100hz.prof"}, s.ios); code != 0 {
		t.Fatalf("exit %d: %s", code, s.err)
	}
	o := s.out.String()
	for _, want := range []string{"gperftools (64-bit big-endian)", "sampling period:", "10000 µs (100 Hz)", "records:", "trailer:", "yes"} {
		if !strings.Contains(o, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, o)
		}
	}
}

// A record cut in the middle fails; --salvage keeps the records before it.
func TestSalvageGperftools(t *testing.T) {
	raw := mustRead(t, gperfDir+"le64-100hz.prof")
	cut := filepath.Join(t.TempDir(), "cut.prof")
	// Cut inside the second record: the first is 2+n slots from byte 40.
	n := int(raw[48])
	os.WriteFile(cut, raw[:40+8*(2+n)+20], 0o644)
	s := newStreams(nil)
	if code := Main([]string{"convert", cut, "-o", "-"}, s.ios); code != ExitFail || !strings.Contains(s.err.String(), "record 2 at byte") {
		t.Fatalf("exit %d, stderr %q", code, s.err)
	}
	s = newStreams(nil)
	if code := Main([]string{"convert", "--salvage", cut, "-o", "-"}, s.ios); code != 0 || !strings.Contains(s.err.String(), "salvage: kept the 1 complete record before") {
		t.Fatalf("exit %d, stderr %q", code, s.err)
	}
	if p := parse(t, s.out.Bytes()); len(p.Sample) != 1 {
		t.Fatalf("%d samples, want 1", len(p.Sample))
	}
}

// A gperftools profile converted to pprof (which streams it) gives the bytes
// of decoding it whole and encoding that, from a file and from stdin, raw
// and gzipped, and leaves no temporary file behind.
func TestConvertGperftoolsStreamed(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	inputs := map[string][]byte{}
	for _, name := range []string{"le64-1000hz-4t.prof", "be32-100hz.prof"} {
		inputs[gperfDir+name] = mustRead(t, gperfDir+name)
	}
	// 60,000 distinct stacks of depth 32: their frames pass the 4 MiB that
	// the spill keeps in memory, so it goes to a file in TMPDIR.
	big := filepath.Join(t.TempDir(), "big.prof")
	inputs[big] = distinctStacks(60000, 32)
	if err := os.WriteFile(big, inputs[big], 0o644); err != nil {
		t.Fatal(err)
	}
	for name, raw := range inputs {
		p, _, err := gperftools.Decode(bytes.NewReader(raw), gperftools.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{".pb", ".pb.gz"} {
			var want bytes.Buffer
			if err := pprof.Encode(&want, p, pprof.EncodeOptions{Raw: suffix == ".pb"}); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out"+suffix)
			for _, in := range []string{name, "-"} {
				s := newStreams(raw)
				if code := Main([]string{"convert", in, "-o", out, "--symbolize=off"}, s.ios); code != 0 {
					t.Fatalf("%s from %s: exit %d: %s", name, in, code, s.err)
				}
				if got := mustRead(t, out); !bytes.Equal(got, want.Bytes()) {
					t.Errorf("%s from %s to %s: %d bytes differ from Decode + Encode's %d", name, in, suffix, len(got), want.Len())
				}
			}
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left in TMPDIR: %v", ents)
	}
}

// inspect reads a gperftools profile with gperftools.Tally, which keeps
// only what it shows: its output, plain and JSON, from a file (whose
// records Tally reads back at their offsets) and from stdin (whose keys it
// spills), is the one of reading the profile with Stream, whether the
// stacks' raw PCs are kept or none is (every repeated record compared then
// with one read back). Nothing is left in TMPDIR.
func TestInspectGperftoolsTally(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	names, _ := filepath.Glob(gperfDir + "*.prof")
	// 20,000 distinct stacks of depth 32, then the same records again.
	raw := distinctStacks(20000, 32)
	body := raw[40 : len(raw)-len("00400000-00500000 r-xp 00000000 08:01 1234       /usr/bin/x\n")-24]
	twice := append(append(append([]byte(nil), raw[:40]...), body...), raw[40:]...)
	big := filepath.Join(t.TempDir(), "twice.prof")
	if err := os.WriteFile(big, twice, 0o644); err != nil {
		t.Fatal(err)
	}
	names = append(names, big)
	inspect := func(raw []byte, args ...string) string {
		s := newStreams(raw)
		code := Main(append([]string{"inspect"}, args...), s.ios)
		return fmt.Sprintf("exit %d\n%s\n%s", code, s.out, s.err)
	}
	for _, budget := range []int{gperftools.KeyBudget, 0} {
		old := gperftools.KeyBudget
		gperftools.KeyBudget = budget
		for _, name := range names {
			raw := mustRead(t, name)
			for _, args := range [][]string{{name}, {"--json", name}, {"-"}, {"--salvage", name}} {
				inspectSummary = false
				want := inspect(raw, args...)
				inspectSummary = true
				if got := inspect(raw, args...); got != want {
					t.Errorf("inspect %v, key budget %d:\n got %s\nwant %s", args, budget, got, want)
				}
			}
		}
		gperftools.KeyBudget = old
	}
	if s := inspect(twice, big); !strings.Contains(s, "samples:             20000\n") || !strings.Contains(s, "records:             40000 ") {
		t.Errorf("inspect of 20,000 stacks twice:\n%s", s)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left in TMPDIR: %v", ents)
	}
}

// A gperftools profile converted to binary OTLP, either dialect, raw or
// gzipped (which streams it), gives the bytes of converting it with
// --keep-original off through the whole model, from a file and from stdin;
// the stacks are sorted in runs spilled to TMPDIR, and nothing is left
// there.
func TestConvertGperftoolsStreamedOTLP(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	old := streamenc.RunBudget
	defer func() { streamenc.RunBudget = old }()
	streamenc.RunBudget = 100_000
	big := filepath.Join(t.TempDir(), "big.prof")
	raw := distinctStacks(20000, 32)
	if err := os.WriteFile(big, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, err := gperftools.Decode(bytes.NewReader(raw), gperftools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps := []*model.Profile{p}
	for _, to := range []string{"otlp", "pprofextended"} {
		for _, suffix := range []string{".otlp", ".otlp.gz"} {
			gz := suffix == ".otlp.gz"
			var want bytes.Buffer
			if to == "otlp" {
				err = otlp.Encode(&want, ps, otlp.EncodeOptions{Gzip: gz, ScopeVersion: version()})
			} else {
				err = pprofextended.Encode(&want, ps, pprofextended.EncodeOptions{Gzip: gz, ScopeVersion: version()})
			}
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out"+suffix)
			for _, in := range []string{big, "-"} {
				s := newStreams(raw)
				if code := Main([]string{"convert", in, "-o", out, "--to", to, "--symbolize=off"}, s.ios); code != 0 {
					t.Fatalf("%s from %s: exit %d: %s", to, in, code, s.err)
				}
				if got := mustRead(t, out); !bytes.Equal(got, want.Bytes()) {
					t.Errorf("%s%s from %s: %d bytes differ from Decode + Encode's %d", to, suffix, in, len(got), want.Len())
				}
			}
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left in TMPDIR: %v", ents)
	}
}

// distinctStacks is a 64-bit little-endian gperftools profile of n records,
// each a new stack of depth PCs over 67,584 addresses of one mapping.
func distinctStacks(n, depth int) []byte {
	var b []byte
	slot := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	for _, v := range []uint64{0, 3, 0, 10000, 0} {
		slot(v)
	}
	x := uint64(0x9e3779b97f4a7c15)
	for r := 0; r < n; r++ {
		slot(1)
		slot(uint64(depth))
		for j := 0; j < depth; j++ {
			x = x*6364136223846793005 + 1442695040888963407
			slot(0x400000 + 16*(x>>33%67584) + 5)
		}
	}
	slot(0)
	slot(1)
	slot(0)
	return append(b, "00400000-00500000 r-xp 00000000 08:01 1234       /usr/bin/x\n"...)
}
