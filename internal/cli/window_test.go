package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// jfrStartTimes are the start times of a recording's events of one type,
// as the JDK's jfr print gives them.
func jfrStartTimes(t *testing.T, file, typ string) []time.Time {
	t.Helper()
	if _, err := exec.LookPath("jfr"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no jfr on PATH")
		}
		t.Skip("no jfr (the JDK's) on PATH")
	}
	out, err := exec.Command("jfr", "print", "--json", "--events", typ, file).Output()
	if err != nil {
		t.Fatalf("jfr print: %v", err)
	}
	var doc struct {
		Recording struct {
			Events []struct {
				Values struct {
					StartTime time.Time `json:"startTime"`
				} `json:"values"`
			} `json:"events"`
		} `json:"recording"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var ts []time.Time
	for _, e := range doc.Recording.Events {
		ts = append(ts, e.Values.StartTime)
	}
	return ts
}

func totalsByType(t *testing.T, file string) map[string]int64 {
	t.Helper()
	p, err := profile.ParseData(mustRead(t, file))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, s := range p.Sample {
		for i, v := range s.Value {
			out[p.SampleType[i].Type] += v
		}
	}
	return out
}

// TestTimeWindow: convert --from --until on a JFR recording keeps the
// execution samples and allocations the JDK's jfr print dates inside the
// window; the same recording written as OTLP (timestamps_unix_nano) and
// read back gives the same; top and diff take the window too.
func TestTimeWindow(t *testing.T) {
	rec := td + "jfr/cpu.jfr"
	exec := jfrStartTimes(t, rec, "jdk.ExecutionSample")
	alloc := jfrStartTimes(t, rec, "jdk.ObjectAllocationOutsideTLAB")
	from, until := exec[0].Add(250*time.Millisecond), exec[0].Add(800*time.Millisecond)
	count := func(ts []time.Time) (n int64) {
		for _, x := range ts {
			if !x.Before(from) && x.Before(until) {
				n++
			}
		}
		return n
	}
	wantExec, wantAlloc := count(exec), count(alloc)
	if wantExec == 0 || wantExec == int64(len(exec)) || wantAlloc == 0 {
		t.Fatalf("%d of %d execution samples, %d allocations inside: the window tests nothing", wantExec, len(exec), wantAlloc)
	}
	dir := t.TempDir()
	otlp := filepath.Join(dir, "cpu.otlp")
	s := newStreams(nil)
	if code := Main([]string{"convert", rec, "-o", otlp}, s.ios); code != 0 {
		t.Fatalf("convert: %s", s.err)
	}
	win := []string{"--from", from.Format(time.RFC3339Nano), "--until", until.Format(time.RFC3339Nano)}
	for _, in := range []string{rec, otlp} {
		out := filepath.Join(dir, "w.pb.gz")
		s := newStreams(nil)
		if code := Main(append([]string{"convert", in, "-o", out}, win...), s.ios); code != 0 {
			t.Fatalf("convert %s: exit %d: %s", in, code, s.err)
		}
		got := totalsByType(t, out)
		if got["samples"] != wantExec || got["alloc_outside_tlab_objects"] != wantAlloc {
			t.Errorf("%s: %d execution samples, %d allocations outside TLABs; jfr print dates %d and %d inside",
				in, got["samples"], got["alloc_outside_tlab_objects"], wantExec, wantAlloc)
		}
	}

	// top: the table's total is the window's.
	s = newStreams(nil)
	if code := Main(append([]string{"top", rec, "--sample-type", "samples"}, win...), s.ios); code != 0 {
		t.Fatalf("top: exit %d: %s", code, s.err)
	}
	if want := " of " + strconv.FormatInt(wantExec, 10) + " total"; !strings.Contains(s.out.String(), want) {
		t.Errorf("top: no %q in\n%s", want, s.out.String())
	}
	// diff: both inputs are cut (the recording against itself as OTLP
	// adds up to zero; NEW alone cut would not).
	out := filepath.Join(dir, "d.pb.gz")
	s = newStreams(nil)
	if code := Main(append([]string{"diff", rec, otlp, "-o", out}, win...), s.ios); code != 0 {
		t.Fatalf("diff: exit %d: %s", code, s.err)
	}
	if got := totalsByType(t, out); got["samples"] != 0 {
		t.Errorf("diff of a recording with itself, windowed: samples %d", got["samples"])
	}
}

// TestTimeWindowPerf: perf script text with a time-of-day reference has
// sample times: a window from its start keeps every sample, one that ends
// at its start keeps none.
func TestTimeWindowPerf(t *testing.T) {
	in := td + "perf/mono-header.txt"
	var outs []string
	for _, win := range [][]string{nil, {"--from", "0s"}, {"--until", "0s"}} {
		s := newStreams(nil)
		if code := Main(append([]string{"convert", in, "-o", "-", "--to", "folded"}, win...), s.ios); code != 0 {
			t.Fatalf("%v: exit %d: %s", win, code, s.err)
		}
		outs = append(outs, s.out.String())
	}
	if outs[0] == "" || outs[1] != outs[0] || outs[2] != "" {
		t.Errorf("whole %d bytes, from the start %d, until the start %d", len(outs[0]), len(outs[1]), len(outs[2]))
	}
}

func TestTimeWindowErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"convert", td + "go/cpu.pb.gz", "-o", "-", "--to", "folded", "--from", "1s"}, ExitFail, "no sample has a timestamp"},
		{[]string{"top", td + "go/cpu.pb.gz", "--until", "1s"}, ExitFail, "no sample has a timestamp"},
		{[]string{"convert", td + "jfr/cpu.jfr", "-o", "-", "--to", "folded", "--from", "yesterday"}, ExitUsage, "--from:"},
		{[]string{"diff", td + "jfr/cpu.jfr", td + "jfr/cpu.jfr", "-o", "-", "--to", "folded", "--until", "-2s"}, ExitUsage, "--until:"},
		{[]string{"push", td + "go/cpu.pb.gz", "--dry-run", "-", "--from", "0s"}, ExitFail, "no sample has a timestamp"},
	} {
		s := newStreams(nil)
		code := Main(c.args, s.ios)
		if code != c.code || !strings.Contains(s.err.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, s.err)
		}
	}
}
