package api

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/hub"
)

// discardWriter is a ResponseWriter that keeps nothing but its header map,
// so a benchmark counts the handler's allocations, not a recorder's.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }

// nopBackend accepts every publication and knows no channel.
type nopBackend struct{}

func (nopBackend) Publish(string, hub.Publication) error { return nil }
func (nopBackend) WaitStored(context.Context)            {}
func (nopBackend) Channel(_ context.Context, _, name string) (hub.ChannelStats, error) {
	return hub.ChannelStats{Name: name}, nil
}
func (nopBackend) Channels(context.Context, string, string) ([]hub.ChannelStats, error) {
	return nil, nil
}
func (nopBackend) Users(context.Context, string, string) ([]string, error) { return nil, nil }
func (nopBackend) TerminateUser(string, string)                            {}

// replayer serves one signed request again and again.
type replayer struct {
	h    http.Handler
	req  *http.Request
	body string
	rd   strings.Reader
	w    discardWriter
}

// newReplayer prepares the Node SDK's first trigger for repeated serving.
func newReplayer(tb testing.TB) *replayer {
	sdk := loadSDKRequests(tb)[0]
	f := newFixture(tb, func(c *Config) { c.Backend = nopBackend{} })
	rp := &replayer{h: f.h, body: sdk.Body, w: discardWriter{h: http.Header{}}}
	rp.req = httpRequest(sdk.Method, sdk.URL, sdk.Body)
	return rp
}

// serve serves the request once and reports its status.
func (rp *replayer) serve() int {
	rp.rd.Reset(rp.body)
	rp.req.Body = io.NopCloser(&rp.rd)
	clear(rp.w.h)
	rp.w.code = http.StatusOK
	rp.h.ServeHTTP(&rp.w, rp.req)
	return rp.w.code
}

func BenchmarkEvents(b *testing.B) {
	rp := newReplayer(b)
	b.ReportAllocs()
	for b.Loop() {
		if code := rp.serve(); code != http.StatusOK {
			b.Fatalf("status %d", code)
		}
	}
}
