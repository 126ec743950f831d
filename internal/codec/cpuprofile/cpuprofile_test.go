package cpuprofile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprofx/pprofx/internal/model"
)

func fixtures(t testing.TB) []string {
	files, _ := filepath.Glob("../../../testdata/cpuprofile/*.cpuprofile")
	if len(files) < 2 {
		t.Fatalf("%d fixtures", len(files))
	}
	return files
}

// raw is the V8 profile as plain JSON, read apart from the decoder.
type raw struct {
	Nodes []struct {
		ID        int64
		CallFrame map[string]any
		HitCount  int64
		Children  []int64
	}
	StartTime, EndTime  int64
	Samples, TimeDeltas []int64
}

// TestCounts: the V8 profile's own counts: every node is as many samples
// as the samples array names it, which is its hitCount but for (program),
// whose hitCount V8 also counts ticks it kept no sample of; the wall time
// is the span from the first sample to endTime.
func TestCounts(t *testing.T) {
	for _, f := range fixtures(t) {
		data, _ := os.ReadFile(f)
		var r raw
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		p, err := Decode(data, Options{Warn: func(s string) { t.Errorf("%s: warning %s", f, s) }})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		perNode := map[int64]int64{}
		for _, id := range r.Samples {
			perNode[id]++
		}
		// Samples are in node order, one per node with samples: the
		// leaf's name and the count must match.
		i := 0
		var total, wall int64
		for _, n := range r.Nodes {
			name := n.CallFrame["functionName"].(string)
			if name == "(program)" {
				if n.HitCount < perNode[n.ID] {
					t.Errorf("%s: (program) hitCount %d < %d samples", f, n.HitCount, perNode[n.ID])
				}
			} else if n.HitCount != perNode[n.ID] {
				t.Errorf("%s: node %d hitCount %d, %d samples", f, n.ID, n.HitCount, perNode[n.ID])
			}
			if perNode[n.ID] == 0 {
				continue
			}
			s := p.Samples[i]
			i++
			if name == "" {
				name = "(anonymous)"
			}
			leaf := p.LocationLines(int(p.Stacks.Append(nil, int(s.Stack))[0]))
			if got := p.String(p.Functions[leaf[0].Function].Name); got != name {
				t.Errorf("%s: node %d: leaf %q, want %q", f, n.ID, got, name)
			}
			if s.Values()[0] != perNode[n.ID] {
				t.Errorf("%s: node %d: %d samples, want %d", f, n.ID, s.Values()[0], perNode[n.ID])
			}
			total += s.Values()[0]
			wall += s.Values()[1]
		}
		if i != len(p.Samples) || total != int64(len(r.Samples)) {
			t.Errorf("%s: %d samples of %d nodes, total %d, want %d", f, len(p.Samples), i, total, len(r.Samples))
		}
		if want := (r.EndTime - r.StartTime - r.TimeDeltas[0]) * 1000; wall != want {
			t.Errorf("%s: wall %d ns, want %d", f, wall, want)
		}
	}
}

func names(p *model.Profile) map[string]model.Function {
	out := map[string]model.Function{}
	for _, f := range p.Functions {
		out[p.String(f.Name)] = f
	}
	return out
}

// TestFrames: names, files and one-based lines; (root) is no frame, V8's
// own pseudo-frames are.
func TestFrames(t *testing.T) {
	data, _ := os.ReadFile("../../../testdata/cpuprofile/node-work.cpuprofile")
	p, err := Decode(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fs := names(p)
	if _, ok := fs["(root)"]; ok {
		t.Error("(root) is a frame")
	}
	for _, n := range []string{"(program)", "(anonymous)", "(garbage collector)"} {
		if _, ok := fs[n]; !ok {
			t.Errorf("no %s frame", n)
		}
	}
	fib := fs["fib"]
	if !strings.HasSuffix(p.String(fib.Filename), "testdata/cpuprofile/work.js") || fib.StartLine != 6 {
		t.Errorf("fib in %q at line %d, want work.js line 6", p.String(fib.Filename), fib.StartLine)
	}
	for i := range p.Locations {
		ln := p.LocationLines(i)[0]
		f := p.Functions[ln.Function]
		if col := p.ColumnOf(&p.Locations[i], 0); p.String(f.Name) == "fib" && col != 13 {
			t.Errorf("fib column %d, want 13 (V8 places a function at its parameter list: \"function fib(\" is 12 bytes)", col)
		}
	}
}

func TestErrors(t *testing.T) {
	good, _ := os.ReadFile("../../../testdata/cpuprofile/node-work.cpuprofile")
	for in, want := range map[string]string{
		string(good[:100]): "cpuprofile: byte 100: the JSON is cut short",
		`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]}],"startTime":0,"endTime":1,"samples":[],"timeDeltas":[]}`:   "cpuprofile: nodes[0] (id 1): child 2 is not a node",
		`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}],"startTime":0,"endTime":1,"samples":[3],"timeDeltas":[1]}`:                "cpuprofile: samples[0]: node 3 is not in nodes",
		`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[1]}],"startTime":0,"endTime":1,"samples":[1],"timeDeltas":[1]}`: "cpuprofile: nodes[0] (id 1): child 1 has another parent",
		`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}],"startTime":0,"endTime":1,"samples":[1],"timeDeltas":[]}`:                 "cpuprofile: 1 samples but 0 timeDeltas",
		`{"nodes":[{"id":"x"}]}`: "cpuprofile: byte 19: nodes.id is a JSON string, want int64",
		"{\"nodes\":[]} \n x":    "cpuprofile: byte 15: data after the profile's JSON object",
	} {
		_, err := Decode([]byte(in), Options{})
		if err == nil || err.Error() != want {
			t.Errorf("%.50q: %v, want %q", in, err, want)
		}
	}
}
