package jfr

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/codec/folded"
)

// asyncProfilerSuffix is async-profiler's collapsed-stack suffix of each
// JFR frame type: FRAME_SUFFIX = {"_[0]", "_[j]", "_[i]", "", "", "_[k]",
// "_[1]"} indexed by its TYPE_INTERPRETED (0), TYPE_JIT_COMPILED (1),
// TYPE_INLINED (2), TYPE_NATIVE (3), TYPE_CPP (4), TYPE_KERNEL (5) and
// TYPE_C1_COMPILED (6), the order of the frame types it writes to JFR
// (src/converter/one/convert/FlameGraph.java and Frame.java of
// github.com/async-profiler/async-profiler).
var asyncProfilerSuffix = map[string]string{
	"Interpreted": "_[0]", "JIT compiled": "_[j]", "Inlined": "_[i]",
	"Native": "", "C++": "", "Kernel": "_[k]", "C1 compiled": "_[1]",
}

// TestFoldedSuffixes: folded output of a recording names every frame as
// docs/jfr.md says with async-profiler's suffix of the frame type that
// the JDK's jfr print gives it, stacks summed as jfr print's events.
func TestFoldedSuffixes(t *testing.T) {
	if _, err := exec.LookPath("jfr"); err != nil {
		t.Skip("SKIPPED: the JDK's jfr is not installed (apt-get install openjdk-17-jdk-headless); it is the reference")
	}
	if folded.AttrJFRFrameType != AttrJFRFrameType {
		t.Fatalf("folded reads %q, the JFR reader writes %q", folded.AttrJFRFrameType, AttrJFRFrameType)
	}
	files := fixtures(t)
	dir := t.TempDir()
	for _, name := range []string{"cpu.jfr", "jfr-parser/example.jfr.gz"} {
		t.Run(name, func(t *testing.T) {
			b := files[name]
			want := map[string]int64{}
			types := map[string]bool{}
			for _, path := range splitChunks(t, b, filepath.Join(dir, strings.ReplaceAll(name, "/", "_"))) {
				for _, e := range jfrPrint(t, path, "jdk.ExecutionSample") {
					var st struct {
						Frames []refFrame `json:"frames"`
					}
					if raw := e.Values["stackTrace"]; len(raw) > 0 && string(raw) != "null" {
						if err := json.Unmarshal(raw, &st); err != nil {
							t.Fatal(err)
						}
					}
					var names []string
					for i := len(st.Frames) - 1; i >= 0; i-- {
						f := st.Frames[i]
						suffix, ok := asyncProfilerSuffix[f.Type]
						if !ok {
							t.Fatalf("frame type %q has no async-profiler suffix", f.Type)
						}
						types[f.Type] = true
						names = append(names, folded.Escape(refName(f))+suffix)
					}
					if len(names) > 0 {
						want[strings.Join(names, ";")]++
					}
				}
			}
			p, _, err := DecodeBytes(b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := folded.Encode(&out, p, folded.WriteOptions{SampleType: "samples"}); err != nil {
				t.Fatal(err)
			}
			got := map[string]int64{}
			sc := bufio.NewScanner(&out)
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				sp := strings.LastIndexByte(sc.Text(), ' ')
				n, err := strconv.ParseInt(sc.Text()[sp+1:], 10, 64)
				if err != nil {
					t.Fatalf("folded line %q: %v", sc.Text(), err)
				}
				got[sc.Text()[:sp]] += n
			}
			if len(want) == 0 || len(types) < 3 {
				t.Fatalf("jfr print gave %d stacks with frame types %v: too little to test", len(want), types)
			}
			bad := 0
			for k, v := range want {
				if got[k] != v {
					bad++
					if bad <= 3 {
						t.Errorf("stack %s: jfr print %d, pprofx %d", k, v, got[k])
					}
				}
			}
			for k, v := range got {
				if _, ok := want[k]; !ok {
					bad++
					if bad <= 3 {
						t.Errorf("pprofx has a stack jfr print does not: %s %d", k, v)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d stacks differ", bad, len(want))
			}
			t.Logf("%d stacks, frame types %v", len(want), types)
		})
	}
}
