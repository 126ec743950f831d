package collectortest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devcollectorpb"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/push"
)

// some is a few real fixtures of every kind, for the fault tests.
func some(t testing.TB) []string {
	return []string{
		filepath.Join(repo, "testdata/go/cpu.pb.gz"),
		filepath.Join(repo, "testdata/go/heap.pb.gz"),
		filepath.Join(repo, "testdata/gperftools/le64-100hz.prof"),
		filepath.Join(repo, "testdata/otlp/rich.pb.gz"),
	}
}

// TestCollectorNotUpYet: the collector is not listening when pprofx
// starts (connection refused); it comes up 1.5 s later; the requests are
// retried and delivered, each profile once.
func TestCollectorNotUpYet(t *testing.T) {
	for _, proto := range []string{"http/protobuf", "grpc"} {
		t.Run(strings.ReplaceAll(proto, "/", "-"), func(t *testing.T) {
			c := newCollector(t, collectorOpts{})
			files := some(t)
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result)
			go func() {
				args := append([]string{"push", "--endpoint", endpointFor(c, proto), "--protocol", proto,
					"--retry-initial", "200ms", "--retry-max-elapsed", "60s", "--max-batch-bytes", "16KiB"}, files...)
				code, stderr := pprofx(t, args...)
				done <- result{code, stderr}
			}()
			time.Sleep(1500 * time.Millisecond)
			c.start(t)
			r := <-done
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "retrying in") || strings.Contains(r.stderr, " 0 retries") {
				t.Errorf("no retry reported: %s", r.stderr)
			}
			sameProfiles(t, sent(t, files), received(t, c.output(t)))
		})
	}
}

// faultProxy is a loopback HTTP server in front of the collector: the
// first n requests get fault, the rest are passed to the collector.
type faultProxy struct {
	mu    sync.Mutex
	n     int
	times []time.Time
	srv   *httptest.Server
}

func newFaultProxy(t testing.TB, target string, n int, fault func(w http.ResponseWriter, r *http.Request)) *faultProxy {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	f := &faultProxy{n: n}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.times = append(f.times, time.Now())
		faulty := len(f.times) <= f.n
		f.mu.Unlock()
		if faulty {
			fault(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// TestRetryAfter: a server answering 503 with Retry-After: 1 twice: pprofx
// waits what it asks (not its own 10 ms backoff), then delivers.
func TestRetryAfter(t *testing.T) {
	c := newCollector(t, collectorOpts{})
	c.start(t)
	f := newFaultProxy(t, "http://"+c.HTTP, 2, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "collector is busy", http.StatusServiceUnavailable)
	})
	files := some(t)
	code, stderr := pprofx(t, append([]string{"push", "--endpoint", f.srv.URL, "--retry-initial", "10ms"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(f.times) != 3 {
		t.Fatalf("%d requests, want 3 (two refused, one delivered)", len(f.times))
	}
	for i := 1; i < 3; i++ {
		if d := f.times[i].Sub(f.times[i-1]); d < 900*time.Millisecond {
			t.Errorf("retry %d came %s after the 503, Retry-After asked 1s", i, d)
		}
	}
	if !strings.Contains(stderr, "503 Service Unavailable: collector is busy; retrying in 1s") || !strings.Contains(stderr, " 2 retries") {
		t.Errorf("stderr: %s", stderr)
	}
	sameProfiles(t, sent(t, files), received(t, c.output(t)))
}

// cuttingProxy is a TCP proxy to the collector that cuts the first n
// connections after reading part of the first request.
func cuttingProxy(t testing.TB, target string, n int) (addr string, cut func() int) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var mu sync.Mutex
	cuts := 0
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			doCut := cuts < n
			if doCut {
				cuts++
			}
			mu.Unlock()
			if doCut {
				// Read some of the request (headers and part of the body),
				// then close: the client loses the connection mid-request.
				buf := make([]byte, 300)
				io.ReadAtLeast(conn, buf, len(buf))
				conn.Close()
				continue
			}
			go func() {
				up, err := net.Dial("tcp", target)
				if err != nil {
					conn.Close()
					return
				}
				go func() { io.Copy(up, conn); up.Close() }()
				io.Copy(conn, up)
				conn.Close()
			}()
		}
	}()
	return l.Addr().String(), func() int { mu.Lock(); defer mu.Unlock(); return cuts }
}

// TestConnectionCut: the first two connections are closed in the middle of
// a request; pprofx retries and everything arrives once.
func TestConnectionCut(t *testing.T) {
	for _, proto := range []string{"http/protobuf", "grpc"} {
		t.Run(strings.ReplaceAll(proto, "/", "-"), func(t *testing.T) {
			c := newCollector(t, collectorOpts{})
			c.start(t)
			target := c.HTTP
			if proto == "grpc" {
				target = c.GRPC
			}
			addr, cuts := cuttingProxy(t, target, 2)
			files := some(t)
			code, stderr := pprofx(t, append([]string{"push", "--endpoint", "http://" + addr, "--protocol", proto, "--retry-initial", "50ms"}, files...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if cuts() != 2 || !strings.Contains(stderr, "retrying in") {
				t.Errorf("%d connections cut; stderr: %s", cuts(), stderr)
			}
			sameProfiles(t, sent(t, files), received(t, c.output(t)))
		})
	}
}

// TestPartialSuccess: a server that rejects part of a request (OTLP
// partial success). pprofx names the numbers and the message and exits 1,
// or 0 with --allow-partial.
func TestPartialSuccess(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "http/json"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			resp := &devcollectorpb.ExportProfilesServiceResponse{PartialSuccess: &devcollectorpb.ExportProfilesPartialSuccess{
				RejectedProfiles: 2, ErrorMessage: "2 profiles have samples outside the time range"}}
			if r.Header.Get("Content-Type") == "application/json" {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"partialSuccess":{"rejectedProfiles":"2","errorMessage":"2 profiles have samples outside the time range"}}`)
				return
			}
			b, _ := proto.Marshal(resp)
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.Write(b)
		}))
		defer srv.Close()
		files := some(t)
		for _, allow := range []bool{false, true} {
			args := append([]string{"push", "--endpoint", srv.URL, "--protocol", protocol}, files...)
			if allow {
				args = append(args, "--allow-partial")
			}
			code, stderr := pprofx(t, args...)
			if want := map[bool]int{false: 1, true: 0}[allow]; code != want {
				t.Errorf("%s allow-partial=%v: exit %d, want %d", protocol, allow, code, want)
			}
			if !strings.Contains(stderr, "partial success: the server rejected 2 of 10 OTLP profiles (one per sample type) of 4 profiles in this request") ||
				!strings.Contains(stderr, "2 profiles have samples outside the time range") ||
				!strings.Contains(stderr, "2 OTLP profiles rejected in 1 requests") {
				t.Errorf("%s: stderr: %s", protocol, stderr)
			}
		}
	}
}

// TestWrongPathAndContentType: the real collector's 404 and 415 become
// one clear line each, and the push stops at once (no retries).
func TestWrongPathAndContentType(t *testing.T) {
	c := newCollector(t, collectorOpts{})
	c.start(t)
	files := some(t)
	t.Setenv("OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT", "http://"+c.HTTP+"/v1experimental/profiles")
	code, stderr := pprofx(t, append([]string{"push"}, files...)...)
	if code != 1 || !strings.Contains(stderr, "404 Not Found") || !strings.Contains(stderr, "no OTLP profiles receiver at http://"+c.HTTP+"/v1experimental/profiles") ||
		!strings.Contains(stderr, "4 profiles not delivered") || !strings.Contains(stderr, " 0 retries") {
		t.Errorf("wrong path: exit %d: %s", code, stderr)
	}
	os.Unsetenv("OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT")
	code, stderr = pprofx(t, append([]string{"push", "--endpoint", "http://" + c.HTTP, "--header", "Content-Type=application/xml"}, files...)...)
	if code != 1 || !strings.Contains(stderr, "415 Unsupported Media Type") || !strings.Contains(stderr, "does not take application/xml") {
		t.Errorf("wrong content type: exit %d: %s", code, stderr)
	}
	// gRPC spoken to the HTTP port, HTTP to the gRPC port.
	code, stderr = pprofx(t, append([]string{"push", "--endpoint", "http://" + c.HTTP, "--protocol", "grpc"}, files...)...)
	if code != 1 || !strings.Contains(stderr, "use --protocol http/protobuf") || !strings.Contains(stderr, " 0 retries") {
		t.Errorf("grpc to the HTTP port: exit %d: %s", code, stderr)
	}
	// HTTP to the gRPC port: the gRPC server writes its SETTINGS frame and
	// hangs up on the request line. The client sends "Expect: 100-continue"
	// and holds the body back, so what it sees is that answer (malformed
	// HTTP: final), never a body write cut by the hang-up (retried): this
	// ran into 1 or 2 retries under load before.
	code, stderr = pprofx(t, append([]string{"push", "--endpoint", "http://" + c.GRPC}, files...)...)
	if code != 1 || !strings.Contains(stderr, "use --protocol grpc") ||
		!strings.Contains(stderr, " 0 retries") {
		t.Errorf("http to the gRPC port: exit %d: %s", code, stderr)
	}
	// None of it reached the exporter.
	if data := c.output(t); len(data) != 0 {
		t.Errorf("the collector wrote %d bytes", len(data))
	}
}

// TestUnparsableBodyStatus: a body the collector cannot parse gets 400
// with a google.rpc.Status protobuf: the client prints its message.
func TestUnparsableBodyStatus(t *testing.T) {
	c := newCollector(t, collectorOpts{})
	c.start(t)
	var errs []string
	p, err := push.New(push.Options{
		Config: push.Config{Endpoint: "http://" + c.HTTP},
		Encode: func(w io.Writer, _ []*model.Profile, _ bool) error {
			_, err := w.Write([]byte{0x0a, 0xff, 0x01, 0x02}) // a field 1 longer than the body
			return err
		},
		OnDone: func(b *push.Batch) {
			if b.Err != nil {
				errs = append(errs, b.Err.Error())
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Add("x", model.New())
	sum := p.Close()
	if len(errs) != 1 || !strings.HasPrefix(errs[0], "400 Bad Request: ") || strings.ContainsAny(errs[0], "\x00\x08\x12") {
		t.Fatalf("errors %q", errs)
	}
	t.Logf("the collector's 400 reads: %s", errs[0])
	if sum.Aborted != nil || sum.FailedRequests != 1 || sum.Retries != 0 {
		t.Errorf("summary %+v", sum)
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key.
func selfSigned(t testing.TB) (certPath, keyPath string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pprofx test collector"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return certPath, keyPath
}

// TestTLS: a collector with a self-signed certificate: trusted with
// --certificate (or OTEL_EXPORTER_OTLP_CERTIFICATE), refused without, at
// once and with a hint.
func TestTLS(t *testing.T) {
	cert, key := selfSigned(t)
	c := newCollector(t, collectorOpts{tlsCert: cert, tlsKey: key})
	c.start(t)
	files := some(t)
	for _, proto := range []string{"http/protobuf", "grpc"} {
		ep := "https://" + c.HTTP
		if proto == "grpc" {
			ep = c.GRPC // no scheme: TLS, as OTLP says
		}
		code, stderr := pprofx(t, append([]string{"push", "--endpoint", ep, "--protocol", proto}, files...)...)
		if code != 1 || !strings.Contains(stderr, "--certificate") || !strings.Contains(stderr, " 0 retries") {
			t.Errorf("%s without the certificate: exit %d: %s", proto, code, stderr)
		}
		code, stderr = pprofx(t, append([]string{"push", "--endpoint", ep, "--protocol", proto, "--certificate", cert}, files...)...)
		if code != 0 {
			t.Errorf("%s with --certificate: exit %d: %s", proto, code, stderr)
		}
	}
	t.Setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", cert)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "https://"+c.HTTP)
	code, stderr := pprofx(t, append([]string{"push"}, files...)...)
	if code != 0 {
		t.Errorf("with OTEL_EXPORTER_OTLP_CERTIFICATE: exit %d: %s", code, stderr)
	}
	got := received(t, c.output(t))
	if len(got) != 3*4 {
		t.Errorf("the collector holds %d profiles, want 12 (3 pushes of 4)", len(got))
	}
}
