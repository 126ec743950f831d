package push

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devcollectorpb"
)

// Response is what a server answered to an accepted request.
type Response struct {
	// RejectedProfiles and ErrorMessage are the partial success, if any.
	RejectedProfiles int64
	ErrorMessage     string
}

// A transport sends one encoded request body once.
type transport interface {
	send(ctx context.Context, body []byte) (*Response, error)
	close() error
}

type httpTransport struct {
	url     string
	json    bool
	gzip    bool
	headers []Header
	client  *http.Client
	certs   *clientCerts
}

// maxResponse bounds how much of a response body is read.
const maxResponse = 1 << 20

func newHTTPTransport(cfg *Config) (*httpTransport, error) {
	u, err := httpURL(cfg)
	if err != nil {
		return nil, err
	}
	tlsConf, certs, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	// net/http logs bytes a server sent unasked (as a gRPC port does) with
	// the standard logger, a second line on stderr beside pprofx's own
	// error about it: pprofx logs nothing else through it.
	log.SetOutput(io.Discard)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tlsConf
	tr.MaxIdleConnsPerHost = cfg.Concurrency + 1
	tr.Proxy = http.ProxyFromEnvironment
	return &httpTransport{
		url: u, json: cfg.Protocol.JSON(), gzip: cfg.Compression == "gzip", headers: cfg.Headers, certs: certs,
		client: &http.Client{
			Transport: tr,
			// A redirected POST would lose its body: report it instead.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}, nil
}

func (t *httpTransport) close() error {
	t.client.CloseIdleConnections()
	return nil
}

func (t *httpTransport) send(ctx context.Context, body []byte) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	ct := "application/x-protobuf"
	if t.json {
		ct = "application/json"
	}
	req.Header.Set("Content-Type", ct)
	if t.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	req.Header.Set("User-Agent", "pprofx")
	// The body follows only once the server asked for it (or after the
	// transport's 1 s ExpectContinueTimeout): a server that refuses the
	// request (401, 404, 413, 415) answers before the batch is uploaded, and
	// one that does not speak HTTP/1.1 (an OTLP/gRPC port) is named by its
	// answer, not by a write that failed because it hung up, which would be
	// retried.
	req.Header.Set("Expect", "100-continue")
	// --header wins over pprofx's own headers (Content-Type included).
	for _, h := range t.headers {
		req.Header.Del(h.Key)
	}
	for _, h := range t.headers {
		if strings.EqualFold(h.Key, "host") {
			req.Host = h.Value
			continue
		}
		req.Header.Add(h.Key, h.Value)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		ce := connError(err)
		if ce.Retryable && !errors.Is(err, context.DeadlineExceeded) {
			if e := t.certs.refused(ce.Msg); e != nil {
				return nil, e
			}
		}
		return nil, ce
	}
	t.certs.answeredOne()
	defer resp.Body.Close()
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if resp.StatusCode/100 == 2 {
		if rerr != nil {
			// The data arrived; only the answer was cut. Retrying could
			// send it twice, so this is reported, not retried.
			return nil, &Error{Msg: fmt.Sprintf("%s, but reading the answer failed: %v", resp.Status, rerr)}
		}
		return decodeHTTPSuccess(resp, data)
	}
	return nil, httpError(resp, data, t.json)
}

func decodeHTTPSuccess(resp *http.Response, data []byte) (*Response, error) {
	var r devcollectorpb.ExportProfilesServiceResponse
	mt := mediaType(resp.Header.Get("Content-Type"))
	var err error
	switch {
	case len(data) == 0:
	case mt == "application/json":
		err = protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(data, &r)
	case mt == "application/x-protobuf" || mt == "application/protobuf":
		err = proto.Unmarshal(data, &r)
	default:
		// Not an OTLP answer (a proxy's page?): the request went through,
		// but nothing says what the server kept.
		return nil, &Error{Msg: fmt.Sprintf("%s with a %q answer, not an OTLP response: is this an OTLP endpoint?", resp.Status, mt)}
	}
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("%s, but the answer is not an ExportProfilesServiceResponse: %v", resp.Status, err)}
	}
	ps := r.GetPartialSuccess()
	return &Response{RejectedProfiles: ps.GetRejectedProfiles(), ErrorMessage: ps.GetErrorMessage()}, nil
}

func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// httpError turns a failed answer into an Error, with the server's message
// decoded from the body: a google.rpc.Status in protobuf or JSON, or text.
func httpError(resp *http.Response, data []byte, sentJSON bool) error {
	e := &Error{Retryable: retryableHTTP(resp.StatusCode)}
	if e.Retryable {
		e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	switch resp.StatusCode {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		e.DataOnly = true
	}
	msg := bodyMessage(resp.Header.Get("Content-Type"), data)
	e.Msg = resp.Status
	if msg != "" {
		e.Msg += ": " + msg
	}
	switch resp.StatusCode {
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		e.Msg += fmt.Sprintf(" (no OTLP profiles receiver at %s: check the endpoint, and that the collector runs with --feature-gates service.profilesSupport)", resp.Request.URL.Redacted())
	case http.StatusUnsupportedMediaType:
		e.Msg += fmt.Sprintf(" (the server does not take %s: try another --protocol)", resp.Request.Header.Get("Content-Type"))
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		e.Msg += fmt.Sprintf(" (redirected to %s: use that endpoint)", resp.Header.Get("Location"))
	}
	return e
}

// bodyMessage decodes the message of an error body.
func bodyMessage(ct string, data []byte) string {
	if len(data) == 0 {
		return ""
	}
	mt := mediaType(ct)
	var st status.Status
	switch mt {
	case "application/x-protobuf", "application/protobuf", "application/grpc":
		if proto.Unmarshal(data, &st) == nil && (st.Message != "" || st.Code != 0) {
			return statusText(&st)
		}
	case "application/json":
		if (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, &st) == nil && (st.Message != "" || st.Code != 0) {
			return statusText(&st)
		}
	}
	return printable(data)
}

func statusText(st *status.Status) string {
	if st.Message != "" {
		return oneLine(st.Message)
	}
	return fmt.Sprintf("status code %d", st.Code)
}

// printable is the first line of a text body, shortened; a body that is
// not text is described, never printed.
func printable(data []byte) string {
	s := oneLine(string(data))
	for _, r := range s {
		if r == '\uFFFD' || (r < 0x20 && r != '\t') {
			return fmt.Sprintf("(%d bytes of binary body)", len(data))
		}
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// connError classifies a failure to get an answer at all. Connections
// refused, reset or closed, and timeouts are retried; TLS and address
// errors are not.
func connError(err error) *Error {
	msg := err.Error()
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		// url.Error repeats the method and URL: keep what went wrong.
		if inner := errors.Unwrap(err); inner != nil {
			msg = inner.Error()
		}
	}
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	switch {
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr):
		return &Error{Msg: msg + " (trust the server's CA with --certificate FILE)"}
	case errors.As(err, &recErr):
		return &Error{Msg: msg + " (the server does not speak TLS: use an http:// endpoint)"}
	case strings.Contains(msg, "server gave HTTP response to HTTPS client"):
		return &Error{Msg: msg + " (use an http:// endpoint)"}
	case strings.Contains(msg, "malformed HTTP response"),
		// net/http's name for bytes that came before any request was
		// written: an HTTP/2 server's SETTINGS frame, which an OTLP/gRPC
		// port sends as soon as it accepts a connection.
		strings.Contains(msg, "readLoopPeekFailLocked"):
		return &Error{Msg: "the server does not answer HTTP/1.1 (if it is an OTLP/gRPC port, use --protocol grpc)"}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return &Error{Msg: msg}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Msg: "no answer within --timeout", Retryable: true}
	}
	// Anything else about the connection (reset, closed, unreachable) may
	// pass: retried.
	return &Error{Msg: msg, Retryable: true}
}
