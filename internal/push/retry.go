package push

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error is a request that failed: what the server (or the connection)
// said, and whether the failure is about the request's data (other
// requests may still go) or about the endpoint (nothing else will).
type Error struct {
	// Msg says what went wrong, in one line, e.g. "400 Bad Request:
	// unexpected EOF".
	Msg string
	// Retryable failures are retried until the time is up.
	Retryable bool
	// DataOnly: the server refused this request's data (HTTP 400, 413;
	// gRPC InvalidArgument); other requests can still succeed.
	DataOnly bool
	// RetryAfter is the wait the server asked for (Retry-After, RetryInfo).
	RetryAfter time.Duration
}

func (e *Error) Error() string { return e.Msg }

// retryableHTTP reports whether an HTTP status is retried (OTLP/HTTP
// "Retryable response codes").
func retryableHTTP(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// parseRetryAfter reads a Retry-After header: seconds, or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0
		}
		if s > 24*3600 {
			s = 24 * 3600
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// retryWait is the wait before retry n (0-based): exponential from initial,
// doubled each time up to max, with jitter (a uniform pick in
// [d/2, d)), unless the server asked for a longer wait.
func retryWait(n int, initial, max, asked time.Duration) time.Duration {
	d := initial
	for i := 0; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	if asked > d {
		return asked
	}
	return d
}

// attempt sends one request once.
type attempt func(ctx context.Context) (*Response, error)

// withRetries runs send until it succeeds, fails for good, or the time for
// retries is up. It returns the response, the number of retries made, and
// the last error.
func withRetries(ctx context.Context, cfg *Config, send attempt, onRetry func(err error, wait time.Duration)) (*Response, int, error) {
	start := time.Now()
	retries := 0
	for {
		actx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		resp, err := send(actx)
		cancel()
		if err == nil {
			return resp, retries, nil
		}
		if ctx.Err() != nil {
			return nil, retries, ctx.Err()
		}
		var pe *Error
		if !errors.As(err, &pe) || !pe.Retryable {
			return nil, retries, err
		}
		wait := retryWait(retries, cfg.RetryInitial, cfg.RetryMaxInterval, pe.RetryAfter)
		elapsed := time.Since(start)
		if elapsed+wait > cfg.RetryMaxElapsed {
			if cfg.RetryMaxElapsed < time.Millisecond {
				return nil, retries, &Error{Msg: pe.Msg + " (not retried: --retry-max-elapsed 0)", DataOnly: pe.DataOnly}
			}
			return nil, retries, &Error{Msg: fmt.Sprintf("%s (gave up after %d retries in %s, --retry-max-elapsed %s)",
				pe.Msg, retries, elapsed.Round(time.Millisecond), cfg.RetryMaxElapsed), DataOnly: pe.DataOnly}
		}
		if onRetry != nil {
			onRetry(err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, retries, ctx.Err()
		case <-t.C:
		}
		retries++
	}
}
