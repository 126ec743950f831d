package perfscript_test

import (
	"bytes"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/folded"
	"github.com/pprofx/pprofx/internal/model"
)

// StackcollapsePerf finds FlameGraph's stackcollapse-perf.pl (CDDL: never
// committed here): $PPROFX_STACKCOLLAPSE_PERF, else on PATH.
func stackcollapsePerf(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PPROFX_STACKCOLLAPSE_PERF"); p != "" {
		return p
	}
	if p, err := exec.LookPath("stackcollapse-perf.pl"); err == nil {
		return p
	}
	t.Skip("SKIPPED: stackcollapse-perf.pl not found (set PPROFX_STACKCOLLAPSE_PERF to its path, from github.com/brendangregg/FlameGraph)")
	return ""
}

// noCallChain are the fixtures whose samples carry no call chain (the
// frame is on the sample's line): stackcollapse-perf.pl keeps only their
// command, pprofx their frame (docs/perf-script.md).
var noCallChain = map[string]bool{"flat.txt": true, "inferno/single-line-stacks.txt": true}

// TestStackcollapsePerf compares pprofx's folded output of every perf
// fixture with stackcollapse-perf.pl's, stack for stack and value for
// value. The differences docs/perf-script.md names, and only those, are
// taken out: the command is the script's root frame and pprofx's
// thread_comm label (the script's stacks are summed without it); the
// script drops a last sample with no blank line after it (it is given
// one); without a time field the script does not see the period and
// counts samples (pprofx's <event>_sample type is compared).
func TestStackcollapsePerf(t *testing.T) {
	script := stackcollapsePerf(t)
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip("SKIPPED: no perl")
	}
	for _, path := range fixtures(t) {
		name := rel(path)
		if _, ok := refused[name]; ok || noCallChain[name] {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(perl, script)
		cmd.Stdin = bytes.NewReader(append(append([]byte(nil), data...), '\n'))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: stackcollapse-perf.pl: %v: %s", name, err, stderr.String())
		}
		want := map[string]int64{}
		for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			stack, v := splitFolded(t, l)
			_, rest, _ := strings.Cut(stack, ";") // the command
			want[rest] += v
		}
		p := decodeFile(t, path)
		var buf bytes.Buffer
		if err := folded.Encode(&buf, p, folded.WriteOptions{SampleType: sampleTypeLikeScript(p, data)}); err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
			stack, v := splitFolded(t, l)
			got[stack] += v
		}
		if diff := diffStacks(want, got); diff != "" {
			t.Errorf("%s: pprofx's folded stacks differ from stackcollapse-perf.pl's (-script +pprofx):\n%s", name, diff)
		}
	}
}

// sampleTypeLikeScript is "" (the default: the first event's period),
// or, when the sample lines print a period but no time, the first
// event's sample count, which is what the script sums then.
func sampleTypeLikeScript(p *model.Profile, data []byte) string {
	for _, l := range strings.Split(string(data), "\n") {
		if l == "" || l[0] == '#' || l[0] == '\t' || !sampleLine.MatchString(l) {
			continue
		}
		m := sampleLine.FindStringSubmatch(l)
		if m[4] == "" && m[5] != "" {
			def := p.String(p.DefaultSampleType)
			return strings.TrimSuffix(def, "_event") + "_sample"
		}
		return ""
	}
	return ""
}

func splitFolded(t *testing.T, l string) (string, int64) {
	t.Helper()
	i := strings.LastIndexByte(l, ' ')
	if i < 0 {
		t.Fatalf("folded line %q", l)
	}
	v, err := strconv.ParseInt(l[i+1:], 10, 64)
	if err != nil {
		t.Fatalf("folded line %q: %v", l, err)
	}
	return l[:i], v
}

func diffStacks(want, got map[string]int64) string {
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	n := 0
	for _, k := range keys {
		if want[k] == got[k] {
			continue
		}
		if n++; n > 10 {
			b.WriteString("...\n")
			break
		}
		if w, ok := want[k]; ok {
			b.WriteString("- " + k + " " + strconv.FormatInt(w, 10) + "\n")
		}
		if g, ok := got[k]; ok {
			b.WriteString("+ " + k + " " + strconv.FormatInt(g, 10) + "\n")
		}
	}
	return b.String()
}
