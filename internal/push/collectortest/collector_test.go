package collectortest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pprofx/pprofx/internal/cli"
)

// collectorBin is the collector built by TestMain.
var collectorBin string

func TestMain(m *testing.M) {
	if os.Getenv("PPROFX_TEST_AS_MAIN") == "1" {
		// The test binary stands in for pprofx (TestHelpExamples).
		os.Exit(cli.Execute())
	}
	if os.Getenv("PPROFX_SKIP_COLLECTOR") != "" {
		fmt.Println("collectortest: PPROFX_SKIP_COLLECTOR is set: the real-collector tests are skipped")
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "otelcol-pprofx")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	collectorBin = filepath.Join(dir, "otelcol-pprofx")
	build := exec.Command("go", "build", "-o", collectorBin, "./cmd/otelcol-pprofx")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Println("building the collector:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// collector is a running otelcol-pprofx: the OTLP receiver on loopback
// ports chosen at run time, the file exporter writing every request it
// receives to Out (each ProfilesData after its 4-byte length).
type collector struct {
	HTTP, GRPC string // host:port
	Out        string
	dir        string
	cmd        *exec.Cmd
	log        bytes.Buffer
	done       chan struct{}
	stopOnce   sync.Once
}

type collectorOpts struct {
	tlsCert, tlsKey string // serve TLS with this certificate
	clientCA        string // and require client certificates signed by this CA
	httpPort        string // fixed ports (for "not up yet")
	grpcPort        string
	// fault, when set, is the settings of a pprofx_fault processor
	// (cmd/otelcol-pprofx/fault.go) put before the file exporter, as YAML
	// lines, e.g. "fail_first: 2\ncode: resource_exhausted".
	fault string
}

// freePort returns a loopback port nothing listens on right now.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func newCollector(t testing.TB, o collectorOpts) *collector {
	t.Helper()
	c := &collector{dir: t.TempDir(), done: make(chan struct{})}
	c.HTTP, c.GRPC = o.httpPort, o.grpcPort
	if c.HTTP == "" {
		c.HTTP = freePort(t)
	}
	if c.GRPC == "" {
		c.GRPC = freePort(t)
	}
	c.Out = filepath.Join(c.dir, "profiles.bin")
	tls := ""
	if o.tlsCert != "" {
		tls = fmt.Sprintf("\n        tls:\n          cert_file: %s\n          key_file: %s", o.tlsCert, o.tlsKey)
		if o.clientCA != "" {
			tls += "\n          client_ca_file: " + o.clientCA
		}
	}
	processors, pipeline := "", ""
	if o.fault != "" {
		processors = "processors:\n  pprofx_fault:\n    " + strings.ReplaceAll(o.fault, "\n", "\n    ") + "\n"
		pipeline = "\n      processors: [pprofx_fault]"
	}
	conf := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc:
        endpoint: %s%s
      http:
        endpoint: %s%s
%sexporters:
  file:
    path: %s
    format: proto
    flush_interval: 10ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    profiles:
      receivers: [otlp]%s
      exporters: [file]
`, c.GRPC, tls, c.HTTP, tls, processors, c.Out, pipeline)
	confPath := filepath.Join(c.dir, "collector.yaml")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command(collectorBin, "--config", confPath, "--feature-gates", "service.profilesSupport")
	c.cmd.Stdout, c.cmd.Stderr = &syncWriter{w: &c.log}, &syncWriter{w: &c.log}
	return c
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// start runs the collector and waits until both receivers answer.
func (c *collector) start(t testing.TB) {
	t.Helper()
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.cmd.Wait(); close(c.done) }()
	t.Cleanup(func() { c.stop(t) })
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-c.done:
			t.Fatalf("the collector exited: %s", c.log.String())
		default:
		}
		if up(c.HTTP) && up(c.GRPC) && strings.Contains(c.logText(), "Everything is ready") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the collector did not come up in 60s: %s", c.logText())
}

func (c *collector) logText() string {
	w := c.cmd.Stdout.(*syncWriter)
	w.mu.Lock()
	defer w.mu.Unlock()
	return c.log.String()
}

func up(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// stop ends the collector (its file exporter flushes and closes the file).
func (c *collector) stop(t testing.TB) {
	c.stopOnce.Do(func() {
		if c.cmd.Process == nil {
			return
		}
		sig := os.Signal(syscall.SIGTERM)
		if runtime.GOOS == "windows" {
			sig = os.Kill
		}
		c.cmd.Process.Signal(sig)
		select {
		case <-c.done:
		case <-time.After(20 * time.Second):
			c.cmd.Process.Kill()
			<-c.done
		}
	})
}

// output stops the collector and returns what its file exporter wrote.
func (c *collector) output(t testing.TB) []byte {
	t.Helper()
	c.stop(t)
	data, err := os.ReadFile(c.Out)
	if err != nil {
		t.Fatalf("the collector wrote nothing: %v\n%s", err, c.logText())
	}
	return data
}

// outputOrNone is output, or nothing when the file exporter received
// nothing (it then writes no file).
func (c *collector) outputOrNone(t testing.TB) []byte {
	t.Helper()
	c.stop(t)
	data, err := os.ReadFile(c.Out)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return data
}

// httpURL is the receiver's base URL.
func (c *collector) httpURL(scheme string) string { return scheme + "://" + c.HTTP }

var _ = http.StatusOK
