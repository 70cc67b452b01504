package api

import (
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appstore "github.com/roostproject/roost/internal/apps"
	"github.com/roostproject/roost/internal/auth"
)

// TestRefusedBeforeReadingBody: a request that cannot be authenticated
// from its query is refused without reading a byte of its body, whatever
// is wrong with it.
func TestRefusedBeforeReadingBody(t *testing.T) {
	body := `{"name":"e","channel":"c","data":"d"}`
	stale := func() *http.Request {
		u := &url.URL{Path: "/apps/3/events"}
		u.RawQuery = auth.SignRequest("POST", u.Path, nil, []byte(body), testKey, testSecret, testNow().Add(-time.Hour)).Encode()
		return httpRequest("POST", u.String(), body)
	}
	tests := []struct {
		name   string
		req    func() *http.Request
		status int
	}{
		{"unsigned", func() *http.Request { return httpRequest("POST", "/apps/3/events", body) }, 401},
		{"unknown app", func() *http.Request { return signed("POST", "/apps/9/events", body, testKey, testSecret) }, 404},
		{"wrong key", func() *http.Request { return signed("POST", "/apps/3/events", body, "key5", testSecret) }, 401},
		{"forged signature", func() *http.Request { return signed("POST", "/apps/3/events", body, testKey, "not-the-secret") }, 401},
		{"stale timestamp", stale, 401},
		{"no body_md5", func() *http.Request {
			r := signed("POST", "/apps/3/events", "", testKey, testSecret)
			r.Body, r.ContentLength = bodyReader(body)
			return r
		}, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			req := tt.req()
			rc := &readCounter{r: strings.NewReader(body)}
			req.Body = io.NopCloser(rc)
			rec := f.do(req)
			wantStatus(t, rec, tt.status)
			if rc.n != 0 {
				t.Errorf("read %d bytes of the body of a request refused %d", rc.n, tt.status)
			}
			if rec.Header().Get("Connection") != "close" {
				t.Error("a refusal that left the body unread does not close the connection")
			}
		})
	}
}

// TestWrongBodyIsRefusedAfterReading: a body other than the signed one is
// caught by its MD5 once read.
func TestWrongBodyIsRefusedAfterReading(t *testing.T) {
	f := newFixture(t, nil)
	req := signed("POST", "/apps/3/events", `{"name":"e","channel":"c","data":"d"}`, testKey, testSecret)
	req.Body, req.ContentLength = bodyReader(`{"name":"e","channel":"c","data":"X"}`)
	rec := f.do(req)
	wantStatus(t, rec, http.StatusUnauthorized)
	if !strings.Contains(rec.Body.String(), "body_md5") {
		t.Errorf("body = %q, want it to name body_md5", rec.Body.String())
	}
}

// clock is a settable time for Config.Now.
type clock struct{ ns atomic.Int64 }

func newClock() *clock               { c := &clock{}; c.ns.Store(testNow().UnixNano()); return c }
func (c *clock) now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *clock) add(d time.Duration) { c.ns.Add(int64(d)) }

// rateFixture is a fixture whose first app has the given rates and whose
// clock the test moves.
func rateFixture(t *testing.T, events, reads int) (*fixture, *clock) {
	clk := newClock()
	f := newFixture(t, func(c *Config) {
		c.Now = clk.now
		app := &c.Apps.(*appstore.File).List()[0]
		app.MaxBackendEventsPerSec, app.MaxReadReqPerSec = events, reads
	})
	return f, clk
}

// wantRateLimited fails t unless rec is a 429 naming the setting, with
// Retry-After.
func wantRateLimited(t *testing.T, rec interface {
	Result() *http.Response
}, setting string) {
	t.Helper()
	res := rec.Result()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), setting) {
		t.Fatalf("got %d %q, want 429 naming %s", res.StatusCode, b, setting)
	}
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
}

// TestBackendEventsPerSecond: events count once per channel and per batch
// entry; past the app's rate a request is refused whole with 429, and the
// budget comes back with time.
func TestBackendEventsPerSecond(t *testing.T) {
	f, clk := rateFixture(t, 4, 0)
	wantJSON(t, f.call("POST", "/apps/3/events", `{"name":"e","channels":["a","b","c"],"data":"d"}`), `{}`)
	rec := f.call("POST", "/apps/3/events", `{"name":"e","channels":["a","b"],"data":"d"}`)
	wantRateLimited(t, rec, "max_backend_events_per_sec")
	if n := len(f.backend.publications()); n != 1 {
		t.Fatalf("%d publications, want 1: a refused request must publish nothing", n)
	}
	wantJSON(t, f.call("POST", "/apps/3/events", `{"name":"e","channel":"a","data":"d"}`), `{}`)
	clk.add(500 * time.Millisecond) // two events' worth at 4/s
	batch := `{"batch":[{"name":"e","channel":"a","data":"d"},{"name":"e","channel":"b","data":"d"},{"name":"e","channel":"c","data":"d"}]}`
	wantRateLimited(t, f.call("POST", "/apps/3/batch_events", batch), "max_backend_events_per_sec")
	clk.add(250 * time.Millisecond)
	wantJSON(t, f.call("POST", "/apps/3/batch_events", batch), `{}`)
}

// TestReadRequestsPerSecond: queries past the app's rate get 429 until a
// second has passed; publishing does not spend the read budget.
func TestReadRequestsPerSecond(t *testing.T) {
	f, clk := rateFixture(t, 0, 2)
	for range 2 {
		wantStatus(t, f.call("GET", "/apps/3/channels", ""), http.StatusOK)
	}
	wantRateLimited(t, f.call("GET", "/apps/3/channels/presence-x/users", ""), "max_read_req_per_sec")
	wantJSON(t, f.call("POST", "/apps/3/events", `{"name":"e","channel":"a","data":"d"}`), `{}`)
	clk.add(time.Second)
	wantStatus(t, f.call("GET", "/apps/3/channels/presence-x/users", ""), http.StatusOK)
}

// TestZeroRatesAreUnlimited: the default 0 never refuses.
func TestZeroRatesAreUnlimited(t *testing.T) {
	f, _ := rateFixture(t, 0, 0)
	for range 100 {
		wantStatus(t, f.call("GET", "/apps/3/channels", ""), http.StatusOK)
	}
}

func TestInflightCapsEachAddress(t *testing.T) {
	a, b := netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3")
	var f inflight
	f.max.Store(2)
	for i, want := range []bool{true, true, false} {
		if got := f.acquire(a); got != want {
			t.Fatalf("request %d from one address admitted = %v, want %v (exactly 2)", i+1, got, want)
		}
	}
	if !f.acquire(b) {
		t.Fatal("another address was refused")
	}
	f.release(a)
	if !f.acquire(a) {
		t.Fatal("a finished request did not free its place")
	}
	f.release(a)
	f.release(a)
	f.release(b)
	if len(f.n) != 0 {
		t.Fatalf("addresses without requests are still counted: %v", f.n)
	}
}

func TestBudgetAdmitsOneOversizedBodyAlone(t *testing.T) {
	var b budget
	b.max.Store(100)
	if !b.reserve(60) || b.reserve(60) {
		t.Fatal("want 60 then a refusal of 60 more with 100")
	}
	b.release(60)
	if !b.reserve(500) {
		t.Fatal("a body over the whole budget was refused with nothing else held")
	}
	if b.reserve(1) {
		t.Fatal("the budget was overspent")
	}
	b.release(500)
	if b.used != 0 {
		t.Fatalf("used = %d after every release", b.used)
	}
}

func TestClientAddr(t *testing.T) {
	for remote, want := range map[string]string{
		"127.0.0.2:5000":       "127.0.0.2",
		"[::ffff:10.0.0.1]:80": "10.0.0.1",
		"[2001:db8::1]:443":    "2001:db8::1",
		"pipe":                 "invalid IP",
	} {
		r := httpRequest("GET", "/apps/3/channels", "")
		r.RemoteAddr = remote
		if got := clientAddr(r).String(); got != want {
			t.Errorf("clientAddr(%q) = %s, want %s", remote, got, want)
		}
	}
}
