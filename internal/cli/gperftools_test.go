package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/gperftools"
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
		if code := Main([]string{"convert", in, "-o", out}, s.ios); code != 0 {
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
			wantTotal += smp.Values[1]
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
