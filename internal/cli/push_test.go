package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/codec/pprof"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/push"
	"github.com/pprofx/pprofx/internal/testutil/pprofcmp"
)

func withEnv(t *testing.T, env map[string]string) {
	old := getenv
	getenv = func(k string) string { return env[k] }
	t.Cleanup(func() { getenv = old })
}

// Flags override the OTEL_EXPORTER_OTLP_* variables; unset flags leave them.
func TestPushFlagsOverEnv(t *testing.T) {
	withEnv(t, map[string]string{
		"OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT": "http://env:4318/custom",
		"OTEL_EXPORTER_OTLP_PROTOCOL":          "grpc",
		"OTEL_EXPORTER_OTLP_HEADERS":           "authorization=env,x-a=1",
		"OTEL_EXPORTER_OTLP_TIMEOUT":           "1500",
		"OTEL_EXPORTER_OTLP_COMPRESSION":       "none",
	})
	var got *PushOptions
	run := func(args ...string) {
		s := newStreams(nil)
		cmd := NewCmdPush(s.ios, func(o *PushOptions) error { got = o; return nil })
		cmd.SetArgs(args)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
	}
	run("a.pb.gz")
	c := got.Config
	if c.Endpoint != "http://env:4318/custom" || !c.EndpointIsFull || c.Protocol != push.GRPC || c.Timeout != 1500*time.Millisecond ||
		c.Compression != "none" || len(c.Headers) != 2 || c.Concurrency != 2 || c.MaxBatchBytes != push.DefaultMaxBatchBytes {
		t.Errorf("from the environment: %+v", c)
	}
	run("a.pb.gz", "--endpoint", "http://flag:4318", "--protocol", "http/json", "--header", "Authorization=flag", "--timeout", "3s",
		"--compression", "gzip", "--max-batch-bytes", "1MiB", "--concurrency", "4")
	c = got.Config
	if c.Endpoint != "http://flag:4318" || c.EndpointIsFull || c.Protocol != push.HTTPJSON || c.Timeout != 3*time.Second ||
		c.Compression != "gzip" || c.MaxBatchBytes != 1<<20 || c.Concurrency != 4 {
		t.Errorf("flags: %+v", c)
	}
	if len(c.Headers) != 2 || c.Headers[0] != (push.Header{Key: "x-a", Value: "1"}) || c.Headers[1] != (push.Header{Key: "Authorization", Value: "flag"}) {
		t.Errorf("--header replaces the variable's header of the same key: %v", c.Headers)
	}
}

func TestPushUsageErrors(t *testing.T) {
	withEnv(t, map[string]string{})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"push"}, "push needs at least one input"},
		{[]string{"push", "a", "--protocol", "thrift"}, `unknown protocol "thrift"`},
		{[]string{"push", "a", "--header", "novalue"}, `header "novalue": want KEY=VALUE`},
		{[]string{"push", "a", "--concurrency", "0"}, "--concurrency 0: want 1 to 64"},
		{[]string{"push", "a", "--compression", "br"}, `unknown compression "br"`},
		{[]string{"push", "-", "--files-from", "-"}, "standard input can be read only once"},
		{[]string{"push", "a", "--resource", "x"}, `--resource "x": want KEY=VALUE`},
	} {
		s := newStreams(nil)
		if code := Main(c.args, s.ios); code != ExitUsage || !strings.Contains(s.err.String(), c.want) {
			t.Errorf("%v: exit %d, %q (want %q)", c.args, code, s.err, c.want)
		}
	}
	withEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "1s"})
	s := newStreams(nil)
	if code := Main([]string{"push", "a"}, s.ios); code != ExitUsage || !strings.Contains(s.err.String(), `OTEL_EXPORTER_OTLP_TIMEOUT="1s": want milliseconds`) {
		t.Errorf("bad variable: exit %d, %q", code, s.err)
	}
}

// --dry-run writes the requests in the collector file exporter's framing;
// read back they are the inputs, mapping for mapping and in order, whether
// each profile goes alone or all share one request (and so one OTLP
// dictionary): a profile's own mapping list travels with it, mappings no
// sample uses included.
func TestPushDryRun(t *testing.T) {
	withEnv(t, map[string]string{})
	inputs := []string{cpuFixture, "../../testdata/go/heap.pb.gz", "../../testdata/go/block.pb.gz", "../../testdata/go/goroutine.pb.gz"}
	unused := 0
	for _, name := range inputs {
		src, _ := os.ReadFile(name)
		unused += unusedMappingsOf(parse(t, src))
	}
	if unused == 0 {
		t.Fatal("no input has a mapping that no sample uses: the test would prove nothing")
	}
	for _, c := range []struct {
		batch    string
		requests int
	}{{"1", len(inputs)}, {"2MiB", 1}} {
		out := filepath.Join(t.TempDir(), "requests.bin")
		s := newStreams(nil)
		args := append([]string{"push", "--dry-run", out, "--max-batch-bytes", c.batch}, inputs...)
		if code := Main(args, s.ios); code != 0 {
			t.Fatalf("exit %d: %s", code, s.err)
		}
		if !strings.Contains(s.err.String(), fmt.Sprintf("wrote (dry run) %d profiles (", len(inputs))) ||
			!strings.Contains(s.err.String(), fmt.Sprintf(" in %d requests", c.requests)) || strings.Contains(s.err.String(), "warning") {
			t.Errorf("--max-batch-bytes %s: summary: %s", c.batch, s.err)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := otlp.Decode(data, otlp.DecodeOptions{})
		if err != nil || len(ps) != len(inputs) {
			t.Fatalf("%d profiles, %v", len(ps), err)
		}
		for i, name := range inputs {
			src, _ := os.ReadFile(name)
			pprofextended.FoldForPprof(ps[i], nil)
			var buf bytes.Buffer
			if err := pprof.Encode(&buf, ps[i], pprof.EncodeOptions{}); err != nil {
				t.Fatal(err)
			}
			if d := pprofcmp.Diff(parse(t, src), parse(t, buf.Bytes())); d != "" {
				t.Errorf("--max-batch-bytes %s: %s: %s", c.batch, name, d)
			}
		}
	}
	// JSON requests are JSON lines.
	s := newStreams(nil)
	if code := Main([]string{"push", "--dry-run", "-", "--protocol", "http/json", cpuFixture}, s.ios); code != 0 {
		t.Fatalf("exit %d: %s", code, s.err)
	}
	if n := strings.Count(s.out.String(), "\n"); n != 1 || !strings.HasPrefix(s.out.String(), "{") {
		t.Errorf("%d lines of JSON", n)
	}
}

// An unreadable input is named; the others still go; exit 1.
func TestPushUnreadableInput(t *testing.T) {
	withEnv(t, map[string]string{})
	out := filepath.Join(t.TempDir(), "requests.bin")
	s := newStreams(nil)
	code := Main([]string{"push", "--dry-run", out, "nonexistent.pb.gz", cpuFixture}, s.ios)
	if code != 1 || !strings.Contains(s.err.String(), "pprofx: nonexistent.pb.gz: no such file or directory") ||
		!strings.Contains(s.err.String(), "1 profiles (2 OTLP profiles") || !strings.Contains(s.err.String(), "1 files unreadable") {
		t.Errorf("exit %d: %s", code, s.err)
	}
}

// unusedMappingsOf counts the mappings of p that no sample's location uses.
func unusedMappingsOf(p *profile.Profile) int {
	used := map[*profile.Mapping]bool{}
	for _, s := range p.Sample {
		for _, l := range s.Location {
			used[l.Mapping] = true
		}
	}
	n := 0
	for _, m := range p.Mapping {
		if !used[m] {
			n++
		}
	}
	return n
}
