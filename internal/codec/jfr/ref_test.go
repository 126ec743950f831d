package jfr

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pprofx/pprofx/internal/model"
)

// fixtures returns the recordings under testdata/jfr, decompressed.
func fixtures(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, pat := range []string{"*.jfr", "*.jfr.gz", "jfr-parser/*.jfr.gz"} {
		files, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "jfr", pat))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(f, ".gz") {
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if _, err := buf.ReadFrom(zr); err != nil {
					t.Fatal(err)
				}
				b = buf.Bytes()
			}
			name, _ := filepath.Rel(filepath.Join("..", "..", "..", "testdata", "jfr"), f)
			out[name] = b
		}
	}
	if len(out) < 10 {
		t.Fatalf("found %d recordings under testdata/jfr", len(out))
	}
	return out
}

// refKinds says, for each event type, the sample types it becomes and the
// field of jfr print's JSON that gives the measure ("" for the period).
var refKinds = map[string][3]string{
	"jdk.ExecutionSample":             {"samples", "cpu", ""},
	"jdk.NativeMethodSample":          {"wall_samples", "wall", ""},
	"profiler.WallClockSample":        {"wall_samples", "wall", ""},
	"jdk.ObjectAllocationSample":      {"alloc_objects", "alloc_space", "weight"},
	"jdk.ObjectAllocationInNewTLAB":   {"alloc_in_new_tlab_objects", "alloc_in_new_tlab_bytes", "tlabSize"},
	"jdk.ObjectAllocationOutsideTLAB": {"alloc_outside_tlab_objects", "alloc_outside_tlab_bytes", "allocationSize"},
	"jdk.JavaMonitorEnter":            {"contentions", "delay", "duration"},
	"jdk.ThreadPark":                  {"contentions", "delay", "duration"},
	"profiler.LiveObject":             {"inuse_objects", "inuse_space", "allocationSize"},
	"profiler.Malloc":                 {"malloc_objects", "malloc_bytes", "size"},
}

// refPeriods is each recording's sampling period per sample type, as
// jdk.ActiveSetting says (jfr print --events jdk.ActiveSetting); 0 where
// it records none (async-profiler's interval 0).
var refPeriods = map[string]map[string]int64{
	"cpu.jfr":                            {"cpu": 10e6, "wall": 20e6},
	"cpu.jfr.gz":                         {"cpu": 10e6, "wall": 20e6},
	"cpu-profile.jfr":                    {"cpu": 10e6, "wall": 20e6},
	"alloc.jfr":                          {"cpu": 10e6, "wall": 20e6},
	"lock.jfr":                           {"cpu": 10e6, "wall": 20e6},
	"concat.jfr":                         {"cpu": 10e6, "wall": 20e6},
	"jfr-parser/example.jfr.gz":          {"cpu": 10e6},
	"jfr-parser/dd-trace-java.jfr.gz":    {"cpu": 9e6},
	"jfr-parser/wall.jfr.gz":             {"wall": 10e6},
	"jfr-parser/wall_tick_sample.jfr.gz": {"wall": 0},
	"jfr-parser/dump2.jfr.gz":            {"wall": 10e6},
}

// refWallExec are the async-profiler recordings with the setting
// event=wall, whose jdk.ExecutionSample events are wall-clock samples.
var refWallExec = map[string]bool{"jfr-parser/dump2.jfr.gz": true}

// refChunkPeriods are the periods of each chunk of chunks.jfr: the second
// ran while a recording sampling every 5 ms was on.
var refChunkPeriods = map[string][]map[string]int64{
	"chunks.jfr": {{"cpu": 10e6, "wall": 20e6}, {"cpu": 5e6, "wall": 20e6}, {"cpu": 10e6, "wall": 20e6}},
}

// splitChunks writes each chunk of a recording to its own file: jfr print
// reads a file's chunks as one recording and looks a constant of a later
// chunk up in an earlier chunk's pools when its own has it not, which
// misreads recordings concatenated from two JVMs (concat.jfr), so the
// reference reads one chunk at a time.
func splitChunks(t *testing.T, b []byte, base string) []string {
	t.Helper()
	var paths []string
	for off := 0; off < len(b); {
		if len(b)-off < chunkHeaderSize {
			t.Fatalf("%s: cut chunk header at %d", base, off)
		}
		size := int(parseHeader(b[off:]).size)
		path := fmt.Sprintf("%s.chunk%d.jfr", base, len(paths)+1)
		if err := os.WriteFile(path, b[off:off+size], 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
		off += size
	}
	return paths
}

type refFrame struct {
	Method struct {
		Type *struct {
			Name string `json:"name"`
		} `json:"type"`
		Name       string `json:"name"`
		Descriptor string `json:"descriptor"`
	} `json:"method"`
	LineNumber    int64  `json:"lineNumber"`
	BytecodeIndex int64  `json:"bytecodeIndex"`
	Type          string `json:"type"`
}

type refThread struct {
	OSName       string `json:"osName"`
	OSThreadID   int64  `json:"osThreadId"`
	JavaName     string `json:"javaName"`
	JavaThreadID int64  `json:"javaThreadId"`
}

type refEvent struct {
	Type   string                     `json:"type"`
	Values map[string]json.RawMessage `json:"values"`
}

// jfrPrint runs the JDK's jfr print on one event type of a recording.
func jfrPrint(t *testing.T, path, typ string) []refEvent {
	t.Helper()
	out, err := exec.Command("jfr", "print", "--json", "--stack-depth", "2048", "--events", typ, path).Output()
	if err != nil {
		t.Fatalf("jfr print --events %s %s: %v", typ, path, err)
	}
	var doc struct {
		Recording struct {
			Events []refEvent `json:"events"`
		} `json:"recording"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("jfr print --events %s %s: %v", typ, path, err)
	}
	return doc.Recording.Events
}

// refName is the function name docs/jfr.md says a frame gets.
func refName(f refFrame) string {
	cls := ""
	if f.Method.Type != nil {
		cls = f.Method.Type.Name
	}
	if javaNamed(f.Type, f.Method.Descriptor) {
		cls = javaClassName(cls)
	}
	switch {
	case cls == "":
		return f.Method.Name
	case f.Method.Name == "":
		return cls
	}
	return cls + "." + f.Method.Name
}

func frameKey(name, desc string, line, bci int64, typ string) string {
	if line < 0 {
		line = 0
	}
	return fmt.Sprintf("%s %s :%d @%d [%s]", name, desc, line, bci, typ)
}

// isoDuration parses Java's Duration.toString (PT0.111527624S, PT1M2S).
func isoDuration(t *testing.T, s string) int64 {
	t.Helper()
	d, err := time.ParseDuration(strings.ToLower(strings.TrimPrefix(s, "PT")))
	if err != nil {
		t.Fatalf("duration %q: %v", s, err)
	}
	return int64(d)
}

// modelKey is a sample's stack and thread in the form refKey gives them.
func modelKey(p *model.Profile, s model.Sample) string {
	var b strings.Builder
	for _, l := range p.Stacks.Append(nil, int(s.Stack)) {
		loc := p.Locations[l]
		var typ string
		var bcis []model.Value
		for _, a := range p.LocationAttrs(int(l)) {
			switch a.Key {
			case AttrJFRFrameType:
				typ = a.Value.Str
			case AttrBytecodeIndex:
				bcis = a.Value.Array
			}
		}
		lines := p.LinesOf(&loc)
		for i, ln := range lines {
			fn := p.Functions[ln.Function]
			ft := typ
			if i < len(lines)-1 {
				ft = "Inlined"
			}
			b.WriteString(frameKey(p.String(fn.Name), p.String(fn.SystemName), ln.Line, bcis[i].Int, ft))
			b.WriteString("\n")
		}
	}
	for _, l := range p.LabelSets[s.LabelSet].Labels() {
		if l.IsNumeric() {
			fmt.Fprintf(&b, "%s=%d ", p.String(l.Key), l.Num)
		} else {
			fmt.Fprintf(&b, "%s=%s ", p.String(l.Key), p.String(l.Str))
		}
	}
	return b.String()
}

func refKey(t *testing.T, e refEvent) string {
	var b strings.Builder
	var st struct {
		Frames []refFrame `json:"frames"`
	}
	if raw := e.Values["stackTrace"]; len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range st.Frames {
		b.WriteString(frameKey(refName(f), f.Method.Descriptor, f.LineNumber, f.BytecodeIndex, f.Type))
		b.WriteString("\n")
	}
	raw := e.Values["sampledThread"]
	if len(raw) == 0 {
		raw = e.Values["eventThread"]
	}
	var th refThread
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &th); err != nil {
			t.Fatal(err)
		}
	}
	name, id := th.JavaName, th.JavaThreadID
	if name == "" {
		name = th.OSName
	}
	if id == 0 {
		id = th.OSThreadID
	}
	if name != "" {
		fmt.Fprintf(&b, "thread=%s ", name)
	}
	if id != 0 {
		fmt.Fprintf(&b, "thread_id=%d ", id)
	}
	return b.String()
}

// TestAgainstJDK compares, for every recording and every event type that
// becomes samples, the stacks, threads and values pprofx reads with what
// the JDK's jfr print gives, summed by stack and thread, exactly.
func TestAgainstJDK(t *testing.T) {
	if _, err := exec.LookPath("jfr"); err != nil {
		t.Skip("SKIPPED: the JDK's jfr is not installed (apt-get install openjdk-17-jdk-headless); it is the reference")
	}
	dir := t.TempDir()
	for name, b := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			chunks := splitChunks(t, b, filepath.Join(dir, strings.ReplaceAll(strings.TrimSuffix(name, ".gz"), "/", "_")))
			p, info, err := DecodeBytes(b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			col := map[string]int{}
			for i, st := range p.SampleTypes {
				col[p.String(st.Type)] = i
			}
			// Expected and actual [count, measure] by sample type and key.
			want := map[string]map[string][2]int64{}
			got := map[string]map[string][2]int64{}
			var types []string
			for typ := range info.Events {
				if _, ok := refKinds[typ]; ok {
					types = append(types, typ)
				}
			}
			sort.Strings(types)
			if len(types) == 0 {
				t.Fatal("no event type that becomes samples")
			}
			counts := map[string]int{}
			for ci, path := range chunks {
				periods := refPeriods[name]
				if cp := refChunkPeriods[name]; cp != nil {
					periods = cp[ci]
				}
				for _, e := range jfrPrint(t, path, strings.Join(types, ",")) {
					k := refKinds[e.Type]
					if refWallExec[name] && e.Type == "jdk.ExecutionSample" {
						k = refKinds["profiler.WallClockSample"]
					}
					counts[e.Type]++
					if want[k[0]] == nil {
						want[k[0]] = map[string][2]int64{}
					}
					want[k[0]][refKey(t, e)] = addRef(t, want[k[0]][refKey(t, e)], e, k, periods)
				}
			}
			for _, typ := range types {
				if counts[typ] != info.Events[typ] {
					t.Errorf("%s: jfr print gives %d events, pprofx read %d", typ, counts[typ], info.Events[typ])
				}
			}
			_, checkMeasure := refPeriods[name]
			checkMeasure = checkMeasure || refChunkPeriods[name] != nil
			for st := range want {
				c, ok := col[st]
				if !ok {
					t.Errorf("no sample type %s", st)
					continue
				}
				m := map[string][2]int64{}
				for _, s := range p.Samples {
					if s.Values()[c] == 0 && s.Values()[c+1] == 0 {
						continue
					}
					key := modelKey(p, s)
					v := m[key]
					m[key] = [2]int64{v[0] + s.Values()[c], v[1] + s.Values()[c+1]}
				}
				got[st] = m
			}
			for st, w := range want {
				g := got[st]
				var wantTotal, gotTotal [2]int64
				diffs := 0
				for key, wv := range w {
					wantTotal[0] += wv[0]
					wantTotal[1] += wv[1]
					gv := g[key]
					if gv[0] != wv[0] || (checkMeasure && gv[1] != wv[1]) {
						if diffs++; diffs <= 3 {
							t.Errorf("%s: stack\n%s\njfr print: %v, pprofx: %v", st, key, wv, gv)
						}
					}
				}
				for key, gv := range g {
					gotTotal[0] += gv[0]
					gotTotal[1] += gv[1]
					if _, ok := w[key]; !ok {
						if diffs++; diffs <= 3 {
							t.Errorf("%s: pprofx has a stack jfr print does not:\n%s\n%v", st, key, gv)
						}
					}
				}
				if diffs > 0 {
					t.Errorf("%s: %d of %d stacks differ", st, diffs, len(w))
				}
				if gotTotal[0] != wantTotal[0] || (checkMeasure && gotTotal[1] != wantTotal[1]) {
					t.Errorf("%s: totals: jfr print %v, pprofx %v", st, wantTotal, gotTotal)
				}
				t.Logf("%s: %d stacks, totals %v", st, len(w), wantTotal)
			}
		})
	}
}

// addRef adds an event's count and measure, as jfr print gives them, to v.
func addRef(t *testing.T, v [2]int64, e refEvent, k [3]string, periods map[string]int64) [2]int64 {
	t.Helper()
	count, measure := int64(1), int64(0)
	if raw, ok := e.Values["samples"]; ok {
		var err error
		if count, err = strconv.ParseInt(string(raw), 10, 64); err != nil {
			t.Fatalf("%s samples: %v", e.Type, err)
		}
	}
	switch k[2] {
	case "":
		measure = count * periods[k[1]]
	case "duration":
		var s string
		if err := json.Unmarshal(e.Values["duration"], &s); err != nil {
			t.Fatal(err)
		}
		measure = isoDuration(t, s)
	default:
		var err error
		if measure, err = strconv.ParseInt(string(e.Values[k[2]]), 10, 64); err != nil {
			t.Fatalf("%s %s: %v", e.Type, k[2], err)
		}
	}
	return [2]int64{v[0] + count, v[1] + measure}
}
