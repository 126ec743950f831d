// Package push sends profiles to an OpenTelemetry Collector (or any OTLP
// profiles receiver) over OTLP/HTTP (protobuf or JSON) or OTLP/gRPC, in
// the v1development dialect collectors speak.
//
// A Pusher takes profiles one at a time, groups them into requests no
// larger than Config.MaxBatchBytes, and sends the requests from
// Config.Concurrency goroutines, retrying as the OTLP specification says:
// on HTTP 429, 502, 503, 504 and the retryable gRPC codes, with
// exponential backoff and jitter, honouring Retry-After and gRPC
// RetryInfo, until Config.RetryMaxElapsed has passed.
package push

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Protocol is an OTLP transport, named as OTEL_EXPORTER_OTLP_PROTOCOL
// names it.
type Protocol string

// The protocols.
const (
	HTTPProtobuf Protocol = "http/protobuf"
	HTTPJSON     Protocol = "http/json"
	GRPC         Protocol = "grpc"
)

// ParseProtocol checks a protocol name.
func ParseProtocol(s string) (Protocol, error) {
	switch p := Protocol(strings.TrimSpace(s)); p {
	case HTTPProtobuf, HTTPJSON, GRPC:
		return p, nil
	}
	return "", fmt.Errorf("unknown protocol %q (one of: http/protobuf, http/json, grpc)", s)
}

// JSON reports whether requests of p are OTLP/JSON.
func (p Protocol) JSON() bool { return p == HTTPJSON }

// ProfilesPath is the OTLP/HTTP path of profiles.
const ProfilesPath = "/v1development/profiles"

// ExportMethod is the OTLP/gRPC method of profiles.
const ExportMethod = "/opentelemetry.proto.collector.profiles.v1development.ProfilesService/Export"

// Header is one request header (gRPC metadata).
type Header struct{ Key, Value string }

// Config says where and how to send.
type Config struct {
	Protocol Protocol
	// Endpoint is a base URL (http://host:4318, with or without a path
	// prefix) to which ProfilesPath is appended, or, for gRPC, host:port
	// or http(s)://host:port. Empty means the OTLP default for the
	// protocol.
	Endpoint string
	// EndpointIsFull: Endpoint is the full URL of the profiles signal
	// (OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT) and is used as it is.
	EndpointIsFull bool
	Headers        []Header
	// Compression is "gzip" (the default when empty) or "none".
	Compression string
	// Timeout bounds each attempt of a request; 0 means 10s.
	Timeout time.Duration
	// Insecure: plain-text gRPC to an endpoint given without a scheme.
	Insecure bool
	// TLS files (PEM): a CA certificate to trust, a client certificate and
	// its key.
	Certificate, ClientCertificate, ClientKey string

	// MaxBatchBytes bounds the uncompressed size of a request; a single
	// profile larger than that still goes, alone. 0 means
	// DefaultMaxBatchBytes.
	MaxBatchBytes int
	// Concurrency is the number of requests in flight; 0 means 1.
	Concurrency int
	// Retries: the first wait, the longest wait, and the time after which
	// a request that still fails is given up. 0 means the default.
	RetryInitial     time.Duration
	RetryMaxInterval time.Duration
	RetryMaxElapsed  time.Duration
}

// Defaults.
const (
	DefaultMaxBatchBytes    = 2 << 20 // half the collector's default 4 MiB gRPC message limit
	DefaultTimeout          = 10 * time.Second
	DefaultRetryInitial     = time.Second
	DefaultRetryMaxInterval = 30 * time.Second
	DefaultRetryMaxElapsed  = time.Minute
)

func (c *Config) withDefaults() Config {
	o := *c
	if o.Protocol == "" {
		o.Protocol = HTTPProtobuf
	}
	if o.Compression == "" {
		o.Compression = "gzip"
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBatchBytes <= 0 {
		o.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.RetryInitial <= 0 {
		o.RetryInitial = DefaultRetryInitial
	}
	if o.RetryMaxInterval <= 0 {
		o.RetryMaxInterval = DefaultRetryMaxInterval
	}
	if o.RetryMaxInterval < o.RetryInitial {
		o.RetryMaxInterval = o.RetryInitial
	}
	if o.RetryMaxElapsed <= 0 {
		o.RetryMaxElapsed = DefaultRetryMaxElapsed
	}
	return o
}

// URL returns the URL requests go to: for OTLP/HTTP, the endpoint with
// the profiles path; for gRPC, the endpoint and the method.
func (c *Config) URL() string {
	cfg := c.withDefaults()
	if cfg.Protocol == GRPC {
		target, _, err := grpcTarget(&cfg)
		if err != nil {
			return cfg.Endpoint
		}
		return target + ExportMethod
	}
	u, err := httpURL(&cfg)
	if err != nil {
		return cfg.Endpoint
	}
	return u
}

// httpURL resolves the URL of OTLP/HTTP requests.
func httpURL(c *Config) (string, error) {
	ep := c.Endpoint
	if ep == "" {
		ep = "http://localhost:4318"
	}
	if !strings.Contains(ep, "://") {
		ep = "http://" + ep
	}
	u, err := url.Parse(ep)
	if err != nil {
		return "", fmt.Errorf("endpoint %q: %v", c.Endpoint, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("endpoint %q: scheme %q: want http or https", c.Endpoint, u.Scheme)
	}
	if u.Host == "" {
		return "", fmt.Errorf("endpoint %q: no host", c.Endpoint)
	}
	if !c.EndpointIsFull && !strings.HasSuffix(u.Path, ProfilesPath) {
		u.Path = strings.TrimRight(u.Path, "/") + ProfilesPath
	}
	return u.String(), nil
}

// grpcTarget resolves the host:port of gRPC requests and whether they use
// TLS.
func grpcTarget(c *Config) (target string, useTLS bool, err error) {
	ep := c.Endpoint
	if ep == "" {
		ep = "http://localhost:4317"
	}
	if !strings.Contains(ep, "://") {
		if strings.ContainsAny(ep, "/ ") || ep == "" {
			return "", false, fmt.Errorf("endpoint %q: want host:port or http(s)://host:port", ep)
		}
		return ep, !c.Insecure, nil
	}
	u, err := url.Parse(ep)
	if err != nil {
		return "", false, fmt.Errorf("endpoint %q: %v", ep, err)
	}
	if u.Host == "" {
		return "", false, fmt.Errorf("endpoint %q: no host", ep)
	}
	switch u.Scheme {
	case "http":
		return u.Host, false, nil
	case "https":
		return u.Host, true, nil
	}
	return "", false, fmt.Errorf("endpoint %q: scheme %q: want http or https", ep, u.Scheme)
}

// FromEnv reads the OTLP exporter environment variables
// (OTEL_EXPORTER_OTLP_* and their OTEL_EXPORTER_OTLP_PROFILES_* forms,
// which win) into a Config. getenv is os.Getenv outside tests.
func FromEnv(getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	get := func(name string) (string, string) {
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROFILES_" + name)); v != "" {
			return v, "OTEL_EXPORTER_OTLP_PROFILES_" + name
		}
		v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name))
		return v, "OTEL_EXPORTER_OTLP_" + name
	}
	var c Config
	var errs []error
	if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT")); v != "" {
		c.Endpoint, c.EndpointIsFull = v, true
	} else if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")); v != "" {
		c.Endpoint = v
	}
	if v, name := get("PROTOCOL"); v != "" {
		p, err := ParseProtocol(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
		}
		c.Protocol = p
	}
	if v, name := get("HEADERS"); v != "" {
		h, err := ParseHeaderList(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
		}
		c.Headers = h
	}
	if v, name := get("COMPRESSION"); v != "" {
		comp, err := ParseCompression(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
		}
		c.Compression = comp
	}
	if v, name := get("TIMEOUT"); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want milliseconds", name, v))
		}
		c.Timeout = time.Duration(ms) * time.Millisecond
	}
	if v, name := get("INSECURE"); v != "" {
		b, err := strconv.ParseBool(strings.ToLower(v))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want true or false", name, v))
		}
		c.Insecure = b
	}
	c.Certificate, _ = get("CERTIFICATE")
	c.ClientCertificate, _ = get("CLIENT_CERTIFICATE")
	c.ClientKey, _ = get("CLIENT_KEY")
	return c, errors.Join(errs...)
}

// ParseCompression checks a compression name: gzip or none.
func ParseCompression(s string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "gzip", "none":
		return v, nil
	}
	return "", fmt.Errorf("unknown compression %q (gzip or none)", s)
}

// ParseHeaderList reads OTEL_EXPORTER_OTLP_HEADERS: key=value pairs
// separated by commas, values percent-encoded.
func ParseHeaderList(s string) ([]Header, error) {
	var out []Header
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		h, err := ParseHeader(part)
		if err != nil {
			return nil, err
		}
		if v, err := url.PathUnescape(h.Value); err == nil {
			h.Value = v
		}
		out = append(out, h)
	}
	return out, nil
}

// ParseHeader reads one KEY=VALUE header.
func ParseHeader(s string) (Header, error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" || strings.ContainsAny(k, " \t\r\n:") {
		return Header{}, fmt.Errorf("header %q: want KEY=VALUE", s)
	}
	if strings.ContainsAny(v, "\r\n") {
		return Header{}, fmt.Errorf("header %q: a value cannot hold a line break", k)
	}
	return Header{Key: k, Value: strings.TrimSpace(v)}, nil
}
