package perfscript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pprofx/pprofx/internal/codec/folded"
	"github.com/pprofx/pprofx/internal/codec/perfscript"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/testutil/viewtest"
	"github.com/pprofx/pprofx/internal/view/callstacks"
)

func decode(t *testing.T, text string) *model.Profile {
	t.Helper()
	p, err := perfscript.Decode(strings.NewReader(text), perfscript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

func foldedOf(t *testing.T, p *model.Profile, sampleType string) string {
	t.Helper()
	var b bytes.Buffer
	if err := folded.Encode(&b, p, folded.WriteOptions{SampleType: sampleType}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func labels(p *model.Profile, s model.Sample) map[string]string {
	out := map[string]string{}
	for _, l := range p.LabelSets[s.LabelSet].Labels() {
		v := p.String(l.Str)
		if l.IsNumeric() {
			v = strings.TrimSpace(strings.Join([]string{strconv.FormatInt(l.Num, 10), p.String(l.NumUnit)}, " "))
		}
		out[p.String(l.Key)] = v
	}
	return out
}

// A command with spaces, a pid/tid pair, a CPU, an event with modifiers,
// an offset to cut, [unknown] named by its DSO, a DSO holding
// parentheses, and a last sample with no blank line after it.
func TestSampleLineFields(t *testing.T) {
	p := decode(t, "Web Content 2 1200/1201 [003] 100.000250:     250000 cpu-clock:pppH: \n"+
		"\t    7f0000001000 [unknown] (/usr/lib/libxul.so)\n"+
		"\t    7f0000002000 leaf+0x1a (/tmp/a (deleted))\n"+
		"\t    ffffffff81000000 do_syscall_64+0x71 ([kernel.kallsyms])\n"+
		"\n"+
		"Web Content 2 1200/1201 [003] 100.000500:     250000 cpu-clock:pppH: \n"+
		"\t    7f0000002000 leaf+0x1a (/tmp/a (deleted))\n")
	if len(p.Samples) != 2 {
		t.Fatalf("%d samples, want 2 (the last has no blank line after it)", len(p.Samples))
	}
	got := labels(p, p.Samples[0])
	want := map[string]string{"pid": "1200", "tid": "1201", "cpu": "3 cpu", "thread_comm": "Web Content 2", "timestamp_ns": "100000250000"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("label %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if tn := callstacks.TypeNames(p); strings.Join(tn, ",") != "cpu-clock:pppH_sample/count,cpu-clock:pppH_event/nanoseconds" {
		t.Errorf("sample types %v", tn)
	}
	if got, want := foldedOf(t, p, ""), "do_syscall_64;leaf;[libxul.so] 250000\nleaf 250000\n"; got != want {
		t.Errorf("folded:\n%s\nwant\n%s", got, want)
	}
	var files []string
	for _, m := range p.Mappings {
		files = append(files, p.String(m.File))
	}
	if strings.Join(files, ",") != "/usr/lib/libxul.so,/tmp/a (deleted),[kernel.kallsyms]" {
		t.Errorf("mappings %q", files)
	}
	if p.DurationNanos != 250000 {
		t.Errorf("duration %d", p.DurationNanos)
	}
}

// Inline frames: a run of "(inlined)" lines at one address is one
// location with the frame it was inlined into; perf-map-agent's a->b->c
// is one location of three lines, b and c annotated as the folded codec
// annotates inlined frames.
func TestInlineFrames(t *testing.T) {
	p := decode(t, "burnt 7 1.000001:     100 cpu-clock: \n"+
		"\t    132a mix+0x3a (inlined)\n"+
		"\t    132a hash_block+0x3a (/tmp/burnt)\n"+
		"\t    1404 hash_loop+0x54 (/tmp/burnt)\n"+
		"\n"+
		"java 8 1.000002:     100 cpu-clock: \n"+
		"\t    7f89cc467bf0 Ljava/io/PrintStream;::println->Ljava/io/PrintStream;::print->Ljava/io/PrintStream;::write+0x0 (/tmp/perf-8.map)\n"+
		"\t    7f89cc400000 Interpreter (/tmp/perf-8.map)\n")
	if n := len(p.Stacks.Append(nil, int(p.Samples[0].Stack))); n != 2 {
		t.Errorf("first stack has %d locations, want 2", n)
	}
	if n := len(p.Stacks.Append(nil, int(p.Samples[1].Stack))); n != 2 {
		t.Errorf("second stack has %d locations, want 2", n)
	}
	want := "Interpreter;java/io/PrintStream:::println;java/io/PrintStream:::print_[i];java/io/PrintStream:::write_[i] 100\n" +
		"hash_loop;hash_block;mix 100\n"
	if got := foldedOf(t, p, ""); got != want {
		t.Errorf("folded:\n%s\nwant\n%s", got, want)
	}
	var sys []string
	for _, f := range p.Functions {
		sys = append(sys, p.String(f.SystemName))
	}
	if !strings.Contains(strings.Join(sys, "\n"), "Ljava/io/PrintStream;::println") {
		t.Errorf("the symbol as perf printed it is not kept: %q", sys)
	}
}

// Two events: each its own pair of sample types; the default is the
// first event's period; --header's reference time gives Unix timestamps.
func TestEventsAndClock(t *testing.T) {
	p := decode(t, "# perf version : 6.1.192\n"+
		"# event : name = task-clock, , id = { 1 }\n"+
		"# event : name = cpu-clock, , id = { 2 }\n"+
		"# reference time: 2026-11-27 03:42:17.474760 = 1795750937.474760 (TOD) = 548.992268634 (monotonic)\n"+
		"a 1 549.000000:    1000  cpu-clock: \n\t1 f (x)\n\n"+
		"a 1 549.000001:    3000 task-clock: \n\t1 f (x)\n\n"+
		"a 1 549.000002:    5000  cpu-clock: \n\t1 f (x)\n\n"+
		"a 1 549.000003: sched:sched_switch: prev_comm=a prev_pid=1 ==> next_comm=b\n\t1 f (x)\n")
	if got := strings.Join(callstacks.TypeNames(p), ","); got != "task-clock_sample/count,task-clock_event/nanoseconds,cpu-clock_sample/count,cpu-clock_event/nanoseconds,sched:sched_switch_sample/count" {
		t.Errorf("sample types %s", got)
	}
	if got := foldedOf(t, p, ""); got != "f 6000\n" {
		t.Errorf("default folded %q, want the first sampled event's periods (cpu-clock) 6000", got)
	}
	if got := foldedOf(t, p, "sched:sched_switch_sample"); got != "f 1\n" {
		t.Errorf("tracepoint folded %q", got)
	}
	want := uint64(1795750937474760000 + (549000000000 - 548992268634))
	if ts := p.Samples[0].Timestamps(); len(ts) != 1 || ts[0] != want {
		t.Errorf("timestamps %v, want [%d]", ts, want)
	}
	if p.TimeNanos != int64(want) {
		t.Errorf("time %d, want %d", p.TimeNanos, want)
	}
	if len(p.Comments) != 1 || p.String(p.Comments[0]) != "perf-version:6.1.192" {
		t.Errorf("comments %v", p.Comments)
	}
}

// Errors name the line.
func TestErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\t1234 foo (bar)\n", "line 1: a call chain frame outside a sample"},
		{"a 1 1.0: cycles: \n\tzz foo (bar)\n", "line 2: not a call chain frame"},
		{"a 1 1.0: cycles: \n\t1 foo (bar)\nhello world\n", "line 3: neither a sample line"},
		{"a 1 1.0: cycles: \n\t123456789012345678 foo (bar)\n", "line 2: not a call chain frame"},
		{"# only a header\n", "no samples"},
		{"", "no samples"},
	} {
		_, err := perfscript.Decode(strings.NewReader(c.in), perfscript.Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "perf script: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want \"perf script: \" and %q", c.in, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error on more than one line: %v", c.in, err)
		}
	}
}

// Sniff tells perf script text from folded stacks and other text.
func TestSniff(t *testing.T) {
	for in, want := range map[string]bool{
		"a 1 1.0: cycles: \n\t1 foo (bar)\n":                     true,
		"  burnt 12 1.000001: 10 cpu-clock:ppp:  7f12 foo (x)\n": true,
		"main;work;leaf 42\nmain;other 3\n":                      false,
		"a;b 1\n":                                                false,
		"threadcreate profile: total 4\n4 @\n#\t0x0\n":           false,
		"events: Ir\nfn=main\n0 3\n":                             false,
		"hello world\n":                                          false,
	} {
		if got := perfscript.Sniff([]byte(in)); got != want {
			t.Errorf("Sniff(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestLongInput reads a text many times longer than the line reader's
// buffer, so that the reader moves its bytes while a sample is read: the
// events and commands stay what the text says.
func TestLongInput(t *testing.T) {
	one, err := os.ReadFile(filepath.Join(viewtest.Root(), "testdata", "perf", "multi.txt"))
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat(one, 12)
	p, err := perfscript.Decode(iotest.HalfReader(bytes.NewReader(data)), perfscript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(callstacks.TypeNames(p), ","); got != "cpu-clock_sample/count,cpu-clock_event/nanoseconds,task-clock_sample/count,task-clock_event/nanoseconds" {
		t.Errorf("sample types %s", got)
	}
	once := decode(t, string(one))
	if len(p.Samples) != 12*len(once.Samples) {
		t.Errorf("%d samples, want %d", len(p.Samples), 12*len(once.Samples))
	}
	comms := map[string]bool{}
	for _, s := range p.Samples {
		comms[labels(p, s)["thread_comm"]] = true
	}
	if len(comms) != 3 || !comms["burnt"] || !comms["hash worker"] || !comms["sorter"] {
		t.Errorf("commands %v", comms)
	}
}

// Samples of one event and period in a row share one row of values; the
// values follow each sample's event and period however they alternate.
func TestRunsShareRows(t *testing.T) {
	var text strings.Builder
	type want struct {
		ev     string
		period int64
	}
	var wants []want
	for i, w := range []want{{"cycles", 10}, {"cycles", 10}, {"cycles", 10}, {"instructions", 5}, {"cycles", 10}, {"cycles", 20}, {"instructions", 5}, {"instructions", 5}} {
		text.WriteString("a 1 " + strconv.Itoa(100+i) + ".000000: " + strconv.FormatInt(w.period, 10) + " " + w.ev + ":\n\t1000 f (/bin/a)\n\n")
		wants = append(wants, w)
	}
	p := decode(t, text.String())
	col := map[string]int{}
	for i, st := range p.SampleTypes {
		col[p.String(st.Type)] = i
	}
	if len(p.Samples) != len(wants) || len(col) != 4 {
		t.Fatalf("%d samples, sample types %v", len(p.Samples), col)
	}
	for i, w := range wants {
		v := p.Samples[i].Values()
		for name, c := range col {
			x := int64(0)
			switch name {
			case w.ev + "_sample":
				x = 1
			case w.ev + "_event":
				x = w.period
			}
			if v[c] != x {
				t.Errorf("sample %d (%s, period %d): %s = %d, want %d", i, w.ev, w.period, name, v[c], x)
			}
		}
	}
	rows := map[*int64]bool{}
	for i := range p.Samples {
		rows[&p.Samples[i].Values()[0]] = true
	}
	if len(rows) != 5 {
		t.Errorf("%d rows of values, want one a run: 5", len(rows))
	}
}

// The samples and label sets of a long text grow by doubling: 3000 of
// each take arrays of 4096 (1024, 2048, 4096), not 2.4 times larger ones
// at each step.
func TestSamplesGrowByDoubling(t *testing.T) {
	var text strings.Builder
	for i := range 3000 {
		text.WriteString("a 1 " + strconv.Itoa(100+i) + ".000000: 1 cycles:\n\t1000 f (/bin/a)\n\n")
	}
	p := decode(t, text.String())
	if len(p.Samples) != 3000 || len(p.LabelSets) != 3001 {
		t.Fatalf("%d samples, %d label sets, want 3000 and 3001", len(p.Samples), len(p.LabelSets))
	}
	if cap(p.Samples) > 4096 || cap(p.LabelSets) > 4096 {
		t.Errorf("capacity %d samples, %d label sets, want at most 4096", cap(p.Samples), cap(p.LabelSets))
	}
}
