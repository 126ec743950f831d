package push

import (
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/gzip" // registers the gzip compressor
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/pprofx/pprofx/internal/codec/otlp/otlppb/devcollectorpb"
)

type grpcTransport struct {
	conn    *grpc.ClientConn
	target  string
	md      metadata.MD
	opts    []grpc.CallOption
	useTLS  bool
	timeout time.Duration
	certs   *clientCerts
}

func newGRPCTransport(cfg *Config) (*grpcTransport, error) {
	target, useTLS, err := grpcTarget(cfg)
	if err != nil {
		return nil, err
	}
	var creds credentials.TransportCredentials
	var certs *clientCerts
	if useTLS {
		conf, cc, err := tlsConfig(cfg)
		if err != nil {
			return nil, err
		}
		certs = cc
		creds = credentials.NewTLS(conf)
	} else {
		if cfg.Certificate != "" || cfg.ClientCertificate != "" {
			return nil, fmt.Errorf("endpoint %s is plain text (http:// or --insecure), yet TLS certificates were given", cfg.Endpoint)
		}
		creds = insecure.NewCredentials()
	}
	// Reconnect quickly once a collector comes up: pprofx's own retries
	// pace the requests.
	bc := backoff.DefaultConfig
	bc.BaseDelay = 100 * time.Millisecond
	bc.MaxDelay = cfg.RetryMaxInterval
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(creds),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: bc, MinConnectTimeout: cfg.Timeout}),
		grpc.WithUserAgent("pprofx"))
	if err != nil {
		return nil, fmt.Errorf("endpoint %s: %v", target, err)
	}
	md := metadata.MD{}
	for _, h := range cfg.Headers {
		md.Append(strings.ToLower(h.Key), h.Value)
	}
	opts := []grpc.CallOption{grpc.ForceCodecV2(rawCodec{})}
	if cfg.Compression == "gzip" {
		opts = append(opts, grpc.UseCompressor("gzip"))
	}
	return &grpcTransport{conn: conn, target: target, md: md, opts: opts, useTLS: useTLS, timeout: cfg.Timeout, certs: certs}, nil
}

func (t *grpcTransport) close() error { return t.conn.Close() }

func (t *grpcTransport) send(ctx context.Context, body []byte) (*Response, error) {
	if len(t.md) > 0 {
		ctx = metadata.NewOutgoingContext(ctx, t.md)
	}
	var resp devcollectorpb.ExportProfilesServiceResponse
	err := t.conn.Invoke(ctx, ExportMethod, rawMessage(body), &resp, t.opts...)
	if err != nil {
		return nil, t.grpcError(err)
	}
	t.certs.answeredOne()
	ps := resp.GetPartialSuccess()
	return &Response{RejectedProfiles: ps.GetRejectedProfiles(), ErrorMessage: ps.GetErrorMessage()}, nil
}

// grpcError classifies a failed call as the OTLP specification says:
// Canceled, DeadlineExceeded, Aborted, OutOfRange, Unavailable and
// DataLoss are retried, ResourceExhausted only when the server sent
// RetryInfo; RetryInfo's delay is honoured.
func (t *grpcTransport) grpcError(err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return &Error{Msg: err.Error(), Retryable: true}
	}
	e := &Error{Msg: st.Code().String()}
	if m := oneLine(st.Message()); m != "" {
		e.Msg += ": " + m
	}
	switch c := st.Code(); {
	case c != codes.Unavailable && c != codes.DeadlineExceeded && c != codes.Canceled:
		// The server answered: TLS, client certificate included, was
		// accepted.
		t.certs.answeredOne()
	case c == codes.Unavailable && connLevel(st.Message()):
		// No answer came (an Unavailable status the server sent does
		// not say this): perhaps the client certificate was refused.
		if ce := t.certs.refused(e.Msg); ce != nil {
			return ce
		}
	}
	var retryInfo *errdetails.RetryInfo
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			retryInfo = ri
		}
	}
	switch st.Code() {
	case codes.Canceled, codes.DeadlineExceeded, codes.Aborted, codes.OutOfRange, codes.Unavailable, codes.DataLoss:
		e.Retryable = true
	case codes.ResourceExhausted:
		e.Retryable = retryInfo != nil
	case codes.InvalidArgument:
		e.DataOnly = true
	case codes.Unimplemented:
		e.Msg += fmt.Sprintf(" (no OTLP profiles service at %s: check the endpoint, and that the collector runs with --feature-gates service.profilesSupport)", t.target)
	}
	if retryInfo != nil && retryInfo.GetRetryDelay() != nil {
		e.RetryAfter = retryInfo.GetRetryDelay().AsDuration()
	}
	msg := st.Message()
	switch {
	case t.useTLS && (strings.Contains(msg, "first record does not look like a TLS handshake") || strings.Contains(msg, "tls: ")):
		if strings.Contains(msg, "first record does not look like a TLS handshake") {
			e.Msg += " (the server does not speak TLS: use an http:// endpoint or --insecure)"
			e.Retryable = false
		} else if strings.Contains(msg, "certificate") {
			e.Msg += " (trust the server's CA with --certificate FILE)"
			e.Retryable = false
		}
	case strings.Contains(msg, "looked like an HTTP/1.1 header"):
		e.Msg += " (the server speaks HTTP/1.1: if it is an OTLP/HTTP port, use --protocol http/protobuf)"
		e.Retryable = false
	case !t.useTLS && st.Code() == codes.Unavailable && strings.Contains(msg, "error reading server preface"):
		// A TLS server answering plain text closes the connection.
		e.Msg += " (if the server uses TLS, use an https:// endpoint)"
	}
	return e
}

// rawMessage is an already encoded ExportProfilesServiceRequest.
type rawMessage []byte

// rawCodec sends rawMessage as it is and decodes answers as protobuf. It is
// named "proto" so that the content type is application/grpc+proto.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	switch m := v.(type) {
	case rawMessage:
		return mem.BufferSlice{mem.SliceBuffer(m)}, nil
	case proto.Message:
		b, err := proto.Marshal(m)
		return mem.BufferSlice{mem.SliceBuffer(b)}, err
	}
	return nil, fmt.Errorf("cannot marshal %T", v)
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("cannot unmarshal into %T", v)
	}
	return proto.Unmarshal(data.Materialize(), m)
}

var _ encoding.CodecV2 = rawCodec{}

// connLevel reports whether a gRPC status message is about the connection
// (no answer came), not one a server sent.
func connLevel(m string) bool {
	for _, s := range []string{"connection error", "tls: ", "EOF", "reset by peer", "broken pipe"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}
