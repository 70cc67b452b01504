package api

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appstore "github.com/roostproject/roost/internal/apps"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
)

// The app and clock of the Pusher docs' signature test vector.
const (
	testAppID  = "3"
	testKey    = "278d425bdf160c739803"
	testSecret = "7ad3773142a6692b25b8"
	testEpoch  = 1353088179
)

// testNow is the time of every test request.
func testNow() time.Time { return time.Unix(testEpoch, 0) }

// fakeBackend records publications and answers queries from its fields.
type fakeBackend struct {
	mu         sync.Mutex
	published  []hub.Publication
	terminated []string
	stats      map[string]hub.ChannelStats // by channel name
	members    map[string][]string         // presence user ids by channel
	publishErr error
	queryErr   error // the answer to every query, if not nil
	waits      []int // how many events were published at each WaitStored
	terminates []int // how many users were terminated at each WaitStored
}

var _ Backend = (*fakeBackend)(nil)

func (b *fakeBackend) WaitStored(context.Context) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waits = append(b.waits, len(b.published))
	b.terminates = append(b.terminates, len(b.terminated))
}

func (b *fakeBackend) Publish(appID string, p hub.Publication) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.publishErr != nil {
		return b.publishErr
	}
	p.Channels = slices.Clone(p.Channels)
	b.published = append(b.published, p)
	return nil
}

func (b *fakeBackend) Channel(_ context.Context, appID, name string) (hub.ChannelStats, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if st, ok := b.stats[name]; ok {
		return st, b.queryErr
	}
	return hub.ChannelStats{Name: name}, b.queryErr
}

func (b *fakeBackend) Channels(_ context.Context, appID, prefix string) ([]hub.ChannelStats, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []hub.ChannelStats
	for _, st := range b.stats {
		if st.Occupied && strings.HasPrefix(st.Name, prefix) {
			out = append(out, st)
		}
	}
	return out, b.queryErr
}

func (b *fakeBackend) Users(_ context.Context, appID, channel string) ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.members[channel], b.queryErr
}

func (b *fakeBackend) TerminateUser(appID, userID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.terminated = append(b.terminated, userID)
}

// publications returns what was published so far.
func (b *fakeBackend) publications() []hub.Publication {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.published)
}

// cachingBackend adds a cache to fakeBackend.
type cachingBackend struct {
	*fakeBackend
	cache map[string]string
}

var _ CacheReader = cachingBackend{}

func (b cachingBackend) Cached(_ context.Context, appID, channel string) (string, time.Duration, bool, error) {
	data, ok := b.cache[channel]
	return data, 1800 * time.Second, ok, nil
}

// fixture is a handler over a fake backend, with the docs' app ("3"), a
// disabled app ("4") and a second app ("5").
type fixture struct {
	h       http.Handler
	backend *fakeBackend
}

// newFixture builds a fixture; edit adjusts the Config before New.
func newFixture(t testing.TB, edit func(*Config)) *fixture {
	t.Helper()
	off := false
	apps := &config.Config{Apps: []config.App{
		{ID: testAppID, Key: testKey, Secret: testSecret},
		{ID: "4", Key: "key4", Secret: "secret4", Enabled: &off},
		{ID: "5", Key: "key5", Secret: "secret5"},
	}}
	b := &fakeBackend{stats: map[string]hub.ChannelStats{}, members: map[string][]string{}}
	cfg := Config{Apps: appstore.NewFile(apps), Backend: b, Now: testNow, Logger: slog.New(slog.DiscardHandler)}
	if edit != nil {
		edit(&cfg)
	}
	return &fixture{h: New(cfg), backend: b}
}

// signed builds a request signed for app (id, key, secret) the way the server
// SDKs sign: query params plus auth_* and body_md5.
func signed(method, target, body, key, secret string) *http.Request {
	u, err := url.Parse(target)
	if err != nil {
		panic(err)
	}
	q := auth.SignRequest(method, u.Path, u.Query(), []byte(body), key, secret, testNow())
	u.RawQuery = q.Encode()
	return httptest.NewRequest(method, u.String(), strings.NewReader(body))
}

// do serves req and returns the recorded response.
func (f *fixture) do(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return rec
}

// call signs a request for the docs' app and serves it.
func (f *fixture) call(method, target, body string) *httptest.ResponseRecorder {
	return f.do(signed(method, target, body, testKey, testSecret))
}

// wantStatus fails t unless rec has the status; a failure shows the body.
func wantStatus(t *testing.T, rec *httptest.ResponseRecorder, status int) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status = %d, want %d; body %q", rec.Code, status, rec.Body.String())
	}
}

// wantJSON fails t unless rec is a 200 application/json response with body.
func wantJSON(t *testing.T, rec *httptest.ResponseRecorder, body string) {
	t.Helper()
	wantStatus(t, rec, http.StatusOK)
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if got := rec.Body.String(); got != body {
		t.Errorf("body = %s, want %s", got, body)
	}
}

// readCounter counts bytes read through it.
type readCounter struct {
	r io.Reader
	n int
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestNewPanicsWithoutBackend(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New with nil Backend did not panic")
		}
	}()
	New(Config{})
}

func TestNilAppsIsNotFound(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Apps = nil })
	wantStatus(t, f.call("POST", "/apps/3/events", `{}`), http.StatusNotFound)
}

// unavailableApps is an AppSource whose store cannot answer, as an app
// store does while its database is down.
type unavailableApps struct{}

func (unavailableApps) ByID(context.Context, string) (*config.App, error) {
	return nil, appstore.ErrUnavailable
}

func TestUnavailableAppStoreIs503(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Apps = unavailableApps{} })
	rec := f.call("POST", "/apps/3/events", `{}`)
	wantStatus(t, rec, http.StatusServiceUnavailable)
	if !strings.Contains(rec.Body.String(), "try again later") {
		t.Errorf("body %q does not say to try again", rec.Body)
	}
}

func TestBodyTooLargeIsRefusedBeforeReading(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxBodySize = 64 })
	body := `{"name":"e","channel":"c","data":"` + strings.Repeat("x", 100) + `"}`
	req := signed("POST", "/apps/3/events", body, testKey, testSecret)
	rc := &readCounter{r: strings.NewReader(body)}
	req.Body = io.NopCloser(rc)
	wantStatus(t, f.do(req), http.StatusRequestEntityTooLarge)
	if rc.n != 0 {
		t.Errorf("read %d bytes of a body whose Content-Length is over the limit", rc.n)
	}
}

func TestChunkedBodyTooLarge(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxBodySize = 64 })
	body := `{"name":"e","channel":"c","data":"` + strings.Repeat("x", 100) + `"}`
	req := signed("POST", "/apps/3/events", body, testKey, testSecret)
	req.ContentLength = -1
	req.Body = io.NopCloser(&readCounter{r: strings.NewReader(body)})
	wantStatus(t, f.do(req), http.StatusRequestEntityTooLarge)
	if n := len(f.backend.publications()); n != 0 {
		t.Errorf("published %d events", n)
	}
}

// failingReader fails every read.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestBodyReadError(t *testing.T) {
	f := newFixture(t, nil)
	req := signed("POST", "/apps/3/events", `{}`, testKey, testSecret)
	req.Body = io.NopCloser(failingReader{})
	wantStatus(t, f.do(req), http.StatusBadRequest)
}

func TestPublishErrorIs500(t *testing.T) {
	f := newFixture(t, nil)
	f.backend.publishErr = errors.New("broker down")
	rec := f.call("POST", "/apps/3/events", `{"name":"e","channel":"c","data":"d"}`)
	wantStatus(t, rec, http.StatusInternalServerError)
	if strings.Contains(rec.Body.String(), "broker down") {
		t.Errorf("500 body reveals the internal error: %q", rec.Body.String())
	}
}

func TestBodyBufferPoolKeepsRequestsApart(t *testing.T) {
	f := newFixture(t, nil)
	big := `{"name":"e","channel":"c","data":"` + strings.Repeat("y", 9000) + `"}`
	wantJSON(t, f.call("POST", "/apps/3/events", big), `{}`)
	wantJSON(t, f.call("POST", "/apps/3/events", `{"name":"e","channel":"c","data":"small"}`), `{}`)
	pubs := f.backend.publications()
	if len(pubs) != 2 || pubs[0].Data != strings.Repeat("y", 9000) || pubs[1].Data != "small" {
		t.Fatalf("publications corrupted across pooled buffers")
	}
}

// bodyReader returns a body and its length for replacing a request's body.
func bodyReader(s string) (io.ReadCloser, int64) {
	return io.NopCloser(strings.NewReader(s)), int64(len(s))
}

// httpRequest builds an unsigned request.
func httpRequest(method, target, body string) *http.Request {
	return httptest.NewRequest(method, target, strings.NewReader(body))
}
