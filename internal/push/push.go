package push

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/pprofx/pprofx/internal/model"
)

// Encoder writes profiles as one OTLP v1development ProfilesData message
// (the same bytes as an ExportProfilesServiceRequest), in OTLP/JSON when
// json is set.
type Encoder func(w io.Writer, profiles []*model.Profile, json bool) error

// Options configure a Pusher.
type Options struct {
	Config
	// Encode turns a batch of profiles into a request body.
	Encode Encoder
	// DryRun, when set, receives every request body instead of a server:
	// protobuf bodies each prefixed by its length as a 4-byte big-endian
	// number (the collector file exporter's framing), JSON bodies one per
	// line. Requests are then made one at a time, in order.
	DryRun io.Writer
	// OnRetry is told about each retry (from the sending goroutines).
	OnRetry func(b *Batch, err error, wait time.Duration)
	// OnDone is told about each request when it is finished, one call at a
	// time.
	OnDone func(b *Batch)
}

// Batch is one request: the profiles in it, where they came from, and
// what became of it.
type Batch struct {
	Sources  []string // input names, in order, each once
	Profiles int      // profiles (as read) in the request
	// OTLPProfiles counts the OTLP Profile messages: one per sample type.
	OTLPProfiles int
	Samples      int
	Bytes        int // encoded size
	WireBytes    int // size sent (after compression)
	Retries      int
	Resp         *Response // the answer, when accepted
	Err          error     // why it failed, when it did
}

// Summary is the outcome of a whole push.
type Summary struct {
	Profiles, OTLPProfiles, Samples int // sent and accepted (wholly or partly)
	FailedProfiles                  int // in requests that failed or were never sent
	RejectedProfiles                int64
	PartialRequests                 int // requests with a partial success answer
	Requests, FailedRequests        int
	Bytes, WireBytes                int64
	Retries                         int
	Elapsed                         time.Duration
	// Waiting is the time pprofx had nothing to do but wait for the
	// server: blocked handing over a request because every sender was
	// busy, and waiting for the last answers.
	Waiting time.Duration
	// Aborted is set when a failure about the endpoint stopped the push.
	Aborted error
}

type pending struct {
	source string
	p      *model.Profile
}

// Pusher sends profiles. Add them one at a time, then Close.
type Pusher struct {
	opts  Options
	cfg   Config
	tr    transport
	start time.Time

	batch    []pending
	batchEst int // estimated encoded size of batch
	// ratio scales estimates to what the encoder made of the last batch.
	ratio float64

	jobs    chan *Batch
	bodies  map[*Batch][]byte
	wg      sync.WaitGroup
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex // guards sum, bodies, aborted and OnDone calls
	sum     Summary
	aborted error
	buf     bytes.Buffer
}

// ErrAborted is returned by Add once a failure about the endpoint has
// stopped the push; Close's summary says which.
var ErrAborted = errors.New("push stopped")

// New starts a Pusher: its connection (for gRPC) and senders.
func New(opts Options) (*Pusher, error) {
	if opts.Encode == nil {
		return nil, errors.New("push: no encoder")
	}
	cfg := opts.Config.withDefaults()
	if cfg.Compression != "gzip" && cfg.Compression != "none" {
		return nil, fmt.Errorf("unknown compression %q (gzip or none)", cfg.Compression)
	}
	var tr transport
	var err error
	switch {
	case opts.DryRun != nil:
		tr = &dryRun{w: opts.DryRun, json: cfg.Protocol.JSON()}
		cfg.Concurrency = 1
	case cfg.Protocol == GRPC:
		tr, err = newGRPCTransport(&cfg)
	case cfg.Protocol == HTTPProtobuf || cfg.Protocol == HTTPJSON:
		tr, err = newHTTPTransport(&cfg)
	default:
		err = fmt.Errorf("unknown protocol %q", cfg.Protocol)
	}
	if err != nil {
		return nil, err
	}
	p := &Pusher{opts: opts, cfg: cfg, tr: tr, start: time.Now(), jobs: make(chan *Batch), bodies: map[*Batch][]byte{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	for i := 0; i < cfg.Concurrency; i++ {
		p.wg.Add(1)
		go p.sender()
	}
	return p, nil
}

// URL is where requests go.
func (p *Pusher) URL() string {
	if p.opts.DryRun != nil {
		return "(dry run)"
	}
	return p.cfg.URL()
}

// Add queues one profile read from source. It may wait for a sender to be
// free. After a failure that stops the push it returns ErrAborted.
func (p *Pusher) Add(source string, prof *model.Profile) error {
	if err := p.abortErr(); err != nil {
		p.mu.Lock()
		p.sum.FailedProfiles++
		p.mu.Unlock()
		return ErrAborted
	}
	est := p.estimate(prof)
	if len(p.batch) > 0 && p.batchEst+est > p.cfg.MaxBatchBytes {
		p.flush()
	}
	p.batch = append(p.batch, pending{source: source, p: prof})
	p.batchEst += est
	if p.batchEst >= p.cfg.MaxBatchBytes {
		p.flush()
	}
	if p.abortErr() != nil {
		return ErrAborted
	}
	return nil
}

func (p *Pusher) encode(profiles []*model.Profile) ([]byte, error) {
	p.buf.Reset()
	if err := p.opts.Encode(&p.buf, profiles, p.cfg.Protocol.JSON()); err != nil {
		return nil, err
	}
	return bytes.Clone(p.buf.Bytes()), nil
}

// flush sends the profiles queued so far as one request, or several when
// together they encode to more than the limit.
func (p *Pusher) flush() {
	items := p.batch
	p.batch, p.batchEst = nil, 0
	p.sendItems(items)
}

// estimate guesses the encoded size of a profile from its tables, scaled
// by what the encoder made of the last batch. Batches are filled up to the
// limit by estimate; one that encodes larger than the limit is halved, so
// each profile is encoded once, not once alone and once in its batch.
func (p *Pusher) estimate(prof *model.Profile) int {
	n := 64 + 24*len(prof.Mappings) + 12*len(prof.Functions) + 2*prof.Stacks.NumFrames()
	for _, s := range prof.Strings {
		n += len(s) + 2
	}
	for i := range prof.Locations {
		n += 8 + 8*len(prof.LocationLines(i))
	}
	for _, ls := range prof.LabelSets {
		n += 6 * len(ls.Labels())
	}
	for _, s := range prof.Samples {
		n += 6 + 4*len(s.Values()) + 9*len(s.Timestamps())
	}
	if p.cfg.Protocol.JSON() {
		n *= 4
	}
	r := p.ratio
	if r == 0 {
		r = 1
	}
	return int(float64(n) * r)
}

func (p *Pusher) sendItems(items []pending) {
	if len(items) == 0 {
		return
	}
	profs := make([]*model.Profile, len(items))
	est := 0
	for i, it := range items {
		profs[i] = it.p
		est += p.estimate(it.p)
	}
	body, err := p.encode(profs)
	if err != nil {
		p.finish(newBatch(items, 0), fmt.Errorf("encoding: %v", err), nil)
		return
	}
	if est > 0 {
		r := p.ratio
		if r == 0 {
			r = 1
		}
		p.ratio = min(max(r*float64(len(body))/float64(est), 0.1), 10)
	}
	if len(body) > p.cfg.MaxBatchBytes && len(items) > 1 {
		// Larger than estimated: halve it.
		p.sendItems(items[:len(items)/2])
		p.sendItems(items[len(items)/2:])
		return
	}
	b := newBatch(items, len(body))
	if err := p.abortErr(); err != nil {
		p.finish(b, ErrAborted, nil)
		return
	}
	t := time.Now()
	p.mu.Lock()
	p.bodies[b] = body
	p.mu.Unlock()
	select {
	case p.jobs <- b:
	case <-p.ctx.Done():
		p.mu.Lock()
		delete(p.bodies, b)
		p.mu.Unlock()
		p.finish(b, ErrAborted, nil)
	}
	p.addWaiting(time.Since(t))
}

func newBatch(items []pending, size int) *Batch {
	b := &Batch{Profiles: len(items), Bytes: size}
	for _, it := range items {
		if len(b.Sources) == 0 || b.Sources[len(b.Sources)-1] != it.source {
			b.Sources = append(b.Sources, it.source)
		}
		b.Samples += len(it.p.Samples)
		n := len(it.p.SampleTypes)
		if n == 0 {
			n = 1
		}
		b.OTLPProfiles += n
	}
	return b
}

func (p *Pusher) addWaiting(d time.Duration) {
	p.mu.Lock()
	p.sum.Waiting += d
	p.mu.Unlock()
}

func (p *Pusher) abortErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.aborted
}

func (p *Pusher) sender() {
	defer p.wg.Done()
	for b := range p.jobs {
		p.mu.Lock()
		body := p.bodies[b]
		delete(p.bodies, b)
		p.mu.Unlock()
		wire, err := p.wire(body)
		if err != nil {
			p.finish(b, err, nil)
			continue
		}
		b.WireBytes = len(wire)
		resp, retries, err := withRetries(p.ctx, &p.cfg, func(ctx context.Context) (*Response, error) {
			return p.tr.send(ctx, wire)
		}, func(err error, wait time.Duration) {
			if p.opts.OnRetry != nil {
				p.opts.OnRetry(b, err, wait)
			}
		})
		b.Retries = retries
		if errors.Is(err, context.Canceled) && p.abortErr() != nil {
			err = ErrAborted
		}
		p.finish(b, err, resp)
	}
}

// wire is the body as sent: gzipped for OTLP/HTTP when asked (gRPC
// compresses its own messages).
func (p *Pusher) wire(body []byte) ([]byte, error) {
	if p.opts.DryRun != nil || p.cfg.Protocol == GRPC || p.cfg.Compression != "gzip" {
		return body, nil
	}
	var out bytes.Buffer
	out.Grow(len(body) / 4)
	zw, err := gzip.NewWriterLevel(&out, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(body); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func (p *Pusher) finish(b *Batch, err error, resp *Response) {
	b.Err, b.Resp = err, resp
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &p.sum
	s.Retries += b.Retries
	if err != nil {
		s.FailedProfiles += b.Profiles
		if !errors.Is(err, ErrAborted) {
			s.FailedRequests++
			s.Requests++
			s.Bytes += int64(b.Bytes)
			s.WireBytes += int64(b.WireBytes)
		}
		var pe *Error
		if !errors.Is(err, ErrAborted) && (!errors.As(err, &pe) || !pe.DataOnly) && p.aborted == nil {
			p.aborted = err
			p.cancel()
		}
	} else {
		s.Requests++
		s.Profiles += b.Profiles
		s.OTLPProfiles += b.OTLPProfiles
		s.Samples += b.Samples
		s.Bytes += int64(b.Bytes)
		s.WireBytes += int64(b.WireBytes)
		if resp != nil && (resp.RejectedProfiles != 0 || resp.ErrorMessage != "") {
			s.PartialRequests++
			s.RejectedProfiles += resp.RejectedProfiles
		}
	}
	if p.opts.OnDone != nil && !errors.Is(err, ErrAborted) {
		p.opts.OnDone(b)
	}
}

// Close sends what is queued, waits for every answer and returns the
// summary.
func (p *Pusher) Close() Summary {
	p.flush()
	t := time.Now()
	close(p.jobs)
	p.wg.Wait()
	p.addWaiting(time.Since(t))
	p.cancel()
	p.tr.close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sum.Elapsed = time.Since(p.start)
	p.sum.Aborted = p.aborted
	return p.sum
}

// dryRun writes requests instead of sending them.
type dryRun struct {
	w    io.Writer
	json bool
}

func (d *dryRun) send(_ context.Context, body []byte) (*Response, error) {
	if d.json {
		var c bytes.Buffer
		if err := json.Compact(&c, body); err != nil {
			return nil, &Error{Msg: fmt.Sprintf("the encoder wrote invalid JSON: %v", err)}
		}
		c.WriteByte('\n')
		_, err := d.w.Write(c.Bytes())
		return &Response{}, writeErr(err)
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(body)))
	if _, err := d.w.Write(n[:]); err != nil {
		return nil, writeErr(err)
	}
	_, err := d.w.Write(body)
	return &Response{}, writeErr(err)
}

func writeErr(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Msg: err.Error()}
}

func (d *dryRun) close() error { return nil }
