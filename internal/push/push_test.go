package push

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devcollectorpb"
	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devprofilespb"
	"github.com/pprofx/pprofx/internal/model"
)

// testEncoder writes a real ProfilesData built with the generated
// v1development types: one Profile per model profile, holding as many
// samples as the model has, so that sizes follow the input.
func testEncoder(w io.Writer, ps []*model.Profile, json bool) error {
	pd := &devprofilespb.ProfilesData{Dictionary: &devprofilespb.ProfilesDictionary{StringTable: []string{""}}}
	sp := &devprofilespb.ScopeProfiles{}
	for _, p := range ps {
		prof := &devprofilespb.Profile{}
		for range p.Samples {
			prof.Samples = append(prof.Samples, &devprofilespb.Sample{Values: []int64{1, 2, 3, 4, 5, 6, 7, 8}})
		}
		sp.Profiles = append(sp.Profiles, prof)
	}
	pd.ResourceProfiles = []*devprofilespb.ResourceProfiles{{ScopeProfiles: []*devprofilespb.ScopeProfiles{sp}}}
	b, err := proto.Marshal(pd)
	if err != nil {
		return err
	}
	if json {
		_, err = fmt.Fprintf(w, `{"resourceProfiles":[],"n":%d}`, len(b))
		return err
	}
	_, err = w.Write(b)
	return err
}

func profileWith(samples int) *model.Profile {
	p := model.New()
	p.Samples = make([]model.Sample, samples)
	return p
}

// recorder is a loopback OTLP/HTTP server whose answers a test scripts.
type recorder struct {
	mu     sync.Mutex
	bodies [][]byte // decompressed request bodies, in arrival order
	hdrs   []http.Header
	times  []time.Time
	answer func(n int, w http.ResponseWriter, r *http.Request) bool // true: answered
	srv    *httptest.Server
}

func newRecorder(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request) bool) *recorder {
	rec := &recorder{answer: answer}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = zr
		}
		data, _ := io.ReadAll(body)
		rec.mu.Lock()
		n := len(rec.times)
		rec.times = append(rec.times, time.Now())
		rec.hdrs = append(rec.hdrs, r.Header.Clone())
		rec.mu.Unlock()
		if rec.answer != nil && rec.answer(n, w, r) {
			return
		}
		rec.mu.Lock()
		rec.bodies = append(rec.bodies, data)
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write([]byte{0x0a, 0x00})
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func fastRetries(c Config) Config {
	c.RetryInitial, c.RetryMaxInterval, c.RetryMaxElapsed = 5*time.Millisecond, 20*time.Millisecond, 5*time.Second
	return c
}

func TestBatchingBySize(t *testing.T) {
	rec := newRecorder(t, nil)
	// Batches hold two profiles of 100 samples and a half.
	var one bytes.Buffer
	testEncoder(&one, []*model.Profile{profileWith(100)}, false)
	max := one.Len() * 5 / 2
	p, err := New(Options{Config: fastRetries(Config{Endpoint: rec.srv.URL, MaxBatchBytes: max, Concurrency: 3}), Encode: testEncoder})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 9; i++ {
		if err := p.Add(fmt.Sprintf("f%d", i), profileWith(100)); err != nil {
			t.Fatal(err)
		}
	}
	// One profile larger than the limit goes alone.
	p.Add("big", profileWith(1000))
	sum := p.Close()
	if sum.Requests != 6 || sum.Profiles != 10 || sum.Samples != 1900 || sum.FailedProfiles != 0 {
		t.Errorf("summary %+v, want 6 requests (2+2+2+2+1, then the big one) of 10 profiles", sum)
	}
	total := 0
	for _, b := range rec.bodies {
		var pd devprofilespb.ProfilesData
		if err := proto.Unmarshal(b, &pd); err != nil {
			t.Fatal(err)
		}
		n := len(pd.ResourceProfiles[0].ScopeProfiles[0].Profiles)
		total += n
		if len(b) > max && n != 1 {
			t.Errorf("a request of %d bytes holds %d profiles", len(b), n)
		}
	}
	if total != 10 {
		t.Errorf("%d profiles arrived, want 10", total)
	}
	if h := rec.hdrs[0]; h.Get("Content-Type") != "application/x-protobuf" || h.Get("Content-Encoding") != "gzip" {
		t.Errorf("headers %v", h)
	}
}

func TestRetryAfterAndBackoff(t *testing.T) {
	rec := newRecorder(t, func(n int, w http.ResponseWriter, r *http.Request) bool {
		switch n {
		case 0:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return true
		case 1, 2:
			w.WriteHeader(http.StatusBadGateway)
			return true
		}
		return false
	})
	var retries []time.Duration
	p, _ := New(Options{Config: fastRetries(Config{Endpoint: rec.srv.URL}), Encode: testEncoder,
		OnRetry: func(b *Batch, err error, wait time.Duration) { retries = append(retries, wait) }})
	p.Add("a", profileWith(3))
	sum := p.Close()
	if sum.Retries != 3 || sum.Profiles != 1 || len(rec.bodies) != 1 {
		t.Fatalf("summary %+v, %d bodies", sum, len(rec.bodies))
	}
	if d := rec.times[1].Sub(rec.times[0]); d < 950*time.Millisecond {
		t.Errorf("retry after %s; Retry-After asked 1s", d)
	}
	if retries[0] != time.Second || retries[1] < 5*time.Millisecond || retries[1] > 10*time.Millisecond ||
		retries[2] < 10*time.Millisecond || retries[2] > 20*time.Millisecond {
		t.Errorf("waits %v: want 1s (Retry-After), then doubling backoff with jitter: [5ms,10ms], [10ms,20ms] (the 20ms cap)", retries)
	}
}

func TestGiveUpAfterMaxElapsed(t *testing.T) {
	rec := newRecorder(t, func(n int, w http.ResponseWriter, r *http.Request) bool {
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	})
	cfg := fastRetries(Config{Endpoint: rec.srv.URL})
	cfg.RetryMaxElapsed = 100 * time.Millisecond
	p, _ := New(Options{Config: cfg, Encode: testEncoder})
	start := time.Now()
	p.Add("a", profileWith(3))
	sum := p.Close()
	if time.Since(start) > 2*time.Second || sum.Aborted == nil || !strings.Contains(sum.Aborted.Error(), "503 Service Unavailable (gave up after") {
		t.Errorf("summary %+v after %s", sum, time.Since(start))
	}
	if sum.FailedProfiles != 1 || sum.Profiles != 0 {
		t.Errorf("summary %+v", sum)
	}
}

func TestNonRetryableStatusBody(t *testing.T) {
	st, _ := proto.Marshal(&rpcstatus.Status{Code: 3, Message: "unexpected EOF\nmore"})
	rec := newRecorder(t, func(n int, w http.ResponseWriter, r *http.Request) bool {
		if n < 2 {
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(st)
			return true
		}
		return false
	})
	var errs []string
	p, _ := New(Options{Config: fastRetries(Config{Endpoint: rec.srv.URL, MaxBatchBytes: 1}), Encode: testEncoder,
		OnDone: func(b *Batch) {
			if b.Err != nil {
				errs = append(errs, b.Err.Error())
			}
		}})
	for i := 0; i < 3; i++ {
		p.Add("a", profileWith(3))
	}
	sum := p.Close()
	// A 400 fails its request only, at once; the third request goes.
	if sum.Retries != 0 || sum.FailedRequests != 2 || sum.Profiles != 1 || sum.Aborted != nil {
		t.Errorf("summary %+v", sum)
	}
	if len(errs) != 2 || errs[0] != "400 Bad Request: unexpected EOF" {
		t.Errorf("errors %q", errs)
	}
}

func TestBodyMessage(t *testing.T) {
	st, _ := proto.Marshal(&rpcstatus.Status{Code: 3, Message: "bad data"})
	for _, c := range []struct {
		ct   string
		body []byte
		want string
	}{
		{"application/x-protobuf", st, "bad data"},
		{"application/json", []byte(`{"code":3,"message":"bad json"}`), "bad json"},
		{"text/plain; charset=utf-8", []byte("404 page not found\n"), "404 page not found"},
		{"application/octet-stream", []byte{0x00, 0x01, 0xff}, "(3 bytes of binary body)"},
		{"", nil, ""},
	} {
		if got := bodyMessage(c.ct, c.body); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.ct, c.body, got, c.want)
		}
	}
}

func TestPartialSuccessJSON(t *testing.T) {
	rec := newRecorder(t, func(n int, w http.ResponseWriter, r *http.Request) bool {
		if r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("content type %q", r.Header.Get("Content-Type"))
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"partialSuccess":{"rejectedProfiles":"3","errorMessage":"no samples"},"unknownField":1}`)
		return true
	})
	var got *Response
	p, _ := New(Options{Config: Config{Endpoint: rec.srv.URL, Protocol: HTTPJSON, Compression: "none"}, Encode: testEncoder,
		OnDone: func(b *Batch) { got = b.Resp }})
	p.Add("a", profileWith(3))
	sum := p.Close()
	if got == nil || got.RejectedProfiles != 3 || got.ErrorMessage != "no samples" || sum.RejectedProfiles != 3 || sum.PartialRequests != 1 {
		t.Errorf("response %+v, summary %+v", got, sum)
	}
	if rec.hdrs[0].Get("Content-Encoding") != "" {
		t.Errorf("compression none sent %q", rec.hdrs[0].Get("Content-Encoding"))
	}
}

func TestEndpointFailureStopsThePush(t *testing.T) {
	rec := newRecorder(t, func(n int, w http.ResponseWriter, r *http.Request) bool {
		http.NotFound(w, r)
		return true
	})
	p, _ := New(Options{Config: Config{Endpoint: rec.srv.URL, MaxBatchBytes: 1}, Encode: testEncoder})
	var err error
	added := 0
	for i := 0; i < 50 && err == nil; i++ {
		err = p.Add("a", profileWith(3))
		added++
	}
	sum := p.Close()
	if !errors.Is(err, ErrAborted) || sum.Aborted == nil || !strings.Contains(sum.Aborted.Error(), "404 Not Found") {
		t.Fatalf("err %v, summary %+v", err, sum)
	}
	if len(rec.times) > 3 || sum.FailedProfiles != added {
		t.Errorf("%d requests made after a 404; summary %+v, %d added", len(rec.times), sum, added)
	}
}

func TestDryRunFraming(t *testing.T) {
	var out bytes.Buffer
	p, _ := New(Options{Config: Config{MaxBatchBytes: 1, Concurrency: 4}, Encode: testEncoder, DryRun: &out})
	for i := 1; i <= 3; i++ {
		p.Add("a", profileWith(i))
	}
	sum := p.Close()
	data := out.Bytes()
	for i := 1; i <= 3; i++ {
		n := binary.BigEndian.Uint32(data)
		var pd devprofilespb.ProfilesData
		if err := proto.Unmarshal(data[4:4+n], &pd); err != nil {
			t.Fatal(err)
		}
		if got := len(pd.ResourceProfiles[0].ScopeProfiles[0].Profiles[0].Samples); got != i {
			t.Errorf("request %d holds %d samples; requests out of order?", i, got)
		}
		data = data[4+n:]
	}
	if len(data) != 0 || sum.Requests != 3 {
		t.Errorf("%d bytes left, summary %+v", len(data), sum)
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":             "http://collector:4318",
		"OTEL_EXPORTER_OTLP_PROTOCOL":             "grpc",
		"OTEL_EXPORTER_OTLP_PROFILES_PROTOCOL":    "http/json",
		"OTEL_EXPORTER_OTLP_HEADERS":              "authorization=Bearer%20abc, x-tenant = t1 ",
		"OTEL_EXPORTER_OTLP_PROFILES_TIMEOUT":     "2500",
		"OTEL_EXPORTER_OTLP_COMPRESSION":          "none",
		"OTEL_EXPORTER_OTLP_INSECURE":             "TRUE",
		"OTEL_EXPORTER_OTLP_CERTIFICATE":          "/ca.pem",
		"OTEL_EXPORTER_OTLP_PROFILES_CLIENT_KEY":  "/key.pem",
		"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE":   "/cert.pem",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":      "http://not-this",
		"OTEL_EXPORTER_OTLP_PROFILES_COMPRESSION": "",
	}
	c, err := FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Endpoint: "http://collector:4318", Protocol: HTTPJSON, Compression: "none", Timeout: 2500 * time.Millisecond,
		Insecure: true, Certificate: "/ca.pem", ClientCertificate: "/cert.pem", ClientKey: "/key.pem",
		Headers: []Header{{"authorization", "Bearer abc"}, {"x-tenant", "t1"}}}
	if fmt.Sprint(c) != fmt.Sprint(want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
	if u := c.URL(); u != "http://collector:4318/v1development/profiles" {
		t.Errorf("URL %s", u)
	}
	env["OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT"] = "https://gw/otlp/profiles"
	c, _ = FromEnv(func(k string) string { return env[k] })
	if u := c.URL(); u != "https://gw/otlp/profiles" || !c.EndpointIsFull {
		t.Errorf("a signal endpoint is used as it is: %s", u)
	}
	env["OTEL_EXPORTER_OTLP_TIMEOUT"] = "soon"
	env["OTEL_EXPORTER_OTLP_PROFILES_PROTOCOL"] = "thrift"
	env["OTEL_EXPORTER_OTLP_PROFILES_TIMEOUT"] = ""
	if _, err := FromEnv(func(k string) string { return env[k] }); err == nil ||
		!strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_TIMEOUT=\"soon\": want milliseconds") ||
		!strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_PROFILES_PROTOCOL: unknown protocol \"thrift\"") {
		t.Errorf("err %v", err)
	}
}

func TestURLs(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "http://localhost:4318/v1development/profiles"},
		{Config{Endpoint: "collector:4318"}, "http://collector:4318/v1development/profiles"},
		{Config{Endpoint: "https://gw.example/otlp/"}, "https://gw.example/otlp/v1development/profiles"},
		{Config{Endpoint: "http://c:4318/v1development/profiles"}, "http://c:4318/v1development/profiles"},
		{Config{Protocol: GRPC}, "localhost:4317" + ExportMethod},
		{Config{Protocol: GRPC, Endpoint: "https://c:4317"}, "c:4317" + ExportMethod},
	} {
		if got := c.cfg.URL(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.cfg, got, c.want)
		}
	}
	for _, c := range []struct {
		ep       string
		insecure bool
		target   string
		tls      bool
	}{
		{"c:4317", false, "c:4317", true}, {"c:4317", true, "c:4317", false},
		{"http://c:4317", false, "c:4317", false}, {"https://c:4317", true, "c:4317", true},
	} {
		target, useTLS, err := grpcTarget(&Config{Endpoint: c.ep, Insecure: c.insecure})
		if err != nil || target != c.target || useTLS != c.tls {
			t.Errorf("%s insecure=%v: %s %v %v", c.ep, c.insecure, target, useTLS, err)
		}
	}
	if _, err := httpURL(&Config{Endpoint: "ftp://x"}); err == nil {
		t.Error("ftp accepted")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"3": 3 * time.Second, "": 0, "-1": 0, "soon": 0,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
	} {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("%q: %s, want %s", v, got, want)
		}
	}
}

// grpcServer is a loopback gRPC server whose Export answers a test
// scripts, through the unknown-service handler (no generated stubs).
func grpcServer(t *testing.T, handle func(n int, req *devcollectorpb.ExportProfilesServiceRequest, md map[string][]string) (*devcollectorpb.ExportProfilesServiceResponse, error)) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	n := 0
	srv := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		method, _ := grpc.MethodFromServerStream(stream)
		if method != ExportMethod {
			return status.Errorf(codes.Unimplemented, "unknown method %s", method)
		}
		var req devcollectorpb.ExportProfilesServiceRequest
		if err := stream.RecvMsg(&req); err != nil {
			return err
		}
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		md, _ := metadata.FromIncomingContext(stream.Context())
		resp, err := handle(i, &req, md)
		if err != nil {
			return err
		}
		return stream.SendMsg(resp)
	}))
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	return l.Addr().String()
}

func TestGRPCRetryInfoAndCodes(t *testing.T) {
	var times []time.Time
	addr := grpcServer(t, func(n int, req *devcollectorpb.ExportProfilesServiceRequest, md map[string][]string) (*devcollectorpb.ExportProfilesServiceResponse, error) {
		times = append(times, time.Now())
		if md["authorization"][0] != "Bearer x" {
			t.Errorf("metadata %v", md)
		}
		switch n {
		case 0:
			st, _ := status.New(codes.ResourceExhausted, "slow down").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(300 * time.Millisecond)})
			return nil, st.Err()
		case 1:
			return nil, status.Error(codes.Unavailable, "restarting")
		}
		if len(req.ResourceProfiles[0].ScopeProfiles[0].Profiles) != 1 {
			t.Errorf("request %v", req)
		}
		return &devcollectorpb.ExportProfilesServiceResponse{}, nil
	})
	p, err := New(Options{Config: fastRetries(Config{Endpoint: "http://" + addr, Protocol: GRPC, Headers: []Header{{"Authorization", "Bearer x"}}}), Encode: testEncoder})
	if err != nil {
		t.Fatal(err)
	}
	p.Add("a", profileWith(5))
	sum := p.Close()
	if sum.Retries != 2 || sum.Profiles != 1 || len(times) != 3 {
		t.Fatalf("summary %+v, %d calls", sum, len(times))
	}
	if d := times[1].Sub(times[0]); d < 280*time.Millisecond {
		t.Errorf("retried after %s; RetryInfo asked 300ms", d)
	}

	// ResourceExhausted without RetryInfo and InvalidArgument are not retried.
	for _, code := range []codes.Code{codes.ResourceExhausted, codes.InvalidArgument, codes.PermissionDenied} {
		calls := 0
		addr := grpcServer(t, func(n int, _ *devcollectorpb.ExportProfilesServiceRequest, _ map[string][]string) (*devcollectorpb.ExportProfilesServiceResponse, error) {
			calls++
			return nil, status.Error(code, "no")
		})
		p, _ := New(Options{Config: fastRetries(Config{Endpoint: "http://" + addr, Protocol: GRPC}), Encode: testEncoder})
		p.Add("a", profileWith(5))
		sum := p.Close()
		if calls != 1 || sum.Retries != 0 || sum.FailedProfiles != 1 {
			t.Errorf("%s: %d calls, summary %+v", code, calls, sum)
		}
		if (code == codes.InvalidArgument) != (sum.Aborted == nil) {
			t.Errorf("%s: only InvalidArgument is about the data alone; aborted: %v", code, sum.Aborted)
		}
	}
}

func TestGRPCPartialSuccess(t *testing.T) {
	addr := grpcServer(t, func(int, *devcollectorpb.ExportProfilesServiceRequest, map[string][]string) (*devcollectorpb.ExportProfilesServiceResponse, error) {
		return &devcollectorpb.ExportProfilesServiceResponse{PartialSuccess: &devcollectorpb.ExportProfilesPartialSuccess{RejectedProfiles: 1, ErrorMessage: "dup"}}, nil
	})
	p, _ := New(Options{Config: Config{Endpoint: addr, Insecure: true, Protocol: GRPC}, Encode: testEncoder})
	p.Add("a", profileWith(1))
	if sum := p.Close(); sum.RejectedProfiles != 1 || sum.PartialRequests != 1 || sum.Profiles != 1 {
		t.Errorf("summary %+v", sum)
	}
}
