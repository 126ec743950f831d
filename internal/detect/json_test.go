package detect

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSniffJSONFormats: every JSON format is told apart by keys and
// shapes only it has; one key of another format's is never enough.
func TestSniffJSONFormats(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want Format
	}{
		{"speedscope by $schema", `{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[]},"profiles":[]}`, Speedscope},
		{"speedscope without $schema", `{"profiles":[{"type":"sampled","name":"a","unit":"none","startValue":0,"endValue":1,"samples":[],"weights":[]}],"shared":{"frames":[{"name":"f"}]}}`, Speedscope},
		{"speedscope, shared first", `{"shared":{"frames":[{"name":"f"}]},"profiles":[`, Speedscope},
		{"cpuprofile", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]}],"startTime":1,"endTime":2,"samples":[1],"timeDeltas":[1]}`, CPUProfile},
		{"cpuprofile head cut in the nodes", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lin`, CPUProfile},
		{"trace events object", `{"traceEvents":[{"pid":1,"tid":1,"ts":0,"ph":"X","name":"a"}]}`, TraceEventJSON},
		{"trace events array", `[{"pid":1,"tid":1,"ts":0,"ph":"X","name":"a"}`, TraceEventJSON},
		{"stackprof", `{"version":1.2,"mode":"wall","interval":1000,"samples":3,"gc_samples":0,"missed_samples":0,"metadata":{},"frames":{"1":{"name":"a"}},"raw":[1,1,1]}`, StackprofJSON},
		{"firefox", `{"meta":{"version":24,"startTime":1.5,"interval":1,"product":"Firefox"},"libs":[],"threads":[{"samples":{"schema":{},"data":[]}}]}`, FirefoxProfile},
		{"firefox processed", `{"meta":{"interval":1,"startTime":0,"preprocessedProfileVersion":47},"threads":[]}`, FirefoxProfile},
		{"otlp json", `{"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"samples":[]}]}]}]}`, OTLPJSON},
	}
	for _, c := range cases {
		got, err := Sniff([]byte(c.in))
		if err != nil || got.Format != c.want {
			t.Errorf("%s: %+v %v, want %s", c.name, got, err, c.want)
		}
	}
	// One key of a format is not the format.
	for _, in := range []string{
		`{"samples":[1,2,3]}`,
		`{"profiles":[]}`,
		`{"nodes":[1,2]}`,
		`{"nodes":[],"samples":[]}`,
		`{"traceEvents":[]}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","profiles":[]}`,
		`{"frames":{},"mode":"cpu"}`,
		`{"meta":{"interval":1}}`,
		`[{"ph":"X"}]`,
		`{"a":{"resourceProfiles":[]}}`,
		`{"x":"\"resourceProfiles\":"}`,
	} {
		if got, err := Sniff([]byte(in)); err == nil {
			t.Errorf("%s: detected %+v", in, got)
		}
	}
}

// TestSniffLegacyText: the headers google/pprof's legacy parsers accept,
// on its own test data and on Go's debug=1 output.
func TestSniffLegacyText(t *testing.T) {
	cases := map[string]string{
		"heap profile: 1: 2 [3: 4] @ heap/1048576\n":                                   "heap profile @ heap/1048576",
		"heap profile:    144:  8498176 [   144:  8498176] @ heapz_v2/524288\n":        "heap profile @ heapz_v2/524288",
		"heap profile:     85: 178257920 [    85: 178257920] @ growthz\n":              "heap profile @ growthz",
		"heap profile: 1: 1 [ 1: 1] @ heapprofile\n":                                   "heap profile @ heapprofile",
		"--- contentionz 1 ---\ncycles/second = 3201000000\n":                          "contentionz",
		"--- contentionz 1 ---\nformat = java\n":                                       "Java contentionz",
		"--- heapz 1 ---\nformat = java\n":                                             "Java heapz",
		"--- mutex:\ncycles/second=2596123749\n":                                       "Go mutex",
		"--- contention:\ncycles/second=2596123749\n":                                  "Go block (contention)",
		"--- threadz 1 ---\n\n--- Thread 7f794ab90940 (name: main/14748) stack: ---\n": "threadz",
		"goroutine profile: total 4\n1 @ 0x442df1\n":                                   "goroutine count",
		"threadcreate profile: total 4\n4 @ 0x0 0x0\n#\t0x0\n":                         "threadcreate count",
		"# a comment\n\nthreadcreate profile: total 7\n":                               "threadcreate count",
	}
	for in, layout := range cases {
		got, err := Sniff([]byte(in))
		if err != nil || got.Format != LegacyText || got.Layout != layout {
			t.Errorf("%q: %+v %v, want %s %q", in, got, err, LegacyText, layout)
		}
	}
	files, _ := filepath.Glob("../../testdata/legacy/*")
	for _, f := range files {
		if filepath.Ext(f) == ".go" {
			continue
		}
		data, _ := os.ReadFile(f)
		got, err := Sniff(data[:min(len(data), HeadSize)])
		if err != nil || got.Format != LegacyText {
			t.Errorf("%s: %+v %v", f, got, err)
		}
	}
}
