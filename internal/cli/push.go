package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pprofx/pprofx/internal/codec/otlp"
	"github.com/pprofx/pprofx/internal/codec/pprofextended"
	"github.com/pprofx/pprofx/internal/formats"
	"github.com/pprofx/pprofx/internal/model"
	"github.com/pprofx/pprofx/internal/push"
)

// PushOptions are the inputs of `pprofx push`.
type PushOptions struct {
	IO           *IOStreams
	Inputs       []string
	FilesFrom    string
	Config       push.Config // endpoint, protocol, TLS, batching, retries: environment, then flags
	Resource     []string    // --resource KEY=VALUE
	AllowPartial bool
	DryRun       string // file to write the requests to instead of sending them
	MaxInputSize int64
	Salvage      bool
	Filters      FilterFlags
}

// getenv reads the OTEL_EXPORTER_OTLP_* variables; tests replace it.
var getenv = os.Getenv

// NewCmdPush builds `pprofx push`. runF replaces pushRun in tests.
func NewCmdPush(ios *IOStreams, runF func(*PushOptions) error) *cobra.Command {
	o := &PushOptions{IO: ios}
	size := byteSize(formats.DefaultMaxInputSize)
	batch := byteSize(push.DefaultMaxBatchBytes)
	var pf pushFlags
	cmd := &cobra.Command{
		Use:   "push FILE... [--endpoint URL] [--protocol http/protobuf|http/json|grpc]",
		Short: "Send profiles to an OpenTelemetry Collector (OTLP profiles v1development)",
		Long:  pushLong + filterHelp,
		Example: `  pprofx push cpu.pb.gz heap.pb.gz --endpoint http://localhost:4318 --resource service.name=checkout
  pprofx push cpu.prof --endpoint localhost:4317 --protocol grpc --insecure
  find profiles -name '*.pb.gz' | pprofx push --files-from - --protocol http/json
  OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20abc pprofx push all.ppxb
  pprofx push cpu.pb.gz heap.pb.gz --dry-run requests.otlp --max-batch-bytes 1
  pprofx push testdata/jfr/cpu.jfr --dry-run - --from 2026-11-27T03:42:29Z | wc -c`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Inputs = args
			o.MaxInputSize = int64(size)
			cfg, err := pf.config(cmd.Flags())
			if err != nil {
				return err
			}
			cfg.MaxBatchBytes = int(batch)
			o.Config = cfg
			if runF != nil {
				return runF(o)
			}
			return pushRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&pf.endpoint, "endpoint", "", "base URL of the receiver (default http://localhost:4318; grpc: http://localhost:4317)")
	f.StringVar(&pf.protocol, "protocol", string(push.HTTPProtobuf), "http/protobuf, http/json or grpc")
	f.StringArrayVar(&pf.headers, "header", nil, "request header (gRPC metadata) KEY=VALUE, e.g. authorization=Bearer\\ TOKEN (repeatable)")
	f.StringVar(&pf.compression, "compression", "gzip", "gzip or none")
	f.DurationVar(&pf.timeout, "timeout", push.DefaultTimeout, "limit of each attempt of a request")
	f.BoolVar(&pf.insecure, "insecure", false, "grpc: plain text to an endpoint given without a scheme")
	f.StringVar(&pf.cert, "certificate", "", "PEM file of a CA certificate to trust (for a self-signed server)")
	f.StringVar(&pf.clientCert, "client-certificate", "", "PEM file of a client certificate (mutual TLS)")
	f.StringVar(&pf.clientKey, "client-key", "", "PEM file of the client certificate's key")
	f.StringArrayVar(&o.Resource, "resource", nil, "resource attribute KEY=VALUE, e.g. service.name=api (repeatable)")
	f.Var(&batch, "max-batch-bytes", "largest request before compression (the collector's default gRPC limit is 4MiB)")
	f.IntVar(&pf.concurrency, "concurrency", 2, "requests in flight at once")
	f.DurationVar(&pf.retryInitial, "retry-initial", push.DefaultRetryInitial, "first wait before a retry (doubled each time, up to 30s)")
	f.DurationVar(&pf.retryMaxElapsed, "retry-max-elapsed", push.DefaultRetryMaxElapsed, "give a request up after retrying it this long (0: no retries)")
	f.BoolVar(&o.AllowPartial, "allow-partial", false, "exit 0 even when the server rejected some profiles (partial success)")
	f.StringVar(&o.DryRun, "dry-run", "", `write the requests to this file instead of sending them ("-": standard output)`)
	f.StringVar(&o.FilesFrom, "files-from", "", `read input names from this file, one per line ("-": standard input)`)
	f.Var(&size, "max-input-size", "largest input, after decompression, that is read")
	f.BoolVar(&o.Salvage, "salvage", false, "keep what can be kept of a truncated input, with a warning")
	o.Filters.register(f)
	return cmd
}

// pushLong is push's help text; the filters' help follows it.
const pushLong = `Push sends every profile of the inputs (any format pprofx reads; every profile
of a bundle or multi-profile file) to an OTLP profiles receiver such as the
OpenTelemetry Collector (which needs --feature-gates service.profilesSupport),
in the v1development dialect collectors take (opentelemetry-proto v1.11.0).

Protocols: http/protobuf (the default: POST ENDPOINT/v1development/profiles),
http/json, and grpc (ProfilesService/Export). --endpoint is a base URL:
http://HOST:4318 for HTTP (the default is http://localhost:4318), HOST:4317 or
http(s)://HOST:4317 for gRPC (the default is http://localhost:4317; HOST:PORT
without a scheme uses TLS unless --insecure, as OTLP says).

The OTLP exporter environment variables are read and flags override them:
OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT (a full URL,
used as it is), and, each also as OTEL_EXPORTER_OTLP_PROFILES_*:
OTEL_EXPORTER_OTLP_PROTOCOL, _HEADERS (k=v,k2=v2), _TIMEOUT (ms),
_COMPRESSION (gzip|none), _CERTIFICATE, _CLIENT_CERTIFICATE, _CLIENT_KEY,
_INSECURE.

Profiles go in requests of at most --max-batch-bytes (before compression;
a larger single profile goes alone), --concurrency at a time. A request is
retried on HTTP 429, 502, 503, 504, on the retryable gRPC codes and on lost
connections, with exponential backoff and jitter, waiting at least what
Retry-After or gRPC RetryInfo asks, for at most --retry-max-elapsed. Other
refusals fail at once with the server's message. A refusal of a request's
data (HTTP 400, 413, gRPC InvalidArgument) fails that request only; any
other failure (wrong path, content type, TLS, retries exhausted) stops the
push. A partial success (some profiles rejected) is a warning with the
numbers and, unless --allow-partial, exit status 1.

A summary line goes to stderr at the end; a progress line while pushing
when stderr is a terminal. Exit status 0 only if every profile was
accepted; an input that cannot be read is named and the others still go.

--dry-run FILE writes the requests instead of sending them: protobuf
bodies each prefixed by its 4-byte big-endian length (the collector file
exporter's format), or JSON lines with http/json.

Filters apply to every profile before it is sent.
`

// pushFlags are the flags that make a push.Config, with the OTLP exporter's
// environment under them.
type pushFlags struct {
	endpoint, protocol, compression, cert, clientCert, clientKey string
	headers                                                      []string
	timeout, retryInitial, retryMaxElapsed                       time.Duration
	insecure                                                     bool
	concurrency                                                  int
}

// config reads the environment (getenv) and lets the flags set on the
// command line override it.
func (pf *pushFlags) config(fl *pflag.FlagSet) (push.Config, error) {
	cfg, err := push.FromEnv(getenv)
	if err != nil {
		return cfg, &UsageError{oneLine(err.Error())}
	}
	if fl.Changed("endpoint") {
		cfg.Endpoint, cfg.EndpointIsFull = pf.endpoint, false
	}
	if fl.Changed("protocol") || cfg.Protocol == "" {
		p, err := push.ParseProtocol(pf.protocol)
		if err != nil {
			return cfg, &UsageError{"--protocol: " + err.Error()}
		}
		cfg.Protocol = p
	}
	for _, h := range pf.headers {
		hd, err := push.ParseHeader(h)
		if err != nil {
			return cfg, &UsageError{"--header: " + err.Error()}
		}
		cfg.Headers = setHeader(cfg.Headers, hd)
	}
	if fl.Changed("compression") || cfg.Compression == "" {
		c, err := push.ParseCompression(pf.compression)
		if err != nil {
			return cfg, &UsageError{"--compression: " + err.Error()}
		}
		cfg.Compression = c
	}
	if fl.Changed("timeout") || cfg.Timeout == 0 {
		cfg.Timeout = pf.timeout
	}
	if fl.Changed("insecure") {
		cfg.Insecure = pf.insecure
	}
	if fl.Changed("certificate") {
		cfg.Certificate = pf.cert
	}
	if fl.Changed("client-certificate") {
		cfg.ClientCertificate = pf.clientCert
	}
	if fl.Changed("client-key") {
		cfg.ClientKey = pf.clientKey
	}
	if pf.concurrency < 1 || pf.concurrency > 64 {
		return cfg, &UsageError{fmt.Sprintf("--concurrency %d: want 1 to 64", pf.concurrency)}
	}
	if pf.timeout <= 0 || pf.retryInitial <= 0 || pf.retryMaxElapsed < 0 {
		return cfg, &UsageError{"--timeout and --retry-initial must be positive, --retry-max-elapsed not negative"}
	}
	cfg.Concurrency = pf.concurrency
	cfg.RetryInitial = pf.retryInitial
	cfg.RetryMaxElapsed = pf.retryMaxElapsed
	if pf.retryMaxElapsed == 0 {
		cfg.RetryMaxElapsed = time.Nanosecond // no retries
	}
	return cfg, nil
}

// setHeader sets h, replacing headers of the same key (a flag overrides
// the environment).
func setHeader(hs []push.Header, h push.Header) []push.Header {
	out := hs[:0:0]
	for _, x := range hs {
		if !strings.EqualFold(x.Key, h.Key) {
			out = append(out, x)
		}
	}
	return append(out, h)
}

func pushRun(o *PushOptions) error {
	ios := o.IO
	if err := o.Filters.compile(); err != nil {
		return err
	}
	names, stdin, err := inputNames(ios, "push", o.Inputs, o.FilesFrom)
	if err != nil {
		return err
	}
	if stdin > 1 || (stdin == 1 && o.FilesFrom == "-") || (stdin == 1 && o.DryRun == "-") {
		return &UsageError{"standard input can be read only once, and not while --dry-run writes to standard output"}
	}
	res, err := pprofextended.ParseResource(o.Resource)
	if err != nil {
		return &UsageError{err.Error()}
	}
	if o.DryRun == "" {
		return pushTo(o, names, res, nil)
	}
	if o.DryRun == "-" && ios.OutIsTerminal && !o.Config.Protocol.JSON() {
		return &UsageError{"refusing to write binary requests to a terminal: name a file with --dry-run, or pipe it"}
	}
	var runErr error
	err = writeOutput(ios, o.DryRun, func(w io.Writer) error {
		runErr = pushTo(o, names, res, w)
		return nil
	})
	if err != nil {
		return &FileError{o.DryRun, err}
	}
	return runErr
}

// pushTo sends the profiles of names (or writes the requests to dry).
func pushTo(o *PushOptions, names []string, res []model.Attribute, dry io.Writer) error {
	ios := o.IO
	r := &pushReporter{ios: ios, warned: map[string]bool{}}
	eo := otlp.EncodeOptions{Resource: res, NameScope: true, ScopeVersion: version(), Warn: r.warn}
	p, err := push.New(push.Options{
		Config: o.Config,
		Encode: func(w io.Writer, ps []*model.Profile, json bool) error {
			if json {
				return otlp.EncodeJSON(w, ps, eo)
			}
			return otlp.Encode(w, ps, eo)
		},
		DryRun:  dry,
		OnRetry: r.onRetry,
		OnDone:  r.onDone,
	})
	if err != nil {
		return &UsageError{err.Error()}
	}
	files, unreadable := r.feed(o, p, names)
	sum := p.Close()
	ios.clearProgress()
	if sum.Aborted != nil {
		fmt.Fprintf(ios.ErrOut, "pprofx: %s: %s\n", p.URL(), oneLine(sum.Aborted.Error()))
	}
	line := summaryLine(p.URL(), files, len(names), unreadable, sum, dry != nil)
	fmt.Fprintln(ios.ErrOut, line)
	r.mu.Lock()
	defer r.mu.Unlock()
	if unreadable > 0 || r.failed || sum.Aborted != nil || sum.FailedProfiles > 0 || (r.partial && !o.AllowPartial) {
		return errReported
	}
	return nil
}

// pushReporter says on stderr what happens to a push's inputs and
// requests. The encoder's warnings name the input being read when they
// first appear; a batch re-encodes profiles already added, so each
// warning is printed once for the whole run.
type pushReporter struct {
	ios     *IOStreams
	wmu     sync.Mutex
	current string
	warned  map[string]bool

	mu      sync.Mutex // the senders' callbacks
	partial bool
	failed  bool
}

func (r *pushReporter) warn(msg string) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if r.warned[msg] {
		return
	}
	r.warned[msg] = true
	r.ios.clearProgress()
	fmt.Fprintf(r.ios.ErrOut, "pprofx: %s: warning: %s\n", displayName(r.current), oneLine(msg))
}

func (r *pushReporter) report(b *push.Batch, format string, args ...any) {
	r.ios.clearProgress()
	fmt.Fprintf(r.ios.ErrOut, "pprofx: %s: %s\n", sourcesName(b.Sources), fmt.Sprintf(format, args...))
}

func (r *pushReporter) onRetry(b *push.Batch, err error, wait time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.report(b, "warning: %v; retrying in %s", err, wait.Round(time.Millisecond))
}

func (r *pushReporter) onDone(b *push.Batch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case b.Err != nil:
		r.failed = true
		var pe *push.Error
		if errors.As(b.Err, &pe) && !pe.DataOnly {
			return // it stops the push: reported once, at the end
		}
		r.report(b, "refused: %v", b.Err)
	case b.Resp != nil && (b.Resp.RejectedProfiles != 0 || b.Resp.ErrorMessage != ""):
		msg := b.Resp.ErrorMessage
		if msg == "" {
			msg = "no reason given"
		}
		if b.Resp.RejectedProfiles != 0 {
			r.partial = true
			r.report(b, "warning: partial success: the server rejected %d of %d OTLP profiles (one per sample type) of %d profiles in this request: %s",
				b.Resp.RejectedProfiles, b.OTLPProfiles, b.Profiles, oneLine(msg))
		} else {
			r.report(b, "warning: the server accepted every profile but says: %s", oneLine(msg))
		}
	}
}

// feed reads the inputs and adds their profiles to p. Inputs are read and
// decoded one ahead, on another goroutine, while this one encodes and
// hands requests to the senders: reading overlaps encoding and sending.
// Results (and the reader's warnings) come in input order, so the output
// is the same as one at a time.
func (r *pushReporter) feed(o *PushOptions, p *push.Pusher, names []string) (files, unreadable int) {
	ios := r.ios
	inputs := make(chan pushInput, 1)
	stop := make(chan struct{})
	go func() {
		defer close(inputs)
		for _, name := range names {
			in := readPushInput(ios, o, name)
			select {
			case inputs <- in:
			case <-stop:
				return
			}
		}
	}()
	defer func() {
		close(stop)
		for range inputs {
		}
	}()
	i := 0
read:
	for in := range inputs {
		i++
		name := in.name
		ios.progress("pushing", i, len(names), name)
		r.wmu.Lock()
		r.current = name
		r.wmu.Unlock()
		for _, w := range in.warnings {
			ios.clearProgress()
			fmt.Fprintf(ios.ErrOut, "pprofx: %s: warning: %s\n", displayName(name), oneLine(w))
		}
		if in.err != nil {
			ios.clearProgress()
			fmt.Fprintf(ios.ErrOut, "pprofx: %s: %s\n", displayName(name), oneLine(in.err.Error()))
			unreadable++
			continue
		}
		files++
		for _, it := range in.src.Items {
			if err := p.Add(name, it.Profile); err != nil {
				if errors.Is(err, push.ErrAborted) {
					break read
				}
				ios.clearProgress()
				fmt.Fprintf(ios.ErrOut, "pprofx: %s: %s\n", displayName(name), oneLine(err.Error()))
				unreadable++
				continue read
			}
		}
	}
	return files, unreadable
}

// pushInput is one input read and decoded, or why it could not be, with
// the reader's warnings (each once) to print when its turn comes.
type pushInput struct {
	name     string
	src      *formats.Input
	err      error
	warnings []string
}

func readPushInput(ios *IOStreams, o *PushOptions, name string) pushInput {
	res := pushInput{name: name}
	f, err := openInput(ios, name)
	if err != nil {
		res.err = err
		return res
	}
	defer f.Close()
	seen := map[string]bool{}
	warn := func(msg string) {
		if !seen[msg] {
			seen[msg] = true
			res.warnings = append(res.warnings, msg)
		}
	}
	res.src, res.err = formats.Read(f, formats.ReadOptions{MaxInputSize: o.MaxInputSize, Salvage: o.Salvage, Warn: warn, Release: true})
	if res.err == nil {
		if err := o.Filters.cutAll(res.src.Items, name, warn); err != nil {
			var fe *FileError
			if errors.As(err, &fe) {
				err = fe.Err
			}
			res.err = err
		} else {
			o.Filters.apply(res.src.Items, warn)
		}
	}
	return res
}

// sourcesName names the inputs of a request: "a.pb.gz", "a.pb.gz, b.prof",
// "a.pb.gz, b.prof and 7 more".
func sourcesName(s []string) string {
	names := make([]string, 0, 3)
	for i, n := range s {
		if i == 2 && len(s) > 3 {
			return strings.Join(names, ", ") + fmt.Sprintf(" and %d more", len(s)-2)
		}
		names = append(names, displayName(n))
	}
	return strings.Join(names, ", ")
}

func summaryLine(url string, files, named, unreadable int, s push.Summary, dry bool) string {
	verb := "pushed"
	if dry {
		verb = "wrote (dry run)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pprofx: %s %d profiles (%d OTLP profiles, %d samples) from %d of %d files", verb, s.Profiles, s.OTLPProfiles, s.Samples, files, named)
	if !dry {
		fmt.Fprintf(&b, " to %s", url)
	}
	fmt.Fprintf(&b, " in %d requests, %s", s.Requests, humanBytes(s.Bytes))
	if s.WireBytes != s.Bytes {
		fmt.Fprintf(&b, " (%s sent)", humanBytes(s.WireBytes))
	}
	fmt.Fprintf(&b, ", %d retries, %s (%s waiting on the server)", s.Retries, s.Elapsed.Round(time.Millisecond), s.Waiting.Round(time.Millisecond))
	var bad []string
	if unreadable > 0 {
		bad = append(bad, fmt.Sprintf("%d files unreadable", unreadable))
	}
	if s.FailedProfiles > 0 {
		bad = append(bad, fmt.Sprintf("%d profiles not delivered (%d requests failed)", s.FailedProfiles, s.FailedRequests))
	}
	if s.RejectedProfiles > 0 {
		bad = append(bad, fmt.Sprintf("%d OTLP profiles rejected in %d requests", s.RejectedProfiles, s.PartialRequests))
	}
	if len(bad) > 0 {
		b.WriteString("; " + strings.Join(bad, ", "))
	}
	return b.String()
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
