package push

import (
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pprofx/pprofx/internal/testutil/memcheck"

	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/proto"
)

// FuzzAnswer feeds the decoders of what a server answers (error bodies,
// success bodies, Retry-After) arbitrary bytes: no panic, and a message
// is one printable line.
func FuzzAnswer(f *testing.F) {
	st, _ := proto.Marshal(&rpcstatus.Status{Code: 3, Message: "unexpected EOF"})
	f.Add("application/x-protobuf", st, "1")
	f.Add("application/json", []byte(`{"code":3,"message":"bad"}`), "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add("application/json", []byte(`{"partialSuccess":{"rejectedProfiles":"2"}}`), "")
	f.Add("text/plain", []byte("404 page not found\n"), "x")
	f.Fuzz(func(t *testing.T, ct string, body []byte, retryAfter string) {
		bound := uint64(1<<20 + 32*(len(body)+len(ct)+len(retryAfter)))
		if alloc, over := memcheck.Over(bound, func() {
			bodyMessage(ct, body)
			decodeHTTPSuccess(&http.Response{Status: "200 OK", StatusCode: 200, Header: http.Header{"Content-Type": {ct}}}, body)
		}); over {
			t.Fatalf("allocated %d bytes for a %d-byte answer (bound %d)", alloc, len(body), bound)
		}
		msg := bodyMessage(ct, body)
		if strings.ContainsAny(msg, "\r\n") || !utf8.ValidString(msg) {
			t.Errorf("message %q is not one line of text", msg)
		}
		if d := parseRetryAfter(retryAfter, time.Now()); d < 0 || d > 24*time.Hour+time.Minute && !strings.Contains(retryAfter, "GMT") {
			t.Errorf("Retry-After %q: %s", retryAfter, d)
		}
		resp := &http.Response{Status: "200 OK", StatusCode: 200, Header: http.Header{"Content-Type": {ct}}}
		decodeHTTPSuccess(resp, body)
	})
}
