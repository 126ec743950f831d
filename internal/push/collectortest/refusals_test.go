package collectortest

import (
	"strings"
	"testing"
	"time"

	gp "github.com/google/pprof/profile"
)

// TestReceiverRefusals: the real OTLP receiver answering with the error
// of a component behind it (pprofx_fault, cmd/otelcol-pprofx/fault.go,
// refuses the first requests; the receiver maps its error as it maps any
// consumer's). Its gRPC status, RetryInfo included, reaches pprofx
// unchanged over gRPC; over HTTP the receiver turns it into a status code,
// Retry-After from RetryInfo, and a google.rpc.Status body.
//
// (OTLP partial success cannot be had from this receiver: its Export
// always answers an empty ExportProfilesServiceResponse and turns every
// consumer error into a failure of the whole request — otlpreceiver
// v0.165.0 internal/profiles/otlp.go. TestPartialSuccess uses a loopback
// server.)
func TestReceiverRefusals(t *testing.T) {
	files := some(t)
	for _, c := range []struct {
		name, fault string
		extra       []string
		// per protocol: exit status, and what stderr must hold
		code   map[string]int
		stderr map[string][]string
		// delivered: the profiles of files[delivered:] arrive
		delivered int
		minTime   time.Duration // the push takes at least this long
	}{
		{
			name:  "resource-exhausted-with-retry-info",
			fault: "fail_first: 2\ncode: resource_exhausted\nretry_delay: 1s\nmessage: queue is full",
			code:  map[string]int{"http/protobuf": 0, "grpc": 0},
			stderr: map[string][]string{
				"http/protobuf": {"429 Too Many Requests: queue is full (request 1 of the 2 refused); retrying in 1s", "(request 2 of the 2 refused); retrying in 1s", " 2 retries"},
				"grpc":          {"ResourceExhausted: queue is full (request 1 of the 2 refused); retrying in 1s", "(request 2 of the 2 refused); retrying in 1s", " 2 retries"},
			},
			minTime: 1900 * time.Millisecond,
		},
		{
			// OTLP/gRPC: ResourceExhausted is retried only with RetryInfo;
			// OTLP/HTTP: 429 always is.
			name:  "resource-exhausted-without-retry-info",
			fault: "fail_first: 1\ncode: resource_exhausted\nmessage: over quota",
			code:  map[string]int{"http/protobuf": 0, "grpc": 1},
			stderr: map[string][]string{
				"http/protobuf": {"429 Too Many Requests: over quota (request 1 of the 1 refused); retrying in", " 1 retries"},
				"grpc":          {"ResourceExhausted: over quota (request 1 of the 1 refused)", " 0 retries", "4 profiles not delivered"},
			},
		},
		{
			// A permanent error without a status: the receiver answers
			// Internal (HTTP 500), which is not retried and stops the push.
			name:  "permanent",
			fault: "fail_first: 1\ncode: permanent\nmessage: backend rejected the data",
			code:  map[string]int{"http/protobuf": 1, "grpc": 1},
			stderr: map[string][]string{
				"http/protobuf": {"500 Internal Server Error: Permanent error: backend rejected the data (request 1 of the 1 refused)", " 0 retries"},
				"grpc":          {"Internal: Permanent error: backend rejected the data (request 1 of the 1 refused)", " 0 retries"},
			},
		},
		{
			// InvalidArgument (HTTP 400) refuses one request's data: the
			// other requests still go; exit 1.
			name:  "invalid-argument-one-request-of-four",
			fault: "fail_first: 1\ncode: invalid_argument\nmessage: bad profile",
			extra: []string{"--max-batch-bytes", "1", "--concurrency", "1"},
			code:  map[string]int{"http/protobuf": 1, "grpc": 1},
			stderr: map[string][]string{
				"http/protobuf": {"cpu.pb.gz: refused: 400 Bad Request: bad profile (request 1 of the 1 refused)", "pushed 3 profiles", "1 profiles not delivered (1 requests failed)", " 0 retries"},
				"grpc":          {"cpu.pb.gz: refused: InvalidArgument: bad profile (request 1 of the 1 refused)", "pushed 3 profiles", "1 profiles not delivered (1 requests failed)", " 0 retries"},
			},
			delivered: 1,
		},
	} {
		for _, proto := range []string{"http/protobuf", "grpc"} {
			t.Run(c.name+"/"+strings.ReplaceAll(proto, "/", "-"), func(t *testing.T) {
				col := newCollector(t, collectorOpts{fault: c.fault})
				col.start(t)
				args := append([]string{"push", "--endpoint", endpointFor(col, proto), "--protocol", proto, "--retry-initial", "10ms"}, c.extra...)
				start := time.Now()
				code, stderr := pprofx(t, append(args, files...)...)
				took := time.Since(start)
				if code != c.code[proto] {
					t.Errorf("exit %d, want %d", code, c.code[proto])
				}
				for _, s := range c.stderr[proto] {
					if !strings.Contains(stderr, s) {
						t.Errorf("stderr lacks %q", s)
					}
				}
				if took < c.minTime {
					t.Errorf("the push took %s: the server's RetryInfo asked for 1s before each of 2 retries", took)
				}
				want := map[string][]*gp.Profile{}
				if c.code[proto] == 0 || c.delivered > 0 {
					for f, ps := range sent(t, files[c.delivered:]) {
						want[f] = ps
					}
				}
				var got []*gp.Profile
				if out := col.outputOrNone(t); len(out) > 0 {
					got = received(t, out)
				}
				sameProfiles(t, want, got)
				if t.Failed() {
					t.Logf("collector log:\n%s", col.logText())
				}
			})
		}
	}
}
